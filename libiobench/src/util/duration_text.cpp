#include "util/duration_text.hpp"

#include <fmt/format.h>

#include <array>

namespace iobench::detail {
namespace {

constexpr std::uint64_t kNsPerUs = 1000;
constexpr std::uint64_t kNsPerMs = 1000 * kNsPerUs;
constexpr std::uint64_t kNsPerS = 1000 * kNsPerMs;
constexpr std::uint64_t kNsPerMin = 60 * kNsPerS;
constexpr std::uint64_t kNsPerH = 60 * kNsPerMin;

std::string readable(std::uint64_t ns) {
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

std::string exact(std::uint64_t ns) {
  struct Unit {
    const char* name;
    std::uint64_t ns;
  };
  static constexpr std::array<Unit, 6> kUnits{Unit{"h", kNsPerH},   Unit{"m", kNsPerMin},
                                              Unit{"s", kNsPerS},   Unit{"ms", kNsPerMs},
                                              Unit{"us", kNsPerUs}, Unit{"ns", 1}};
  if (ns == 0) return "0s";
  for (const Unit& unit : kUnits) {
    if (ns % unit.ns == 0) return fmt::format("{}{}", ns / unit.ns, unit.name);
  }
  return fmt::format("{}ns", ns);  // unreachable: 1 divides everything
}

}  // namespace

std::string format_duration(std::uint64_t ns, DurationStyle style) {
  return style == DurationStyle::kReadable ? readable(ns) : exact(ns);
}

std::string three_digits(double value) {
  if (value < 9.995) return fmt::format("{:.2f}", value);
  if (value < 99.95) return fmt::format("{:.1f}", value);
  return fmt::format("{:.0f}", value);
}

}  // namespace iobench::detail
