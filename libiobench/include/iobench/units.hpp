#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace iobench {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;
inline constexpr std::uint64_t kTiB = 1024 * kGiB;

/// Parses a byte size or a count: "4096", "4k", "1m", "2g", "1t", "4KiB", "2MiB", "1GiB", "1TiB"
/// (binary multiples, as dd, fio and the seeds' test tool read "bs=4k" and "blocks=3m"), or
/// "1kB", "1MB", "1GB", "1TB" (decimal, 1000-based). Suffixes are case-insensitive except that
/// "b" alone means bytes. Whitespace, signs, fractions, empty text and overflow are rejected.
/// `field` names the parameter for the error message.
/// Throws ConfigError ("<field>: '<text>' is not a size; use e.g. 4k, 1m, 2GiB").
[[nodiscard]] std::uint64_t parse_size(std::string_view text, std::string_view field);

/// Parses a count: "100", "50k" (= 51200), "3m", "1g", "1t" (binary multiples, as the seeds'
/// tool reads "blocks=3m"). Throws ConfigError ("<field>: '<text>' is not a count; use e.g.
/// 100, 50k, 3m") for junk, signs, fractions, empty text and overflow.
[[nodiscard]] std::uint64_t parse_count(std::string_view text, std::string_view field);

/// Parses a duration: "10" (seconds), "500ms", "250us", "100ns", "30s", "5m", "2h". Zero is
/// allowed; negative, fractional, malformed or overflowing values throw ConfigError naming `field`.
[[nodiscard]] std::chrono::nanoseconds parse_duration(std::string_view text,
                                                      std::string_view field);

/// Parses a boolean: true/false, yes/no, on/off, 1/0 (case-insensitive). Throws ConfigError.
[[nodiscard]] bool parse_bool(std::string_view text, std::string_view field);

/// Parses a signed decimal integer (no suffix). Throws ConfigError on junk or overflow.
[[nodiscard]] std::int64_t parse_int(std::string_view text, std::string_view field);

/// Parses a finite decimal floating-point number. Throws ConfigError on junk.
[[nodiscard]] double parse_double(std::string_view text, std::string_view field);

}  // namespace iobench
