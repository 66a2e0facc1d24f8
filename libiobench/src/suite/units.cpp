#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/units.hpp>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "suite/units_detail.hpp"

namespace iobench {
namespace detail {
namespace {

constexpr std::string_view kSizeExamples = "use e.g. 4k, 1m, 2GiB";
constexpr std::string_view kCountExamples = "use e.g. 100, 50k, 3m";
constexpr std::string_view kDurationExamples = "use e.g. 10s, 500ms, 2m";

struct Suffix {
  std::string_view name;  // lower case
  std::uint64_t multiplier;
};

constexpr std::array kSizeSuffixes{
    Suffix{"", 1},
    Suffix{"b", 1},
    Suffix{"k", kKiB},
    Suffix{"kib", kKiB},
    Suffix{"m", kMiB},
    Suffix{"mib", kMiB},
    Suffix{"g", kGiB},
    Suffix{"gib", kGiB},
    Suffix{"t", kTiB},
    Suffix{"tib", kTiB},
    Suffix{"kb", 1000ULL},
    Suffix{"mb", 1000'000ULL},
    Suffix{"gb", 1000'000'000ULL},
    Suffix{"tb", 1000'000'000'000ULL},
};
constexpr std::string_view kSizeSuffixList = "k, m, g, t, KiB, MiB, GiB, TiB, kB, MB, GB, TB or b";

constexpr std::array kCountSuffixes{
    Suffix{"", 1}, Suffix{"k", kKiB}, Suffix{"m", kMiB}, Suffix{"g", kGiB}, Suffix{"t", kTiB},
};
constexpr std::string_view kCountSuffixList = "k, m, g or t (binary multiples)";

constexpr std::uint64_t kNsPerUs = 1000;
constexpr std::uint64_t kNsPerMs = 1000 * kNsPerUs;
constexpr std::uint64_t kNsPerS = 1000 * kNsPerMs;
constexpr std::uint64_t kNsPerMin = 60 * kNsPerS;
constexpr std::uint64_t kNsPerH = 60 * kNsPerMin;

constexpr std::array kDurationSuffixes{
    Suffix{"", kNsPerS},  Suffix{"ns", 1},        Suffix{"us", kNsPerUs},   Suffix{"ms", kNsPerMs},
    Suffix{"s", kNsPerS}, Suffix{"m", kNsPerMin}, Suffix{"min", kNsPerMin}, Suffix{"h", kNsPerH},
};
constexpr std::string_view kDurationSuffixList = "ns, us, ms, s, m or h (no suffix: seconds)";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void fail(const std::string& subject, std::string_view what, std::string_view reason,
                       std::string_view examples) {
  if (reason.empty()) throw ConfigError(fmt::format("{} is not {}; {}", subject, what, examples));
  throw ConfigError(fmt::format("{} is not {} ({}); {}", subject, what, reason, examples));
}

// Reason why `text` cannot be "<digits><suffix>" regardless of the suffix table, or empty.
std::string shape_problem(std::string_view text) {
  if (text.empty()) return "empty";
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) return "spaces are not allowed";
  }
  if (text.front() == '-') return "negative values are not allowed";
  if (text.front() == '+') return "a sign is not allowed";
  if (!is_digit(text.front())) return "it must start with a digit";
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i + 1 < text.size() && (text[i] == '.' || text[i] == ',') && is_digit(text[i + 1])) {
    return "fractions are not allowed; use a smaller unit";
  }
  return {};
}

// Parses "<digits><suffix>" with `suffixes` (case-insensitive) into value * multiplier, checking
// overflow against `limit`. Throws ConfigError built from `subject`, `what` and `examples`.
template <std::size_t N>
std::uint64_t parse_scaled(std::string_view text, const std::string& subject, std::string_view what,
                           const std::array<Suffix, N>& suffixes, std::string_view suffix_list,
                           std::string_view examples, std::uint64_t limit,
                           std::string_view limit_text) {
  if (const std::string problem = shape_problem(text); !problem.empty()) {
    fail(subject, what, problem, examples);
  }
  std::size_t digits_end = 0;
  while (digits_end < text.size() && is_digit(text[digits_end])) ++digits_end;
  const std::string suffix = to_lower(text.substr(digits_end));

  std::optional<std::uint64_t> multiplier;
  for (const Suffix& candidate : suffixes) {
    if (candidate.name == suffix) multiplier = candidate.multiplier;
  }
  if (!multiplier) {
    fail(subject, what,
         fmt::format("unknown suffix '{}'; use {}", text.substr(digits_end), suffix_list),
         examples);
  }

  std::uint64_t number = 0;
  const char* const begin = text.data();
  const auto [end, ec] = std::from_chars(begin, begin + digits_end, number);
  std::uint64_t value = 0;
  if (ec == std::errc::result_out_of_range || end != begin + digits_end ||
      __builtin_mul_overflow(number, *multiplier, &value) || value > limit) {
    fail(subject, what, fmt::format("too large; the maximum is {}", limit_text), examples);
  }
  return value;
}

}  // namespace

std::uint64_t parse_size_as(std::string_view text, const std::string& subject) {
  return parse_scaled(text, subject, "a size", kSizeSuffixes, kSizeSuffixList, kSizeExamples,
                      std::numeric_limits<std::uint64_t>::max(), "18446744073709551615 bytes");
}

std::uint64_t parse_count_as(std::string_view text, const std::string& subject) {
  return parse_scaled(text, subject, "a count", kCountSuffixes, kCountSuffixList, kCountExamples,
                      std::numeric_limits<std::uint64_t>::max(), "18446744073709551615");
}

std::chrono::nanoseconds parse_duration_as(std::string_view text, const std::string& subject) {
  constexpr auto kLimit =
      static_cast<std::uint64_t>(std::numeric_limits<std::chrono::nanoseconds::rep>::max());
  const std::uint64_t ns =
      parse_scaled(text, subject, "a duration", kDurationSuffixes, kDurationSuffixList,
                   kDurationExamples, kLimit, "9223372036s (about 292 years)");
  return std::chrono::nanoseconds(static_cast<std::chrono::nanoseconds::rep>(ns));
}

bool parse_bool_as(std::string_view text, const std::string& subject) {
  const std::string word = to_lower(text);
  if (word == "true" || word == "yes" || word == "on" || word == "1") return true;
  if (word == "false" || word == "no" || word == "off" || word == "0") return false;
  fail(subject, "a boolean", {}, "use true or false (also yes/no, on/off, 1/0)");
}

std::int64_t parse_int_as(std::string_view text, const std::string& subject) {
  constexpr std::string_view kExamples = "use e.g. 0, 42, -7";
  if (text.empty()) fail(subject, "an integer", "empty", kExamples);
  // from_chars takes '-' but not '+'; a '+' must be followed by a digit ("+-5" is junk).
  std::string_view digits = text;
  if (digits.front() == '+') digits.remove_prefix(1);
  const std::size_t first = (text.front() == '-') ? 1 : 0;
  if (digits.size() <= first || !is_digit(digits[first])) {
    fail(subject, "an integer", {}, kExamples);
  }
  std::int64_t value = 0;
  const char* const end = digits.data() + digits.size();
  const auto [next, ec] = std::from_chars(digits.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    fail(subject, "an integer",
         "out of range; it must be within -9223372036854775808..9223372036854775807", kExamples);
  }
  if (ec != std::errc{} || next != end) fail(subject, "an integer", {}, kExamples);
  return value;
}

double parse_double_as(std::string_view text, const std::string& subject) {
  constexpr std::string_view kExamples = "use e.g. 0.5, 2, 1e-3";
  if (text.empty()) fail(subject, "a number", "empty", kExamples);
  // As for integers, '+' is dropped for from_chars; from_chars would also take "inf" and "nan",
  // so a digit or a point must come first.
  std::string_view digits = text;
  if (digits.front() == '+') digits.remove_prefix(1);
  const std::size_t first = (text.front() == '-') ? 1 : 0;
  if (digits.size() <= first || !(is_digit(digits[first]) || digits[first] == '.')) {
    fail(subject, "a number", {}, kExamples);
  }
  double value = 0;
  const char* const end = digits.data() + digits.size();
  const auto [next, ec] = std::from_chars(digits.data(), end, value);
  if (ec == std::errc::result_out_of_range) fail(subject, "a number", "out of range", kExamples);
  if (ec != std::errc{} || next != end || !std::isfinite(value)) {
    fail(subject, "a number", {}, kExamples);
  }
  return value;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string format_size(std::uint64_t bytes) {
  static constexpr std::array<Suffix, 4> kUnits{Suffix{"TiB", kTiB}, Suffix{"GiB", kGiB},
                                                Suffix{"MiB", kMiB}, Suffix{"KiB", kKiB}};
  if (bytes != 0) {
    for (const Suffix& unit : kUnits) {
      if (bytes % unit.multiplier == 0) {
        return fmt::format("{}{}", bytes / unit.multiplier, unit.name);
      }
    }
  }
  return fmt::format("{}", bytes);
}

}  // namespace detail

namespace {
std::string field_subject(std::string_view field, std::string_view text) {
  return fmt::format("{}: '{}'", field, printable(text));
}
}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view field) {
  return detail::parse_size_as(text, field_subject(field, text));
}

std::uint64_t parse_count(std::string_view text, std::string_view field) {
  return detail::parse_count_as(text, field_subject(field, text));
}

std::chrono::nanoseconds parse_duration(std::string_view text, std::string_view field) {
  return detail::parse_duration_as(text, field_subject(field, text));
}

bool parse_bool(std::string_view text, std::string_view field) {
  return detail::parse_bool_as(text, field_subject(field, text));
}

std::int64_t parse_int(std::string_view text, std::string_view field) {
  return detail::parse_int_as(text, field_subject(field, text));
}

double parse_double(std::string_view text, std::string_view field) {
  return detail::parse_double_as(text, field_subject(field, text));
}

}  // namespace iobench
