#pragma once

// The counters `iobench compare` lists below a phase's metrics (CounterRow, README "Counters").

#include <iobench/compare.hpp>
#include <iobench/result.hpp>
#include <span>
#include <vector>

namespace iobench::detail {

/// The counters of one aligned phase that tell the inputs apart, by CounterRow's rule, in the
/// order the inputs name them (the baseline's first). `results[i]`: input i's ok results of the
/// phase in run order; `failed[i]`: its failed results (their failure counters fill
/// CounterValues::failed_values); `measured[i]`: whether input i has ok results (all three the
/// same size).
[[nodiscard]] std::vector<CounterRow> counter_rows(
    std::span<const std::vector<const PhaseResult*>> results,
    std::span<const std::vector<const PhaseResult*>> failed, const std::vector<bool>& measured);

}  // namespace iobench::detail
