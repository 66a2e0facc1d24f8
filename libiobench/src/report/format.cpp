#include <fmt/format.h>

#include <array>
#include <iobench/format.hpp>

#include "util/duration_text.hpp"

namespace iobench {
std::string format_duration(std::uint64_t ns) {
  return detail::format_duration(ns, detail::DurationStyle::kReadable);
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr std::array<const char*, 6> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  for (std::size_t i = 0; i < kUnits.size(); ++i) {
    value /= 1024.0;
    // Values from 1000 to 1023.4 stay in this unit with four digits ("1010 KiB").
    if (value < 1023.5 || i + 1 == kUnits.size()) {
      if (value >= 1000.0) return fmt::format("{:.0f} {}", value, kUnits[i]);
      return fmt::format("{} {}", detail::three_digits(value), kUnits[i]);
    }
  }
  return {};  // not reached: the last unit always returns
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted += '"';
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

}  // namespace iobench
