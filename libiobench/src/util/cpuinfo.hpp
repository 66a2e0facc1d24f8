#pragma once

// Reading the CPU model out of /proc/cpuinfo text (pure; header-only so tests compile it).

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace iobench::detail {

/// Strips spaces and tabs at both ends.
[[nodiscard]] inline std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

/// The CPU model named in /proc/cpuinfo text: the first "model name" (x86, and arm64 since Linux
/// 6.x), else "Processor" (older arm), "cpu model" (mips) or "cpu" (powerpc). Empty if none.
[[nodiscard]] inline std::string cpu_model_from_cpuinfo(std::string_view text) {
  static constexpr std::array<std::string_view, 4> kKeys = {"model name", "Processor", "cpu model",
                                                            "cpu"};
  for (std::string_view wanted : kKeys) {
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = text.substr(start, end - start);
      start = end + 1;
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos || trim_blanks(line.substr(0, colon)) != wanted) continue;
      const std::string_view value = trim_blanks(line.substr(colon + 1));
      if (!value.empty()) return std::string(value);
    }
  }
  return {};
}

}  // namespace iobench::detail
