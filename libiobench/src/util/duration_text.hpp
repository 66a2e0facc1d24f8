#pragma once

#include <cstdint>
#include <string>

// The one duration formatter: iobench::format_duration (<iobench/format.hpp>: reports, messages)
// writes the readable style, parameter and suite text the exact one.
namespace iobench::detail {

/// How format_duration() writes a duration.
enum class DurationStyle {
  /// For people: a unit chosen so the number reads in [1, 1000), three significant digits, a
  /// space before the unit: "0 ns", "812 ns", "45.2 us", "1.50 ms", "12.3 s"; 1000 s or more in
  /// whole seconds ("3600 s").
  kReadable,
  /// For params and suites: the shortest exact text in the largest unit that divides it, which
  /// parse_duration reads back to the same ns: "0s", "2h", "90s", "1500ms", "7ns".
  kExact,
};

/// `ns` nanoseconds as text in `style`.
[[nodiscard]] std::string format_duration(std::uint64_t ns, DurationStyle style);

/// `value` in [1, 1000) with three significant digits, fewer decimals as it grows: "4.00",
/// "45.2", "932" (what the readable duration and byte texts print before their unit).
[[nodiscard]] std::string three_digits(double value);

}  // namespace iobench::detail
