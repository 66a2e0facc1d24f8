// Alone in its file: term.h defines macros named after every capability (lines, columns, ...).
#include "tests/progress/terminfo_el.hpp"

#include <term.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace iobench::test {

std::string terminfo_el(const std::string& term) {
  int status = 0;
  if (::setupterm(term.c_str(), STDOUT_FILENO, &status) != 0) {
    throw std::runtime_error("no terminfo entry for " + term);
  }
  const char* el = ::tigetstr(const_cast<char*>("el"));
  if (el == nullptr || el == reinterpret_cast<const char*>(-1)) {
    throw std::runtime_error("terminfo " + term + " has no el");
  }
  return el;
}

}  // namespace iobench::test
