#pragma once

// Small text helpers of the explain parsers: lines, blank-separated fields, numbers.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace iobench::explain {

/// The figure of /proc/meminfo's line `name` (with its colon: "Buffers:", "Cached:") in bytes,
/// from its "N kB" (KiB); nullopt where no line of that name has that shape. Never throws.
/// (proc_parsers.cpp; drop_page_cache_before() reads what a drop left with it.)
[[nodiscard]] std::optional<std::uint64_t> meminfo_bytes(std::string_view text,
                                                         std::string_view name);

/// Calls `fn` with each line of `text`, without its '\n'.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    fn(text.substr(start, end - start));
    start = end + 1;
  }
}

/// Fields separated by runs of spaces or tabs.
inline std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

/// Whole-field unsigned decimal; false on anything else (sign, overflow, trailing bytes).
inline bool to_u64(std::string_view text, std::uint64_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

/// Whole-field decimal with an optional fraction ("93.23"); nullopt otherwise.
inline std::optional<double> to_double(std::string_view text) {
  double value = 0;
  if (text.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace iobench::explain
