#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/runner.hpp>

namespace iobench::detail {

/// What the runner's loop knows of a group of workers (all of a phase, or one of a serial phase)
/// at one moment, for a ProgressSnapshot. Times are monotonic ns; 0: not yet.
struct GroupProgress {
  ProgressState state = ProgressState::kSetUp;
  std::uint64_t now_ns = 0;
  std::uint64_t set_up_start_ns = 0;
  std::uint64_t released_ns = 0;       ///< barrier release: the timed loop (warm-up) began
  std::uint64_t measure_start_ns = 0;  ///< the measurement began
  std::uint64_t bytes = 0;             ///< live sums over the group's workers
  std::uint64_t ops = 0;
  std::uint64_t ops_at_measure_start = 0;
  std::uint64_t planned_ops = 0;  ///< over the group; 0 unless every worker declared its plan
  std::uint64_t planned_bytes = 0;
  std::size_t first = 0;  ///< the group's workers: [first, first + count) of `workers`
  std::size_t count = 1;
  std::size_t workers = 1;
  std::uint64_t time_limit_ns = 0;  ///< 0: none
  std::uint64_t warmup_ns = 0;
  std::uint64_t ops_limit = 0;  ///< per worker, measured ops; 0: none
};

/// Fills `out`'s state, warming_up, elapsed_ns, bytes, ops, planned_*, done_fraction and
/// phase_left_ns from `group` (see ProgressSnapshot for their meaning). Pure: no clock read.
void fill_progress(const GroupProgress& group, ProgressSnapshot& out);

}  // namespace iobench::detail
