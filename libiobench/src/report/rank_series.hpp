#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/time_series.hpp>
#include <string>
#include <vector>

namespace iobench::detail {

/// One rank's time series of a phase, placed among the ranks'.
struct RankSeries {
  const TimeSeries* series = nullptr;
  std::size_t worker_offset = 0;  ///< index of its first worker among all ranks' workers
  std::uint64_t shift_ns = 0;     ///< its phase's start after the earliest rank's, ns
  /// Whether its points' devices go into the result: one rank per host, since each rank's
  /// /proc/diskstats deltas already hold every rank's I/O on that host.
  bool devices = false;
  std::string device_prefix;  ///< put before its devices' names ("HOST:" with several hosts)
};

/// A phase's time series over ranks. Each rank's series is first brought to the coarsest
/// resolution among them (merged_intervals: its points merged in groups from each run's start);
/// then, within each run of points (the warm-up or the measurement of one group of workers:
/// serial phases run theirs one after another; runs matched by their order), point k of
/// every rank that has one becomes point k of the result: bytes, ops and errors summed,
/// latency from the merged histograms (SeriesHistogram: the percentiles of the union of the
/// ranks' ops, as one rank's are computed), workers appended rank by rank (renumbered by
/// worker_offset), the devices of the ranks with `devices` set appended with their prefix (a
/// device's counts in a point merged for resolution are the sum of its merged points'). A point
/// starts at the earliest of its ranks' starts (shift_ns applied) and lasts until the next point's
/// start (the last until the latest end), so the points stay adjacent. The ranks' grids start at
/// their own measurement starts, which the barrier keeps within the phase's start skew of each
/// other. A worker's figures in a point that was merged for resolution keep its exact mean and max;
/// its percentiles are then the largest of the merged points' (an upper bound: per-worker
/// histograms are not kept).
[[nodiscard]] TimeSeries merge_rank_series(const std::vector<RankSeries>& ranks);

}  // namespace iobench::detail
