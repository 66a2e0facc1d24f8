#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/time_series.hpp>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace iobench::detail {

/// Sparse IntervalHistogram buckets: (index, count), ascending, counts > 0.
using SparseBuckets = std::vector<std::pair<std::uint16_t, std::uint64_t>>;

/// `a` and `b` added bucket by bucket.
[[nodiscard]] SparseBuckets merge_buckets(const SparseBuckets& a, const SparseBuckets& b);

/// A point's latency figures from the latencies in `buckets` (as many as their counts add up
/// to: its ops, or with latency sampling only the sampled ones), summing to `sum_ns`, the largest
/// `max_ns`: exact mean and max; each percentile its nearest-rank bucket's midpoint, clamped to
/// the max (within 3.1 %, IntervalHistogram). All 0 when `buckets` is empty.
[[nodiscard]] SeriesLatency series_figures(SeriesHistogram::Uint128 sum_ns, std::uint64_t max_ns,
                                           const SparseBuckets& buckets);

/// The runner's side of a phase's time series: takes the workers' finished intervals
/// (IntervalStats, in any order across workers), keeps per point and worker the exact sums and a
/// sparse latency histogram, and builds the TimeSeries. Bounded: past `cap` points (fewer with
/// many workers: kSeriesCellCap / workers, at least kSeriesMinPoints) adjacent points merge
/// pairwise (the merge factor doubles), so memory depends on the cap and the workers, never on
/// the op count or the run's length. Not thread-safe: the runner's thread only.
///
/// Time. A phase runs as one or more groups of workers (serial phases: one each); a group has a
/// warm-up part (if any) and a measured part, each on its own interval grid from its start.
/// Points' start_ns place the groups one after the other, each taking the time from its release
/// to its last worker's end.
class SeriesRecorder {
 public:
  SeriesRecorder(std::uint64_t interval_ns, std::size_t workers, std::size_t cap = kSeriesPointCap);

  /// Workers [first, first + count) start; `warmup_ns` is their planned warm-up (0: none).
  void begin_group(std::size_t first, std::size_t count, std::uint64_t warmup_ns);
  /// Adds one interval of `worker` (of the current group); `op_points`, when not empty, splits
  /// its ops by OpId (PhaseSpec::per_op_series; measured intervals only): kept per point, summed
  /// over the workers (memory: points x op kinds), merged as the points merge.
  void add(std::size_t worker, const IntervalStats& interval,
           std::span<const SeriesOpPoint> op_points = {});
  /// Adds the devices' activity (one entry per device, always the same devices in the same
  /// order) over interval `index` of the current group's warm-up (`warmup`) or measurement.
  void add_devices(bool warmup, std::uint64_t index, const std::vector<SeriesDevicePoint>& devices);
  /// The current group ended: its measurement began `measure_offset_ns` after its release (its
  /// warm-up's real length; UINT64_MAX: it never began) and its last worker ended `length_ns`
  /// after the release.
  void end_group(std::uint64_t measure_offset_ns, std::uint64_t length_ns);

  /// The series so far (call after the last end_group()).
  [[nodiscard]] TimeSeries build() const;
  /// p99 latency (ns) of the current group's newest complete point, all workers merged: the
  /// point before the newest of its measured part (or, before any point there, of its warm-up),
  /// as the newest may still be filling. nullopt while there is none. For the live display.
  [[nodiscard]] std::optional<std::uint64_t> latest_p99_ns() const;
  /// The figures of the point latest_p99_ns() is of: over all workers, and per worker of the
  /// current group (by index in the group; nullopt for one with no op in it). nullopt while
  /// there is no such point. For the live display.
  struct LatestFigures {
    SeriesLatency total;
    std::vector<std::optional<SeriesLatency>> workers;
  };
  [[nodiscard]] std::optional<LatestFigures> latest_figures() const;
  /// Requested intervals per point now.
  [[nodiscard]] std::uint64_t merge_factor() const noexcept { return factor_; }

 private:
  __extension__ typedef unsigned __int128 Uint128;
  struct Cell {
    std::uint64_t bytes = 0;
    std::uint64_t ops = 0;
    std::uint64_t errors = 0;
    Uint128 latency_sum = 0;
    std::uint64_t latency_max = 0;
    SparseBuckets buckets;
    void merge(const Cell& other);
  };
  struct Segment {
    std::size_t first_worker = 0;
    std::size_t workers = 0;
    bool warmup = false;
    std::uint64_t last_index = UINT64_MAX;  // warm-up: ops past its planned end count in its last
    std::uint64_t origin_ns = 0;            // phase time of the part's start
    std::uint64_t length_ns = 0;
    bool closed = false;
  };
  using Key = std::pair<std::size_t, std::uint64_t>;  // segment, point within it

  [[nodiscard]] std::size_t point_count() const;
  /// True while the points exceed the cap (never below one per part) and may still merge.
  [[nodiscard]] bool over_cap() const;
  [[nodiscard]] std::uint64_t keys_in(std::size_t segment) const;  // highest point + 1
  void count_gaps();
  void merge_round();
  [[nodiscard]] static SeriesLatency figures(const Cell& cell);
  // The devices of the points [from, to) of `segment`, added up.
  [[nodiscard]] std::vector<SeriesDevicePoint> devices_between(std::size_t segment,
                                                               std::uint64_t from,
                                                               std::uint64_t to) const;

  std::uint64_t interval_ns_;
  std::size_t workers_;
  std::size_t cap_;
  std::uint64_t factor_ = 1;
  std::vector<Segment> segments_;
  std::size_t warmup_segment_ = SIZE_MAX;   // of the current group
  std::size_t measure_segment_ = SIZE_MAX;  // of the current group
  std::uint64_t group_offset_ns_ = 0;       // phase time of the current group's release
  std::map<Key, std::vector<Cell>> points_;
  // Device figures, keyed as points_ (at most one entry per point: bounded alike).
  std::map<Key, std::vector<SeriesDevicePoint>> devices_;
  // Per-op figures, keyed as points_ and summed over the workers (at most one entry per point).
  std::map<Key, std::vector<SeriesOpPoint>> op_points_;
  std::size_t closed_gaps_ = 0;  // points of closed parts without any op
};

}  // namespace iobench::detail
