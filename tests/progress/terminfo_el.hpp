#pragma once

#include <string>

namespace iobench::test {

/// The "el" (clear to end of line) string terminfo has for terminal type `term`; throws
/// std::runtime_error if it has none.
[[nodiscard]] std::string terminfo_el(const std::string& term);

}  // namespace iobench::test
