#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/runner.hpp>
#include <optional>

#include "core/phase_executor.hpp"
#include "core/phase_memory.hpp"
#include "core/progress_estimate.hpp"
#include "core/series_recorder.hpp"

namespace iobench::detail {

/// The progress of one group of workers (all of a phase, or one of a serial phase), reported
/// through PhaseRequest::on_progress at each state change and every progress interval, from
/// the set-up on. A snapshot's totals are the sum of the per-worker counters it carries, each
/// read once, so they always agree while the workers run on. Without on_progress, show() does
/// nothing.
class GroupReporter {
 public:
  GroupReporter(const PhaseRequest& request, const PhaseMemory& memory, std::size_t first,
                std::size_t count, const SeriesRecorder& series);

  /// The set-up begins now (the workers were started): its clock and the first interval.
  void begin_set_up();
  /// The barrier released the workers at `ns` (monotonic): the timed loop (warm-up) began.
  void released(std::uint64_t ns) noexcept { progress_.released_ns = ns; }
  /// The measurement began at `ns` (monotonic); takes the group's ops so far as its baseline.
  void measurement_began(std::uint64_t ns) noexcept;
  /// Reports `state` at once if it changed (or nothing was reported yet), and the interval's
  /// snapshot when due.
  void show(ProgressState state);
  /// The timed loop's state: kWarmUp, or kFsync once every worker still running announced its
  /// closing fsync, else kMeasuring.
  [[nodiscard]] ProgressState running_state() const noexcept;
  /// When the next interval's snapshot is due (monotonic ns; UINT64_MAX: never).
  [[nodiscard]] std::uint64_t next_progress_ns() const noexcept { return next_progress_ns_; }

 private:
  void report(bool changed);

  const PhaseRequest& request_;
  const PhaseMemory& memory_;
  const SeriesRecorder& series_;
  GroupProgress progress_;
  std::uint64_t interval_ns_;
  std::uint64_t next_progress_ns_ = UINT64_MAX;
  /// The display keeps its p99 field from frame to frame: a frame that finds no complete point
  /// (a new part just began) shows the last one known.
  std::optional<std::uint64_t> last_p99_;
};

}  // namespace iobench::detail
