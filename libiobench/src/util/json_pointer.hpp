#pragma once

// JSON pointers (RFC 6901) and value kinds for the messages of every JSON reader (suite files,
// result documents): "/steps/0/params/bs: must be a string, not an array".

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace iobench::detail {

/// `pointer` extended by one reference token `key`, escaped by nlohmann's json_pointer ('~' as
/// "~0", '/' as "~1").
[[nodiscard]] inline std::string json_pointer_child(const std::string& pointer,
                                                    std::string_view key) {
  return pointer + (nlohmann::json::json_pointer() / std::string(key)).to_string();
}
/// `pointer` extended by array index `index`.
[[nodiscard]] inline std::string json_pointer_child(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

/// What a JSON value is, for "must be X, not KIND" messages: "null", "an object", "an array",
/// "a string", "a boolean", "a fractional number", "a negative integer", "an integer" (0 or
/// more: nlohmann parses a whole number without '-' as unsigned).
template <typename BasicJson>
[[nodiscard]] const char* json_kind(const BasicJson& j) {
  switch (j.type()) {
    case BasicJson::value_t::null:
      return "null";
    case BasicJson::value_t::object:
      return "an object";
    case BasicJson::value_t::array:
      return "an array";
    case BasicJson::value_t::string:
      return "a string";
    case BasicJson::value_t::boolean:
      return "a boolean";
    case BasicJson::value_t::number_float:
      return "a fractional number";
    case BasicJson::value_t::number_integer:
      return "a negative integer";
    case BasicJson::value_t::number_unsigned:
      return "an integer";
    default:
      return "something else";
  }
}

}  // namespace iobench::detail
