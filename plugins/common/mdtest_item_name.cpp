#include "plugins/common/mdtest_item_name.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

namespace iobench::plugins {

void append_item_name(bool dirs, std::uint64_t rank, std::uint64_t n, std::string& out) {
  // Once per item op: the digits by std::to_chars into a buffer and one append, not fmt's
  // runtime format string through a back_inserter (tests/bench/mdtest_names_bench.cpp).
  std::array<char, 64> buffer{};  // "file.mdtest." + 20 digits + '.' + 20 digits
  char* const end = buffer.data() + buffer.size();
  const std::string_view kind = dirs ? "dir.mdtest." : "file.mdtest.";
  char* p = std::copy(kind.begin(), kind.end(), buffer.data());
  p = std::to_chars(p, end, rank).ptr;
  *p++ = '.';
  p = std::to_chars(p, end, n).ptr;
  out.append(buffer.data(), p);
}

}  // namespace iobench::plugins
