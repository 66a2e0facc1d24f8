#include "plugins/dbench/loadfile_values.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace iobench::plugins::dbench {

namespace {

int digit_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

/// Unsigned digits in `base` covering all of `text` (at least one). nullopt on junk or overflow.
std::optional<std::uint64_t> parse_digits(std::string_view text, unsigned base) noexcept {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  if (base == 10 && text.size() <= 19) {  // cannot overflow: no checks per digit
    for (const char c : text) {
      const auto d = static_cast<unsigned>(c - '0');
      if (d > 9) return std::nullopt;
      value = value * 10 + d;
    }
    return value;
  }
  for (const char c : text) {
    const auto d = static_cast<unsigned>(digit_value(c));
    if (d >= base) return std::nullopt;
    if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, d, &value)) {
      return std::nullopt;
    }
  }
  return value;
}

/// strtoul(text, 0) over the whole token, without a sign.
std::optional<std::uint64_t> parse_unsigned(std::string_view text) noexcept {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return parse_digits(text.substr(2), 16);
  }
  if (text.size() > 1 && text[0] == '0') return parse_digits(text.substr(1), 8);
  return parse_digits(text, 10);
}

bool starts_with(std::string_view text, std::string_view prefix) noexcept {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::optional<std::int64_t> parse_loadfile_integer(std::string_view text) noexcept {
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  const auto magnitude = parse_unsigned(text);
  if (!magnitude) return std::nullopt;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (*magnitude > kMax + 1) return std::nullopt;
    return *magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                  : -static_cast<std::int64_t>(*magnitude);
  }
  if (*magnitude > kMax) return std::nullopt;
  return static_cast<std::int64_t>(*magnitude);
}

std::optional<std::int64_t> parse_timestamp_ns(std::string_view text) noexcept {
  if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  double seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  // 9.2e9 s (292 years) is where int64 nanoseconds end.
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 9.0e9) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

bool looks_like_status(std::string_view text) noexcept {
  return starts_with(text, "NT_STATUS_") || starts_with(text, "0x") ||
         starts_with(text, "SUCCESS") || starts_with(text, "ERROR") || text == "*";
}

std::optional<Expect> parse_status(std::string_view text) noexcept {
  if (text == "NT_STATUS_OK" || text == "SUCCESS") return Expect::kOk;
  if (text == "ERROR") return Expect::kFailure;
  if (text == "*") return Expect::kAny;
  if (starts_with(text, "NT_STATUS_")) {
    const std::string_view name = text.substr(10);
    if (name.empty()) return std::nullopt;
    for (const char c : name) {
      const bool ok =
          (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      if (!ok) return std::nullopt;
    }
    return Expect::kFailure;
  }
  if (starts_with(text, "0x")) {
    if (text.size() > 18) return std::nullopt;
    const auto value = parse_digits(text.substr(2), 16);
    if (!value) return std::nullopt;
    return *value == 0 ? Expect::kOk : Expect::kFailure;
  }
  return std::nullopt;
}

std::optional<ParsedExpr> parse_modifier_expression(std::string_view text, std::string& error) {
  ParsedExpr out;
  if (text.empty() || (text[0] != '*' && text[0] != '+')) {
    error = "a modifier expression starting with * or +";
    return std::nullopt;
  }
  out.base = text[0] == '*' ? ValueExpr::Base::kRandom : ValueExpr::Base::kPrevious;
  // "+n..." is the previous value plus n: the base's own '+' is the first step.
  std::size_t pos = out.base == ValueExpr::Base::kRandom ? 1 : 0;
  while (pos < text.size()) {
    const char qualifier = text[pos];
    ExprStep step;
    switch (qualifier) {
      case '/':
        step.kind = ExprStep::Kind::kAlign;
        break;
      case '%':
        step.kind = ExprStep::Kind::kModulo;
        break;
      case '+':
        step.kind = ExprStep::Kind::kAdd;
        break;
      default:
        error = "a qualifier /y, %y or +y after the value (y a number, child or num_children)";
        return std::nullopt;
    }
    const std::size_t start = pos + 1;
    std::size_t end = start;
    while (end < text.size() && text[end] != '/' && text[end] != '%' && text[end] != '+') ++end;
    const std::string_view operand = text.substr(start, end - start);
    if (operand == "child") {
      step.operand = ExprStep::Operand::kClientId;
    } else if (operand == "num_children") {
      step.operand = ExprStep::Operand::kNumClients;
    } else {
      const auto value = parse_unsigned(operand);
      if (!value) {
        error = std::string("a number, child or num_children after '") + qualifier + "'";
        return std::nullopt;
      }
      step.constant = *value;
    }
    if (step.kind != ExprStep::Kind::kAdd) {
      if (step.operand == ExprStep::Operand::kClientId) {
        error = std::string("a non-zero divisor after '") + qualifier +
                "' (child is 0 for the first client)";
        return std::nullopt;
      }
      if (step.operand == ExprStep::Operand::kConstant && step.constant == 0) {
        error = std::string("a non-zero number after '") + qualifier + "'";
        return std::nullopt;
      }
    }
    out.steps.push_back(step);
    pos = end;
  }
  if (out.base == ValueExpr::Base::kPrevious && out.steps.empty()) {
    error = "a number, child or num_children after '+'";
    return std::nullopt;
  }
  return out;
}

}  // namespace iobench::plugins::dbench
