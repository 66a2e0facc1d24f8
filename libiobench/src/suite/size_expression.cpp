// Machine-relative sizes: "2*ram", "ram/2/targets", "0.5*ram", "1g*targets".
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/printable.hpp>
#include <iobench/units.hpp>
#include <string>
#include <string_view>
#include <system_error>

#include "suite/units_detail.hpp"

namespace iobench::detail {
namespace {

constexpr std::string_view kExpressionHelp =
    "use a size (4k, 1g) or a product or quotient of numbers, sizes, 'ram' and 'targets', e.g. "
    "2*ram or ram/2/targets";

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// One factor: "ram", "targets", a plain decimal number ("0.5") or a size ("1g").
long double factor_value(std::string_view token, const SizeContext& context,
                         const std::string& subject) {
  const std::string lower = to_lower(token);
  if (lower == "ram") {
    if (context.ram_bytes == 0) {
      throw ConfigError(
          fmt::format("{}: the machine's RAM is not known here; give a size", subject));
    }
    return static_cast<long double>(context.ram_bytes);
  }
  if (lower == "targets") return static_cast<long double>(context.targets);
  double number = 0;
  const auto [end, error] =
      std::from_chars(token.data(), token.data() + token.size(), number, std::chars_format::fixed);
  if (error == std::errc() && end == token.data() + token.size() && std::isfinite(number) &&
      number >= 0) {
    return number;
  }
  if (token.empty()) {
    throw ConfigError(
        fmt::format("{} is not a size (an operand is missing); {}", subject, kExpressionHelp));
  }
  try {
    return static_cast<long double>(parse_size_as(token, subject));
  } catch (const ConfigError&) {
    throw ConfigError(
        fmt::format("{} is not a size ('{}' is neither a number, a size, 'ram' nor "
                    "'targets'); {}",
                    subject, printable(token), kExpressionHelp));
  }
}

}  // namespace

bool is_size_expression(std::string_view text) {
  const std::string lower = to_lower(text);
  return lower.find_first_of("*/") != std::string::npos || lower.find("ram") != std::string::npos ||
         lower.find("targets") != std::string::npos;
}

std::uint64_t parse_size_expression_as(std::string_view text, const std::string& subject,
                                       const SizeContext& context) {
  long double value = 0;
  char op = '*';
  bool first = true;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find_first_of("*/", start);
    const std::string_view token =
        trim(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    const long double operand = factor_value(token, context, subject);
    if (first) {
      value = operand;
      first = false;
    } else if (op == '*') {
      value *= operand;
    } else {
      if (operand == 0) {
        throw ConfigError(fmt::format("{} divides by zero; {}", subject, kExpressionHelp));
      }
      value /= operand;
    }
    // Past the range of long double a later "*0" would make NaN, which has no size.
    if (std::isinf(value)) {
      throw ConfigError(fmt::format("{} is larger than 2^64 bytes; use a smaller size", subject));
    }
    if (end == std::string_view::npos) break;
    op = text[end];
    start = end + 1;
  }
  // To the nearest byte first: decimal factors are inexact in binary (0.3*10g must not come to
  // a byte short of 3g and so a MiB short after rounding down).
  value = std::roundl(value);
  if (value >= 18446744073709551615.0L) {
    throw ConfigError(fmt::format("{} is larger than 2^64 bytes; use a smaller size", subject));
  }
  // Down to a whole MiB: a multiple of every usual block size.
  const std::uint64_t bytes = static_cast<std::uint64_t>(value) / kMiB * kMiB;
  if (bytes == 0) {
    throw ConfigError(
        fmt::format("{} comes to {:.0f} bytes, less than the 1 MiB it is rounded "
                    "down to a multiple of; use a larger size",
                    subject, static_cast<double>(value)));
  }
  return bytes;
}

}  // namespace iobench::detail
