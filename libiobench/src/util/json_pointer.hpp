#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace iobench::detail {

/// `pointer` extended by one RFC 6901 reference token: "/" then `key` with '~' written "~0" and
/// '/' written "~1". Used by every JSON reader's error messages (suite files, result documents).
[[nodiscard]] inline std::string json_pointer_child(const std::string& pointer,
                                                    std::string_view key) {
  std::string out = pointer + "/";
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}
/// `pointer` extended by array index `index`.
[[nodiscard]] inline std::string json_pointer_child(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

}  // namespace iobench::detail
