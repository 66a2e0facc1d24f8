#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace iobench {
struct SizeContext;
}

// Parsers shared by units.cpp (the public parse_* functions) and params.cpp. Each takes the
// `subject` that starts its error message, so that a workload parameter reads
// "disk: bs='4kk' is not a size (...)" and a plain field reads "bs: '4kk' is not a size (...)".
namespace iobench::detail {

/// Byte size with k/m/g/t, KiB..TiB (binary), kB..TB (decimal) or b suffix. Throws ConfigError.
[[nodiscard]] std::uint64_t parse_size_as(std::string_view text, const std::string& subject);
/// Unsigned count with optional binary k/m/g/t suffix ("50k" = 51200). Throws ConfigError.
[[nodiscard]] std::uint64_t parse_count_as(std::string_view text, const std::string& subject);
/// Duration; a plain number is seconds. Throws ConfigError.
[[nodiscard]] std::chrono::nanoseconds parse_duration_as(std::string_view text,
                                                         const std::string& subject);
[[nodiscard]] bool parse_bool_as(std::string_view text, const std::string& subject);
[[nodiscard]] std::int64_t parse_int_as(std::string_view text, const std::string& subject);
[[nodiscard]] double parse_double_as(std::string_view text, const std::string& subject);

/// True if `text` is a machine-relative size expression (has '*', '/', "ram" or "targets").
[[nodiscard]] bool is_size_expression(std::string_view text);
/// Evaluates a size expression (see SizeContext): factors joined by '*' and '/', left to right;
/// each factor "ram", "targets", a decimal number ("0.5") or a size ("1g"). The result is rounded
/// down to a whole MiB. Throws ConfigError (zero result, division by zero, overflow, bad factor).
[[nodiscard]] std::uint64_t parse_size_expression_as(std::string_view text,
                                                     const std::string& subject,
                                                     const SizeContext& context);

/// ASCII lower case (suffixes and keys are compared case-insensitively).
[[nodiscard]] std::string to_lower(std::string_view text);

/// Shortest exact text for a byte count: "1GiB", "1536KiB", "1000" (no suffix when not a whole
/// multiple of 1 KiB).
[[nodiscard]] std::string format_size(std::uint64_t bytes);

}  // namespace iobench::detail
