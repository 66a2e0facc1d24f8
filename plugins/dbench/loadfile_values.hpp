#pragma once

/// Pure parsers for the values inside loadfile tokens: integers as dbench reads them, timestamps,
/// statuses and value modifier expressions. Each returns std::nullopt (or an error text) instead of
/// throwing, so the loadfile parser can report the token's position.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

/// An integer as C's strtol(text, 0) reads it, but only if the whole token is consumed: optional
/// '-', then `0x`/`0X` hex, a leading-0 octal, or decimal. nullopt on junk or overflow.
[[nodiscard]] std::optional<std::int64_t> parse_loadfile_integer(std::string_view text) noexcept;

/// A leading timestamp in seconds (strtod-style decimal), finite and >= 0, as nanoseconds.
[[nodiscard]] std::optional<std::int64_t> parse_timestamp_ns(std::string_view text) noexcept;

/// True if `text` has the shape of a status token: NT_STATUS_*, 0x*, SUCCESS*, ERROR* or `*`.
[[nodiscard]] bool looks_like_status(std::string_view text) noexcept;

/// The expectation a status token encodes (dbench.md §1.3): NT_STATUS_OK, SUCCESS and 0x values
/// equal to 0 expect success; other NT_STATUS_* names, other 0x values and ERROR expect failure;
/// `*` is not checked. nullopt for anything else (including malformed 0x digits).
[[nodiscard]] std::optional<Expect> parse_status(std::string_view text) noexcept;

/// A parsed modifier expression: the base and its qualifier steps.
struct ParsedExpr {
  ValueExpr::Base base = ValueExpr::Base::kRandom;
  std::vector<ExprStep> steps;
};

/// Parses a value modifier expression token (`*...` or `+...`, see parse_loadfile()). On error
/// returns nullopt and sets `error` to what was expected.
[[nodiscard]] std::optional<ParsedExpr> parse_modifier_expression(std::string_view text,
                                                                  std::string& error);

}  // namespace iobench::plugins::dbench
