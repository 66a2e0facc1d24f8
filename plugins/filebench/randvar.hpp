#pragma once

/// The draws of filebench's random variables (RandVarDef, wml_model.hpp) from iobench's seeded
/// generator.

#include <cstdint>

#include "plugins/filebench/gamma.hpp"
#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// The mean of `v`'s draws before rounding (tabular without mean=: the table's mean).
[[nodiscard]] double randvar_mean(const RandVarDef& v) noexcept;

/// One draw of `v` from `rng`, as filebench's rand_uniform_get / rand_gamma_get /
/// rand_table_get followed by avd_get_int: uniform min + U x 2 (mean - min) (uniform on
/// [min, 2 mean - min)); gamma min + Gamma(shape, scale (mean - min) / shape); tabular a row by
/// its percent, a uniform point in it, mapped linearly so that the table's lowest value goes to
/// min and its mean to mean. Then rounded to the nearest multiple of round (if not 0), truncated
/// to an integer and capped at 2^44 (kMaxSizeBytes).
[[nodiscard]] std::uint64_t draw_randvar(const RandVarDef& v, Rng& rng) noexcept;

}  // namespace iobench::plugins::filebench
