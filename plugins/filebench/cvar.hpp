#pragma once

/// The draws of filebench's custom variables (CvarDef, wml_model.hpp: its cvars/ libraries
/// uniform, normal, exponential, erlang, lognormal, triangular, weibull and gamma) from iobench's
/// seeded generator, and their means and variances.

#include <cstdint>
#include <optional>
#include <string_view>

#include "plugins/filebench/gamma.hpp"
#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// The type filebench calls `name` ("cvar-uniform", or without the prefix: "uniform"), or
/// nullopt.
[[nodiscard]] std::optional<CvarDef::Type> cvar_type_of(std::string_view name) noexcept;
/// filebench's name of `type` ("cvar-uniform"...).
[[nodiscard]] const char* cvar_type_name(CvarDef::Type type) noexcept;

/// The mean of `c`'s draws before rounding, clamping and truncation (the distribution's own).
[[nodiscard]] double cvar_mean(const CvarDef& c) noexcept;
/// The variance of `c`'s draws before rounding, clamping and truncation.
[[nodiscard]] double cvar_variance(const CvarDef& c) noexcept;

/// One draw of `c` as a double, as filebench's cvar_next_value: uniform lower + U (upper -
/// lower); normal mean + sigma N; exponential -mean ln U; erlang -rate ln(U1...Uk) / k (k =
/// shape); lognormal exp(scale + shape N); triangular by the inverse of its distribution
/// function; weibull scale (-ln U)^(1/shape); gamma Gamma(gamma, mean / gamma).
[[nodiscard]] double draw_cvar_value(const CvarDef& c, Rng& rng) noexcept;

/// One draw of `c` as bytes, as filebench's get_cvar_value and avd_get_int: the value, with
/// round, is first truncated to a whole number and set to the nearer multiple of round (the
/// lower one on a tie), then raised to min or lowered to max, then truncated to an integer; a
/// value below 0 (or NaN) is 0 and one above 2^44 (kMaxSizeBytes) is 2^44.
[[nodiscard]] std::uint64_t draw_cvar(const CvarDef& c, Rng& rng) noexcept;

}  // namespace iobench::plugins::filebench
