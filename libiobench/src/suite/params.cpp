#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/printable.hpp>
#include <iobench/units.hpp>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "suite/units_detail.hpp"
#include "util/duration_text.hpp"

namespace iobench {

std::string_view to_string(ParamType type) noexcept {
  switch (type) {
    case ParamType::kBool:
      return "bool";
    case ParamType::kCount:
      return "count";
    case ParamType::kSize:
      return "size";
    case ParamType::kInt:
      return "int";
    case ParamType::kDouble:
      return "double";
    case ParamType::kDuration:
      return "duration";
    case ParamType::kEnum:
      return "enum";
    case ParamType::kString:
      return "string";
    case ParamType::kSizeList:
      return "size list";
  }
  return "unknown";
}

namespace {

std::string prefix(std::string_view context) {
  return context.empty() ? std::string() : fmt::format("{}: ", context);
}

// The unit shown in range messages: the spec's own, else what the type implies.
std::string unit_of(const ParamSpec& spec) {
  if (!spec.unit.empty()) return spec.unit;
  return spec.type == ParamType::kSize || spec.type == ParamType::kSizeList ? "bytes" : "";
}

bool is_bare_number(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A bare number where the original tool read MiB: refused, since here it would be bytes.
void check_bare_number(const std::string& subject, const ParamSpec& spec, std::string_view item) {
  if (spec.bare_number_was_mib_in.empty() || !is_bare_number(item)) return;
  if (item.find_first_not_of('0') == std::string_view::npos) return;  // 0 means the same
  throw ConfigError(fmt::format(
      "{}: a bare number is bytes in iobench, but {} read it as MiB; write {}m for {} MiB (or {}b "
      "for {} bytes)",
      subject, spec.bare_number_was_mib_in, item, item, item, item));
}

// One kSize value: a plain size, or an expression resolved against `sizes`. `resolved` gets the
// text reports should show (the expression's result, else the text as given).
std::uint64_t size_value(std::string_view text, const std::string& subject, const ParamSpec* spec,
                         const SizeContext& sizes, std::string& resolved) {
  if (spec != nullptr) check_bare_number(subject, *spec, text);
  if (detail::is_size_expression(text)) {
    const std::uint64_t bytes = detail::parse_size_expression_as(text, subject, sizes);
    resolved = detail::format_size(bytes);
    return bytes;
  }
  resolved = std::string(text);
  if (spec == nullptr || spec->bare_number_was_mib_in.empty()) {
    return detail::parse_size_as(text, subject);
  }
  try {
    return detail::parse_size_as(text, subject);
  } catch (const ConfigError& e) {
    // Name the original's form too: "size=64:8k" is most likely bonnie++'s -s text.
    throw ConfigError(fmt::format("{}; sizes are bytes here, where {} read MiB", e.what(),
                                  spec->bare_number_was_mib_in));
  }
}

// "1 (bytes)", "1073741824 (bytes, 1GiB)", "8", "10s".
std::string bound_text(const ParamSpec& spec, std::uint64_t bound) {
  if (spec.type == ParamType::kDuration)
    return detail::format_duration(bound, detail::DurationStyle::kExact);
  const std::string unit = unit_of(spec);
  if (spec.type == ParamType::kSize && bound >= kKiB && bound % kKiB == 0) {
    return fmt::format("{} ({}, {})", bound, unit, detail::format_size(bound));
  }
  if (unit.empty()) return fmt::format("{}", bound);
  return fmt::format("{} ({})", bound, unit);
}

[[noreturn]] void range_error(const std::string& subject, const ParamSpec& spec, bool below) {
  const std::uint64_t bound = below ? *spec.min : *spec.max;
  throw ConfigError(fmt::format("{}: must be at {} {}", subject, below ? "least" : "most",
                                bound_text(spec, bound)));
}

void check_unsigned_range(const std::string& subject, const ParamSpec& spec, std::uint64_t value) {
  if (spec.min && value < *spec.min) range_error(subject, spec, true);
  if (spec.max && value > *spec.max) range_error(subject, spec, false);
}

// kInt and kDouble values against the unsigned bounds, without converting a negative value.
template <typename T>
void check_signed_range(const std::string& subject, const ParamSpec& spec, T value) {
  if (spec.min &&
      (value < 0 || static_cast<long double>(value) < static_cast<long double>(*spec.min))) {
    range_error(subject, spec, true);
  }
  if (spec.max && value > 0 &&
      static_cast<long double>(value) > static_cast<long double>(*spec.max)) {
    range_error(subject, spec, false);
  }
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += ", ";
    out += word;
  }
  return out;
}

std::size_t levenshtein(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // distance(a[0..i-1), b[0..j-1))
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::uint64_t parse_size_value(std::string_view text, std::string_view field,
                               const SizeContext& sizes) {
  std::string resolved;
  return size_value(text, std::string(field), nullptr, sizes, resolved);
}

std::string closest_match(std::string_view word, std::span<const std::string> candidates) {
  const std::string needle = detail::to_lower(word);
  const std::size_t limit = needle.size() / 3 + 1;
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = levenshtein(needle, detail::to_lower(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

Params Params::validate(std::span<const ParamSpec> specs,
                        const std::map<std::string, std::string>& raw, std::string_view context,
                        const SizeContext& sizes) {
  const std::string lead = prefix(context);

  for (const auto& [key, text] : raw) {
    const bool known =
        std::any_of(specs.begin(), specs.end(),
                    [&name = key](const ParamSpec& spec) { return spec.key == name; });
    if (known) continue;
    std::vector<std::string> keys;
    keys.reserve(specs.size());
    for (const ParamSpec& spec : specs) keys.push_back(spec.key);
    const std::string suggestion = closest_match(key, keys);
    if (suggestion.empty()) {
      throw ConfigError(
          fmt::format("{}unknown parameter '{}' (see 'iobench list')", lead, printable(key)));
    }
    throw ConfigError(
        fmt::format("{}unknown parameter '{}'; did you mean '{}'? (see 'iobench list')", lead,
                    printable(key), suggestion));
  }

  Params params;
  for (const ParamSpec& spec : specs) {
    const auto given = raw.find(spec.key);
    const bool is_given = given != raw.end();
    if (!is_given && spec.default_value.empty()) {
      if (spec.required) {
        const std::string what = spec.help.empty() ? std::string() : " (" + spec.help + ")";
        throw ConfigError(fmt::format("{}missing required parameter '{}'{}; give it as {}=VALUE",
                                      lead, spec.key, what, spec.key));
      }
      continue;  // optional and unset: has() is false
    }
    const std::string& text = is_given ? given->second : spec.default_value;
    const std::string subject = fmt::format("{}{}='{}'{}", lead, spec.key, printable(text),
                                            is_given ? "" : " (the default)");

    Value value{.type = spec.type, .text = text, .given = is_given};
    switch (spec.type) {
      case ParamType::kBool:
        value.u64 = detail::parse_bool_as(text, subject) ? 1 : 0;
        break;
      case ParamType::kCount:
        value.u64 = detail::parse_count_as(text, subject);
        check_unsigned_range(subject, spec, value.u64);
        break;
      case ParamType::kSize: {
        std::string resolved;
        value.u64 = size_value(text, subject, &spec, sizes, resolved);
        value.text = std::move(resolved);
        check_unsigned_range(subject, spec, value.u64);
        break;
      }
      case ParamType::kSizeList: {
        // Blanks separate sizes only where no expression is given ("2 * ram" is one item).
        const std::vector<std::string_view> items = split_list_param(
            text, fmt::format("{}{}", lead, spec.key), "256m,1g",
            text.find_first_of("*/") == std::string_view::npos ? ListSeparators::kCommasOrBlanks
                                                               : ListSeparators::kCommas);
        std::vector<std::string> texts;
        for (const std::string_view item : items) {
          std::string resolved;
          const std::string item_subject = fmt::format("{} (item '{}')", subject, item);
          value.list.push_back(size_value(item, item_subject, &spec, sizes, resolved));
          check_unsigned_range(item_subject, spec, value.list.back());
          texts.push_back(std::move(resolved));
        }
        if (detail::is_size_expression(text)) value.text = fmt::format("{}", fmt::join(texts, ","));
        break;
      }
      case ParamType::kInt:
        value.i64 = detail::parse_int_as(text, subject);
        check_signed_range(subject, spec, value.i64);
        break;
      case ParamType::kDouble:
        value.f64 = detail::parse_double_as(text, subject);
        check_signed_range(subject, spec, value.f64);
        break;
      case ParamType::kDuration: {
        const std::chrono::nanoseconds ns = detail::parse_duration_as(text, subject);
        value.i64 = ns.count();
        value.u64 = static_cast<std::uint64_t>(ns.count());
        check_unsigned_range(subject, spec, value.u64);
        break;
      }
      case ParamType::kEnum:
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
          const std::string suggestion = closest_match(text, spec.choices);
          throw ConfigError(fmt::format("{} is not one of {}{}", subject, join(spec.choices),
                                        suggestion.empty()
                                            ? std::string()
                                            : fmt::format("; did you mean '{}'?", suggestion)));
        }
        break;
      case ParamType::kString:
        break;
    }
    params.values_.emplace(spec.key, std::move(value));
  }
  return params;
}

const Params::Value& Params::find(std::string_view key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) {
    throw ConfigError(
        fmt::format("parameter '{}' has no value: it is not declared, or optional and not given "
                    "(check has() first)",
                    key));
  }
  return it->second;
}

namespace {
[[noreturn]] void wrong_type(std::string_view key, ParamType actual, std::string_view wanted) {
  throw ConfigError(fmt::format("parameter '{}' is declared as {}, not read as {}", key,
                                to_string(actual), wanted));
}
}  // namespace

bool Params::given(std::string_view key) const {
  const auto it = values_.find(key);
  return it != values_.end() && it->second.given;
}

bool Params::has(std::string_view key) const { return values_.find(key) != values_.end(); }

bool Params::get_bool(std::string_view key) const {
  const Value& value = find(key);
  if (value.type != ParamType::kBool) wrong_type(key, value.type, "bool");
  return value.u64 != 0;
}

std::uint64_t Params::get_u64(std::string_view key) const {
  const Value& value = find(key);
  if (value.type != ParamType::kCount && value.type != ParamType::kSize) {
    wrong_type(key, value.type, "count or size");
  }
  return value.u64;
}

std::int64_t Params::get_int(std::string_view key) const {
  const Value& value = find(key);
  if (value.type != ParamType::kInt) wrong_type(key, value.type, "int");
  return value.i64;
}

const std::vector<std::uint64_t>& Params::get_u64_list(std::string_view key) const {
  const Value& value = find(key);
  if (value.type != ParamType::kSizeList) wrong_type(key, value.type, "size list");
  return value.list;
}

double Params::get_double(std::string_view key) const {
  const Value& value = find(key);
  if (value.type != ParamType::kDouble) wrong_type(key, value.type, "double");
  return value.f64;
}

std::chrono::nanoseconds Params::get_duration(std::string_view key) const {
  const Value& value = find(key);
  if (value.type != ParamType::kDuration) wrong_type(key, value.type, "duration");
  return std::chrono::nanoseconds(value.i64);
}

const std::string& Params::get_string(std::string_view key) const { return find(key).text; }

std::map<std::string, std::string> Params::as_text() const {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : values_) out.emplace(key, value.text);
  return out;
}

}  // namespace iobench
