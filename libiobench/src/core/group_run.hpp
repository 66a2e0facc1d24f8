#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/metrics.hpp>
#include <iobench/steady_state.hpp>
#include <optional>
#include <string>

#include "core/phase_executor.hpp"
#include "core/phase_memory.hpp"
#include "core/series_recorder.hpp"
#include "metrics/cpu_reading.hpp"

namespace iobench::detail {

/// What the runner saw of one group of workers (all of a phase, or one of a serial phase).
struct GroupOutcome {
  /// The measurement began (the barrier released the workers, or their warm-up ended, before
  /// the phase ended): the fields below describe its window.
  bool measured = false;
  std::uint64_t released_ns = 0;  ///< barrier release (0: stopped before it)
  std::uint64_t measure_start_ns = 0;
  CpuReading runner_start;          ///< the runner's own thread, right after measure_start_ns
  CpuReading runner_end;            ///< ... after the last worker's run() ended
  std::uint64_t runner_end_ns = 0;  ///< clock right after runner_end
  SystemCpuSample system_begin;
  SystemCpuSample system_end;
  bool interrupted = false;
  /// Another rank's problem that ended this group (empty: none): at the barrier, or a stop it
  /// raised while the group ran.
  std::string peer_problem;
  /// The wear-out's target (measured ops per worker); 0: none.
  std::uint64_t wear_out_ops = 0;
  /// PhaseSpec::steady_state's outcome for this group (nullopt: not asked for, or the
  /// measurement never began).
  std::optional<SteadyStateResult> steady;
};

/// Starts workers [first, first + count) and drives them until they all finish. The measured
/// window runs from the measure start (barrier release, or the end of the warm-up) until the
/// last worker's run() ends; the runner reads its own CPU time and /proc/stat at both ends.
/// Results are left in `memory`, the group's time series in `series`. Worker failures are left
/// in their slots, never thrown; a coordinator's errors (across ranks) may be.
[[nodiscard]] GroupOutcome run_group(const PhaseRequest& request, const PhaseMemory& memory,
                                     std::size_t first, std::size_t count, SeriesRecorder& series);

}  // namespace iobench::detail
