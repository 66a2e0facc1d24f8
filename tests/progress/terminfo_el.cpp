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
  const char* found = ::tigetstr(const_cast<char*>("el"));
  const bool missing = found == nullptr || found == reinterpret_cast<const char*>(-1);
  std::string el = missing ? std::string() : std::string(found);
  ::del_curterm(cur_term);  // the entry setupterm() allocated (LeakSanitizer)
  if (missing) throw std::runtime_error("terminfo " + term + " has no el");
  return el;
}

}  // namespace iobench::test
