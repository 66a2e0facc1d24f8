#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/result.hpp>
#include <string>
#include <string_view>

namespace iobench::plugins::tiotest {

/// The step's param `key` as a boolean (as validated text: true/false, yes/no, on/off, 1/0);
/// `fallback` if absent or unreadable (a result rebuilt from older JSON, say).
[[nodiscard]] bool param_bool(const StepResult& step, std::string_view key, bool fallback);
/// The step's param `key` as a count ("4", "1k"); `fallback` if absent or unreadable.
[[nodiscard]] std::uint64_t param_u64(const StepResult& step, std::string_view key,
                                      std::uint64_t fallback);
/// The step's param `key` as text; `fallback` if absent.
[[nodiscard]] std::string param_text(const StepResult& step, std::string_view key,
                                     std::string_view fallback);
/// The text of attribute `key` (a string attribute as is, numbers printed); empty if absent.
[[nodiscard]] std::string attribute_text(const StepResult& step, std::string_view key);
/// Thread count of a tiotest step: its `threads` param, else the workers of its first phase,
/// else 1.
[[nodiscard]] std::size_t step_threads(const StepResult& step);

}  // namespace iobench::plugins::tiotest
