// Typed access to a result document's JSON (json_fields.hpp).
#include "report/json_fields.hpp"

#include <fmt/format.h>

#include <limits>

#include "report/json_shape.hpp"

namespace iobench::detail::json_read {

void fail(const std::string& pointer, const std::string& what) {
  throw ResultFormatError(pointer, what);
}

void wrong_type(const std::string& pointer, const Json& j, std::string_view wanted) {
  fail(pointer, fmt::format("must be {}, not {}", wanted, json_kind(j)));
}

Field member(const Field& object, std::string_view key) {
  if (!object.value.is_object()) wrong_type(object.pointer, object.value, "an object");
  const auto it = object.value.find(key);
  if (it == object.value.end()) fail(object.pointer, fmt::format("the key \"{}\" is missing", key));
  return Field{*it, json_pointer_child(object.pointer, key)};
}

std::optional<Field> optional_member(const Field& object, std::string_view key) {
  if (!object.value.is_object()) wrong_type(object.pointer, object.value, "an object");
  const auto it = object.value.find(key);
  if (it == object.value.end()) return std::nullopt;
  return Field{*it, json_pointer_child(object.pointer, key)};
}

std::uint64_t u64(const Field& f) {
  if (!f.value.is_number_unsigned()) wrong_type(f.pointer, f.value, "a whole number of 0 or more");
  return f.value.get<std::uint64_t>();
}
std::uint64_t u64(const Field& object, std::string_view key) { return u64(member(object, key)); }

// Numbers the writer writes as doubles; null is how a NaN was written.
double number(const Field& f) {
  if (f.value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!f.value.is_number()) wrong_type(f.pointer, f.value, "a number");
  return f.value.get<double>();
}
double number(const Field& object, std::string_view key) { return number(member(object, key)); }

const std::string& text(const Field& f) {
  if (!f.value.is_string()) wrong_type(f.pointer, f.value, "a string");
  return f.value.get_ref<const std::string&>();
}
const std::string& text(const Field& object, std::string_view key) {
  return text(member(object, key));
}

bool boolean(const Field& object, std::string_view key) {
  const Field f = member(object, key);
  if (!f.value.is_boolean()) wrong_type(f.pointer, f.value, "true or false");
  return f.value.get<bool>();
}

std::vector<std::string> strings(const Field& f) {
  if (!f.value.is_array()) wrong_type(f.pointer, f.value, "an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < f.value.size(); ++i) {
    out.push_back(text(Field{f.value[i], json_pointer_child(f.pointer, i)}));
  }
  return out;
}

// A seed: decimal text (schema 2) or a JSON number (schema 1).
std::uint64_t seed(const Field& f) {
  if (f.value.is_number_unsigned()) return f.value.get<std::uint64_t>();
  if (f.value.is_string()) {
    const auto value = detail::json::parse_decimal(f.value.get_ref<const std::string&>());
    if (value && *value <= std::numeric_limits<std::uint64_t>::max()) {
      return static_cast<std::uint64_t>(*value);
    }
  }
  fail(f.pointer, fmt::format("must be a seed: decimal digits (\"42\") or a whole number, not {}",
                              f.value.is_string() ? f.value.dump() : json_kind(f.value)));
}

LatencyHistogram::Uint128 decimal(const Field& f) {
  if (f.value.is_string()) {
    if (const auto value = detail::json::parse_decimal(f.value.get_ref<const std::string&>())) {
      return *value;
    }
  }
  fail(f.pointer, fmt::format("must be decimal digits in a string (up to 2^128), not {}",
                              f.value.is_string() ? f.value.dump() : json_kind(f.value)));
}

Status status(const Field& object) {
  const Field f = member(object, "status");
  const std::string& s = text(f);
  for (const Status st : {Status::kOk, Status::kFailed, Status::kInterrupted, Status::kSkipped,
                          Status::kNoMeasurement}) {
    if (s == to_string(st)) return st;
  }
  fail(f.pointer, fmt::format("\"{}\" is not a status; use ok, failed, interrupted, skipped or {}",
                              s, to_string(Status::kNoMeasurement)));
}

std::size_t size_of(const Field& f) {
  const std::uint64_t value = u64(f);
  if (value > std::numeric_limits<std::size_t>::max()) fail(f.pointer, "is too large");
  return static_cast<std::size_t>(value);
}

std::map<std::string, std::string> string_map(const Field& f) {
  std::map<std::string, std::string> out;
  each_member(f, [&](const std::string& key, const Field& value) { out[key] = text(value); });
  return out;
}

}  // namespace iobench::detail::json_read
