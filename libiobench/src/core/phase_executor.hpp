#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iobench/result.hpp>
#include <iobench/runner.hpp>
#include <iobench/workload.hpp>
#include <span>
#include <stop_token>
#include <string>

#include "core/run_stop.hpp"
#include "core/step_sync.hpp"

namespace iobench::detail {

/// Everything needed to run one phase of one workload.
struct PhaseRequest {
  Workload& workload;
  std::size_t phase_index;
  const PhaseSpec& spec;
  std::span<const Target> targets;
  const Engine& engine;
  std::uint64_t step_seed;
  std::uint64_t ops_limit;              ///< per worker; 0 none
  std::chrono::nanoseconds time_limit;  ///< 0 none
  std::chrono::nanoseconds warmup;      ///< 0 none
  std::chrono::nanoseconds progress_interval;
  /// Time-series interval (kMinSeriesInterval..kMaxSeriesInterval; others are clamped).
  std::chrono::nanoseconds series_interval;
  /// Block devices (kernel names) whose /proc/diskstats figures the series keeps per interval
  /// (SeriesPoint::devices; explain::PhaseObserver::devices()); empty: none.
  std::span<const std::string> series_devices = {};
  /// Called every progress_interval and at each state change with the phase's own fields of a
  /// ProgressSnapshot filled in: state, state_changed, elapsed_ns, bytes, ops, warming_up,
  /// planned_*, done_fraction, phase_left_ns, interval_p99_ns (empty: no progress).
  std::function<void(ProgressSnapshot&)> on_progress;
  /// This run's own stop (RunOptions::stop_token), besides the process-wide request_stop().
  std::stop_token stop;
  /// The step's checkpoints across ranks (null, or inactive: alone): the barrier after the
  /// workers' set-up becomes one, a local worker failure raises a stop to the other ranks, and
  /// a stop another rank raised ends this phase as failed.
  StepSync* sync = nullptr;
  /// Stonewalling (RunOptions::stonewall): the first worker done ends the phase for all (and
  /// across ranks tells the others so).
  bool stonewall = false;
  /// IOR's wear-out (RunOptions::wear_out): at the time limit every worker (of every rank) goes
  /// on until it has done as many measured ops as the most any had done then.
  bool wear_out = false;
};

/// When the phase measured, for the aggregation across ranks (CLOCK_MONOTONIC ns).
struct PhaseWindow {
  /// The first measured group's measurement start (in a phase its workers time by their ops,
  /// WorkerContext::time_phase_by_ops(), the earliest first op's start); 0: none.
  std::uint64_t start_ns = 0;
  /// The first measured group's measurement start as the runner took it, whatever timed the
  /// phase: the origin of its time series' measured points (0: none measured).
  std::uint64_t measure_start_ns = 0;
  /// Wear-out: the measured ops every worker was to reach (the most of any worker, of any rank,
  /// at the time limit), the largest over the groups; 0: no wear-out happened.
  std::uint64_t wear_out_ops = 0;
  /// Set when another rank's problem ended this phase (its failure is then theirs, not ours).
  bool stopped_by_peer = false;
};

/// Runs all workers of a phase (threads or forked processes), started together at a barrier,
/// ending at their own pace, the time limit, or a stop request; returns per-worker and merged
/// results. Worker failures are reported in the result (status kFailed), never thrown.
/// `window`, if given, receives when it measured.
[[nodiscard]] PhaseResult execute_phase(const PhaseRequest& request, PhaseWindow* window = nullptr);

/// The seed of worker `worker` in phase `phase`: a SplitMix64 mix of the step seed, so workers
/// and phases differ yet a run with the same step seed repeats exactly.
[[nodiscard]] std::uint64_t worker_seed(std::uint64_t step_seed, std::size_t phase,
                                        std::size_t worker) noexcept;

}  // namespace iobench::detail
