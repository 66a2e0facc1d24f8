#include <fmt/format.h>

#include <array>
#include <iobench/format.hpp>

namespace iobench {
namespace {

// `value` in [1, 1000) with three significant digits (fewer decimals as it grows).
std::string three_digits(double value) {
  if (value < 9.995) return fmt::format("{:.2f}", value);
  if (value < 99.95) return fmt::format("{:.1f}", value);
  return fmt::format("{:.0f}", value);
}

}  // namespace

std::string format_duration(std::uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  static constexpr std::array<const char*, 3> kUnits = {"us", "ms", "s"};
  double value = static_cast<double>(ns);
  for (std::size_t i = 0; i < kUnits.size(); ++i) {
    value /= 1000.0;
    // 999.6 us prints as "1.00 ms", not "1000 us".
    if (value < 999.5 || i + 1 == kUnits.size()) {
      if (value >= 1000.0) return fmt::format("{:.0f} {}", value, kUnits[i]);
      return fmt::format("{} {}", three_digits(value), kUnits[i]);
    }
  }
  return {};  // not reached: the last unit always returns
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
      return fmt::format("{} {}", three_digits(value), kUnits[i]);
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
