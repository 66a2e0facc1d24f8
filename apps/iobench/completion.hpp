#pragma once

#include <iobench/registry.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::cli {

/// One command-line option as completion offers it: "--dir" (and "-d"), and whether it takes a
/// value (then the word after it is that value, completed by what the option names).
struct CompletionOption {
  std::string long_name;   ///< without dashes, e.g. "dir"
  std::string short_name;  ///< one letter or empty
  bool takes_value = false;
};

/// The completion script for `shell` ("bash" or "zsh"), generated from `registry` (workloads,
/// their params and enum values, engines), the built-in suites, the result formats of --from and
/// `options`: the bash script defines _iobench and registers it with `complete`; the zsh script
/// is an autoloadable #compdef function. Throws ConfigError naming `shell` and the valid names.
[[nodiscard]] std::string completion_script(std::string_view shell, const Registry& registry,
                                            const std::vector<CompletionOption>& options);

}  // namespace iobench::cli
