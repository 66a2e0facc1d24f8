#pragma once

/// Small formatting helpers shared by the built-in reporters and family formatters (plugins'
/// "text"/"csv" ResultFormatters), so that every output states its units the same way.
/// They only convert and print numbers they are given; they compute no statistics.
///
/// iobench's convention: machine outputs (JSON, CSV) carry bytes, bytes per second and ns, the
/// unit in the key or column name; human outputs of iobench's own (the generic text tables, the
/// suite tables, progress lines) use binary IEC units, labelled MiB, MiB/s, GiB. Only a family's
/// classic table prints another unit (dbench's MB = 10^6 bytes, tiotest's MB = 2^20 bytes), as
/// its original does, and says so next to it.

#include <cstdint>
#include <string>
#include <string_view>

namespace iobench {

inline constexpr double kBytesPerMB = 1e6;         ///< MB, decimal: 10^6 bytes (dbench's MB)
inline constexpr double kBytesPerMiB = 1048576.0;  ///< MiB: 2^20 bytes

/// Bytes per second as MB/s, MB = 10^6 bytes (what dd, fio's "MB/s" and dbench print).
[[nodiscard]] constexpr double to_mb_per_s(double bytes_per_s) noexcept {
  return bytes_per_s / kBytesPerMB;
}
/// Bytes per second as MiB/s (2^20 bytes).
[[nodiscard]] constexpr double to_mib_per_s(double bytes_per_s) noexcept {
  return bytes_per_s / kBytesPerMiB;
}
/// Nanoseconds as microseconds.
[[nodiscard]] constexpr double ns_to_us(double ns) noexcept { return ns / 1e3; }

/// A duration with a unit chosen so the number reads in [1, 1000), three significant digits:
/// "0 ns", "812 ns", "45.2 us", "1.50 ms", "12.3 s"; durations of 1000 s or more in whole
/// seconds ("3600 s").
[[nodiscard]] std::string format_duration(std::uint64_t ns);

/// A byte count with binary (IEC) units and three significant digits: "512 B", "4.00 KiB",
/// "1.50 MiB", "932 GiB", "1.00 TiB" (up to EiB).
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);

/// One CSV field per RFC 4180: `text` unchanged unless it contains a comma, a double quote, a
/// CR or an LF; then enclosed in double quotes with each inner double quote doubled.
[[nodiscard]] std::string csv_field(std::string_view text);

}  // namespace iobench
