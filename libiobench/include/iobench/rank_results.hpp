#pragma once

/// One step run on many ranks (mpirun): each rank's result, and the aggregate rank 0 reports.

#include <cstdint>
#include <iobench/result.hpp>
#include <iobench/statistics.hpp>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// When one rank measured one phase, on rank 0's CLOCK_MONOTONIC (ns): from its measurement
/// start to its last worker's end (in a phase its workers time by their ops,
/// WorkerContext::time_phase_by_ops(), from their first op's start to their last op's end).
/// Both 0: the rank measured nothing in that phase (or, timed by its ops, did no op).
struct RankWindow {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  /// When its first worker ended (IOR's stonewall), on the same clock; 0 with start_ns.
  std::int64_t first_end_ns = 0;
  /// The runner's measurement start on the same clock, however the phase was timed: where the
  /// rank's time series (whose points count from the phase's start) goes in the merged one.
  /// Equal to start_ns unless the phase was timed by its ops; 0 (and a rank text without it)
  /// stands for start_ns.
  std::int64_t measure_start_ns = 0;
};

/// One rank's share of a step, as the rank sends it to rank 0.
struct RankStep {
  int rank = 0;
  Environment environment;              ///< the rank's own (hostname = its host)
  StepResult step;                      ///< what the rank measured, alone
  std::vector<RankWindow> windows;      ///< one per step.phases entry
  std::uint64_t clock_residual_ns = 0;  ///< Coordinator::clock_residual_ns() of the rank
};

/// Spread of one figure over the ranks (population statistics, n = ranks).
struct RankSpread {
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;
  /// Jain's fairness index (jain_fairness, statistics.hpp): 1 when every rank got the same, 1/n
  /// when one rank got everything; 1 when all are 0.
  double jain = 1;
};

/// One phase over the ranks.
struct RankedPhase {
  std::string name;
  /// Latest end minus earliest start on rank 0's clock (the aggregate's wall_ns).
  std::uint64_t wall_ns = 0;
  /// Latest minus earliest start over the ranks' windows: how far apart they began (in a phase
  /// timed by its ops, WorkerContext::time_phase_by_ops(), their first ops' starts).
  std::uint64_t start_skew_ns = 0;
  /// The first worker's end over all ranks, from the earliest start (the aggregate's
  /// stonewall_ns: with --stonewall, when every rank was told to stop).
  std::uint64_t stonewall_ns = 0;
  RankSpread throughput_bytes_per_s;  ///< each rank's bytes over its own wall time
  RankSpread iops;                    ///< each rank's ops over its own wall time
  RankSpread cpu_ns;                  ///< each rank's process CPU (user + system)
};

/// A step over all ranks: their results, the aggregate, the spread.
struct RankedStep {
  std::vector<RankStep> ranks;  ///< indexed by rank
  /// As one StepResult, so every reporter and family formatter prints it as one big run: workers
  /// of all ranks (renumbered rank by rank, targets appended), op stats merged (exact
  /// histograms: percentiles over all ops of all ranks), counters, CPU and bytes summed, wall
  /// time from the earliest start to the latest end, stonewall at the first worker's end, the
  /// worst status (message naming the rank), rank 0's attributes but per-target ones
  /// ("file.0": KEY.TARGET_INDEX) from every rank, renumbered like the targets. Each phase's
  /// time series is the ranks' merged point by point (at the coarsest resolution among them;
  /// sums, percentiles of the union from the points' histograms, workers appended; see
  /// detail::merge_rank_series in the library's source for the alignment). Each phase's
  /// explanation (issue 29) is the ranks' merged view where every rank carries one: chains in
  /// target order, a device the ranks of one host share counted once with all their targets
  /// (shared_device), "HOST:NAME" devices across hosts (detail::merge_rank_explanations).
  StepResult aggregate;
  std::vector<RankedPhase> phases;      ///< like aggregate.phases
  std::uint64_t clock_residual_ns = 0;  ///< the largest of the ranks'
};

/// Builds the aggregate of `ranks` (indexed by rank, at least one). Phases are matched by
/// position; a rank with fewer phases (it failed earlier) adds nothing to the later ones.
[[nodiscard]] RankedStep aggregate_ranks(std::vector<RankStep> ranks);

/// A rank's share as text (JSON) to send to rank 0, and back: its result document, windows and
/// the time series' point histograms (SeriesHistogram), which result documents leave out.
/// from_rank_text throws ResultFormatError for text that to_rank_text did not write.
[[nodiscard]] std::string to_rank_text(const RankStep& rank);
[[nodiscard]] RankStep from_rank_text(std::string_view text);

/// The text table rank 0 prints after a step's own report: hosts, clock residual, and per phase
/// the per-rank rows (MiB/s, IOPS, CPU) with min/max/mean/stddev and Jain's fairness index.
void write_rank_table(const RankedStep& step, std::ostream& out);

/// `document` (a result document's JSON text) with a top-level key "ranks" added: size, each
/// rank's host, the clock residual, and per step the spread per phase (per_rank entries with the
/// rank's finding names where it has an explanation) and every rank's own result as a result
/// document (with its own explanation of its own targets). Parsed back by parse_result_json like
/// any document (the key is ignored there). `indent` as in to_json.
[[nodiscard]] std::string add_ranks_to_json(std::string_view document,
                                            std::span<const RankedStep> steps, int indent = 2);

}  // namespace iobench
