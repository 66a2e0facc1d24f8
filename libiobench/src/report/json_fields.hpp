#pragma once

// Typed access to a result document's JSON for the result reader (json_reader.cpp,
// json_suite_record.cpp): each accessor checks the type and throws ResultFormatError naming the
// field's JSON pointer and what it must be.

#include <cstddef>
#include <cstdint>
#include <iobench/latency_histogram.hpp>
#include <iobench/result.hpp>
#include <iobench/result_json.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json_pointer.hpp"

namespace iobench::detail::json_read {

using Json = nlohmann::ordered_json;

/// A value of the document and its JSON pointer ("" is the root).
struct Field {
  const Json& value;
  std::string pointer;
};

/// Throws ResultFormatError(pointer, what).
[[noreturn]] void fail(const std::string& pointer, const std::string& what);
/// Throws "POINTER: must be WANTED, not KIND".
[[noreturn]] void wrong_type(const std::string& pointer, const Json& j, std::string_view wanted);

/// Member `key` of the object `object`, which must be there.
[[nodiscard]] Field member(const Field& object, std::string_view key);
/// Member `key` of the object `object` if it is there.
[[nodiscard]] std::optional<Field> optional_member(const Field& object, std::string_view key);

[[nodiscard]] std::uint64_t u64(const Field& f);
[[nodiscard]] std::uint64_t u64(const Field& object, std::string_view key);
/// A number the writer wrote as a double; null (how a NaN was written) is NaN.
[[nodiscard]] double number(const Field& f);
[[nodiscard]] double number(const Field& object, std::string_view key);
[[nodiscard]] const std::string& text(const Field& f);
[[nodiscard]] const std::string& text(const Field& object, std::string_view key);
[[nodiscard]] bool boolean(const Field& object, std::string_view key);
[[nodiscard]] std::vector<std::string> strings(const Field& f);
/// A seed: decimal text (schema 2) or a JSON number (schema 1).
[[nodiscard]] std::uint64_t seed(const Field& f);
/// Decimal digits in a string, up to 2^128 (latency sums).
[[nodiscard]] LatencyHistogram::Uint128 decimal(const Field& f);
/// The "status" member of `object`.
[[nodiscard]] Status status(const Field& object);
[[nodiscard]] std::size_t size_of(const Field& f);
/// An object of strings.
[[nodiscard]] std::map<std::string, std::string> string_map(const Field& f);

/// Calls fn(Field) for each element of the array `f`.
template <typename Fn>
void each(const Field& f, Fn&& fn) {
  if (!f.value.is_array()) wrong_type(f.pointer, f.value, "an array");
  for (std::size_t i = 0; i < f.value.size(); ++i) {
    fn(Field{f.value[i], json_pointer_child(f.pointer, i)});
  }
}

/// Calls fn(key, Field) for each member of the object `f`, in document order.
template <typename Fn>
void each_member(const Field& f, Fn&& fn) {
  if (!f.value.is_object()) wrong_type(f.pointer, f.value, "an object");
  for (auto it = f.value.begin(); it != f.value.end(); ++it) {
    fn(it.key(), Field{it.value(), json_pointer_child(f.pointer, it.key())});
  }
}

/// The document's "suite" record (json_suite_record.cpp); `results`: the document's step count,
/// which the record's result indices must stay below.
[[nodiscard]] SuiteRecord suite_record(const Field& f, std::size_t results);

}  // namespace iobench::detail::json_read
