#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace iobench::plugins::tiotest {

/// `text` right-aligned in `width` characters (never truncated).
[[nodiscard]] inline std::string pad_left(std::string_view text, std::size_t width) {
  std::string out(width > text.size() ? width - text.size() : 0, ' ');
  out.append(text);
  return out;
}

/// `text` left-aligned in `width` characters (never truncated).
[[nodiscard]] inline std::string pad_right(std::string_view text, std::size_t width) {
  std::string out(text);
  if (width > out.size()) out.append(width - out.size(), ' ');
  return out;
}

/// `count` copies of `c`.
[[nodiscard]] inline std::string repeat(char c, std::size_t count) { return std::string(count, c); }

/// Widest of `minimum` and the sizes of the strings selected by `get` over `rows`.
template <typename Rows, typename Get>
[[nodiscard]] std::size_t column_width(const Rows& rows, std::size_t minimum, Get get) {
  std::size_t width = minimum;
  for (const auto& row : rows) width = std::max(width, get(row).size());
  return width;
}

}  // namespace iobench::plugins::tiotest
