#pragma once

#include <array>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace iobench {

/// Shortest and longest time-series interval a run may ask for (`--interval`, a suite step's
/// "interval"); the default is kDefaultSeriesInterval.
inline constexpr std::chrono::nanoseconds kMinSeriesInterval = std::chrono::milliseconds(100);
inline constexpr std::chrono::nanoseconds kMaxSeriesInterval = std::chrono::seconds(60);
inline constexpr std::chrono::nanoseconds kDefaultSeriesInterval = std::chrono::seconds(1);
/// Points a phase's series keeps at most: past it adjacent points merge pairwise.
inline constexpr std::size_t kSeriesPointCap = 3600;
/// Points x workers a phase's series keeps at most (each point holds one cell per worker):
/// past kSeriesCellCap / workers points, fewer than kSeriesPointCap from 73 workers on, points
/// merge as past the point cap, down to kSeriesMinPoints (4096 workers keep 64 points): the
/// series' memory is then bounded by the cells, whatever the number of workers.
inline constexpr std::size_t kSeriesCellCap = std::size_t{1} << 18;
inline constexpr std::size_t kSeriesMinPoints = 60;
/// A part's (warm-up's or measurement's) last point shorter than interval_ns / this folds into
/// the point before it: a plotted rate is never over a sliver (a 3 s limit's last 0.1 ms).
inline constexpr std::uint64_t kSeriesFoldDivisor = 2;

/// Latency histogram of one worker's interval, in ns: like LatencyHistogram (log-linear) but
/// with 16 buckets per power of two (a percentile, reported as its bucket's midpoint clamped to
/// the exact max, is within 1/32 = 3.1 % of the true value) so that it stays small (5.4 KiB):
/// a worker keeps a few of them in shared memory. Trivially copyable; no allocation.
class IntervalHistogram {
 public:
  static constexpr unsigned kSubBits = 4;
  static constexpr std::uint64_t kSubBuckets = 1ULL << kSubBits;
  static constexpr unsigned kMaxExponent = 44;
  static constexpr std::size_t kBucketCount = kSubBuckets * (kMaxExponent - kSubBits + 2);

  /// Records one latency (the count is the interval's op count, kept beside it).
  void record(std::uint64_t ns) noexcept {
    sum_ += ns;
    if (ns > max_) max_ = ns;
    ++buckets_[bucket_index(ns)];
  }
  /// Sum of the recorded latencies, ns.
  [[nodiscard]] std::uint64_t sum() const noexcept { return sum_; }
  /// Exact largest recorded latency, ns; 0 when empty.
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  [[nodiscard]] std::uint64_t bucket_count(std::size_t index) const noexcept {
    return buckets_[index];
  }

  /// Bucket of a value (same scheme as LatencyHistogram::bucket_index, fewer sub-buckets).
  [[nodiscard]] static constexpr std::size_t bucket_index(std::uint64_t ns) noexcept {
    constexpr std::uint64_t kTop = (std::uint64_t{2} << kMaxExponent) - 1;
    const std::uint64_t v = ns < kTop ? ns : kTop;
    const unsigned shift = static_cast<unsigned>(std::bit_width(v | kSubBuckets)) - 1 - kSubBits;
    return static_cast<std::size_t>((std::uint64_t{shift} << kSubBits) + (v >> shift));
  }
  /// Smallest value in bucket `index`.
  [[nodiscard]] static constexpr std::uint64_t bucket_lower(std::size_t index) noexcept {
    if (index < kSubBuckets) return index;
    const std::uint64_t shift = index / kSubBuckets - 1;
    return (kSubBuckets + index % kSubBuckets) << shift;
  }
  /// Number of values bucket `index` covers.
  [[nodiscard]] static constexpr std::uint64_t bucket_width(std::size_t index) noexcept {
    return index < kSubBuckets ? 1 : 1ULL << (index / kSubBuckets - 1);
  }

 private:
  std::uint64_t sum_ = 0;
  std::uint64_t max_ = 0;
  std::array<std::uint64_t, kBucketCount> buckets_{};
};

/// What one worker did in one interval (or, after its last op, in the part of it so far): the
/// unit a worker hands to the runner. Trivially copyable, fixed-size (it lives in shared memory
/// that worker processes write).
struct IntervalStats {
  /// Interval number within its part of the phase (warm-up or measurement): the op completion
  /// time minus that part's start, divided by the interval.
  std::uint64_t index = 0;
  std::uint32_t warmup = 0;  ///< 1: recorded during the warm-up
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t errors = 0;
  IntervalHistogram latency;  ///< of the `ops` (with latency sampling, of the sampled ones)
};

/// Latency figures of one time-series point, ns (all 0 when it has no ops). Percentiles come
/// from the interval histograms (IntervalHistogram: within 3.1 %); mean and max are exact.
struct SeriesLatency {
  double mean = 0;
  std::uint64_t max = 0;
  std::uint64_t p50 = 0;
  std::uint64_t p99 = 0;
  std::uint64_t p99_9 = 0;
};

/// A point's latency distribution over all its workers, as the runner recorded it: what merging
/// the points of several ranks takes to give the figures of the union of their ops exactly (the
/// percentiles then come from the merged buckets, as for one rank). Not written to result files:
/// empty in results read back from them.
struct SeriesHistogram {
  __extension__ typedef unsigned __int128 Uint128;
  Uint128 sum_ns = 0;  ///< exact sum of the point's latencies
  /// (IntervalHistogram bucket index, count), ascending by index, counts > 0.
  std::vector<std::pair<std::uint16_t, std::uint64_t>> buckets;
};

/// One worker's share of a time-series point.
struct SeriesWorkerPoint {
  std::size_t index = 0;  ///< WorkerResult::index
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t errors = 0;
  SeriesLatency latency_ns;
};

/// One block device's activity in one time-series point (issue 29): the differences of its
/// /proc/diskstats counters between the runner's readings at the point's interval boundaries
/// (one read of the file per interval, in the runner's thread, a few ms after the boundary).
/// Over a phase's points, a device's figures add up to its counts from the group's release to
/// its last worker's end. The derived figures follow sysstat's iostat over `sampled_ns`.
struct SeriesDevicePoint {
  std::string name;                     ///< kernel name, e.g. "loop0", "vda"
  std::uint64_t sampled_ns = 0;         ///< time between the two readings of /proc/diskstats
  std::uint64_t reads = 0, writes = 0;  ///< requests completed
  std::uint64_t read_bytes = 0, write_bytes = 0;      ///< bytes (512-byte sectors x 512)
  std::uint64_t read_time_ms = 0, write_time_ms = 0;  ///< summed request times, ms
  std::uint64_t io_time_ms = 0;           ///< time the device had a request in flight, ms
  std::uint64_t weighted_io_time_ms = 0;  ///< summed time in flight of every request, ms

  /// io_time over sampled_ns, % (0..100; 0 when sampled_ns is 0).
  [[nodiscard]] double util_percent() const noexcept;
  /// Average queue size (iostat's aqu-sz): weighted_io_time over sampled_ns.
  [[nodiscard]] double avg_queue_size() const noexcept;
  /// Mean read time, ms (r_await; 0 without reads).
  [[nodiscard]] double r_await_ms() const noexcept;
  /// Mean write time, ms (w_await; 0 without writes).
  [[nodiscard]] double w_await_ms() const noexcept;
  /// Adds `other`'s counts (the same device over the next interval).
  void add(const SeriesDevicePoint& other) noexcept;
};

/// One op kind's share of a time-series point (SeriesPoint::op_points, PhaseSpec::per_op_series):
/// the ops of that kind (OpId) the point's workers completed in it. Exact counts: over a phase's
/// measured points they add up to the phase's OpResult of that kind (ops, bytes, errors,
/// latency.count() and the latency sum). No min, max or percentiles: the workers do not keep them
/// per interval and op, so a point's per-op latency is its mean alone.
struct SeriesOpPoint {
  std::uint64_t ops = 0;     ///< completed ops (sampled or not)
  std::uint64_t bytes = 0;   ///< bytes they moved
  std::uint64_t errors = 0;  ///< failed ops
  /// Ops whose latency was recorded (all of them without latency sampling), and their summed
  /// latency, ns: the point's mean latency of this op is latency_sum_ns / latency_samples.
  std::uint64_t latency_samples = 0;
  std::uint64_t latency_sum_ns = 0;
  /// Adds `other`'s counts (the same op over another worker, interval or rank).
  void add(const SeriesOpPoint& other) noexcept {
    ops += other.ops;
    bytes += other.bytes;
    errors += other.errors;
    latency_samples += other.latency_samples;
    latency_sum_ns += other.latency_sum_ns;
  }
  friend bool operator==(const SeriesOpPoint&, const SeriesOpPoint&) = default;
};

/// One point of a phase's time series: what the phase's workers did in [start_ns, start_ns +
/// duration_ns). An op counts in the point in which it completed.
struct SeriesPoint {
  std::uint64_t start_ns = 0;  ///< since the phase's start (its warm-up's, if any)
  /// The series' interval_ns, except a part's last point: what is left of the part, from half
  /// an interval up to 1.5 intervals (a shorter remainder folds into it, kSeriesFoldDivisor).
  std::uint64_t duration_ns = 0;
  bool warmup = false;  ///< inside the warm-up: not part of the phase's totals
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t errors = 0;
  SeriesLatency latency_ns;                ///< over all workers
  std::vector<SeriesWorkerPoint> workers;  ///< the workers running then, by index
  SeriesHistogram histogram;               ///< of latency_ns, for merging (see SeriesHistogram)
  /// The devices of the phase's storage chains (explain::chain_device_names order) over the
  /// point; empty for a target without a block device and in results written before. In a
  /// series merged across ranks: each host's devices once (from one of its ranks), named
  /// "HOST:NAME" where the ranks ran on several hosts.
  std::vector<SeriesDevicePoint> devices;
  /// Per op kind, indexed by OpId (PhaseResult::op_names order): the point's ops split by kind,
  /// adding up to its ops, bytes and errors. Only in phases that ask for it
  /// (PhaseSpec::per_op_series) and only in measured points where an op completed: empty in
  /// warm-up points, in a measured interval with no op (a gap: all zeros), in other phases and
  /// in results written before it existed. Merges with the points (summed), across
  /// workers and ranks.
  std::vector<SeriesOpPoint> op_points;

  /// bytes / duration_ns in bytes per second (0 if the duration is 0).
  [[nodiscard]] double throughput_bytes_per_s() const noexcept;
  /// ops / duration_ns in ops per second (IOPS; 0 if the duration is 0).
  [[nodiscard]] double ops_per_s() const noexcept;
};

/// A phase's time series (PhaseResult::time_series). Over the points with warmup false, bytes
/// and ops add up exactly to the phase's (and per worker to the worker's). Empty (no points)
/// in results read from files written before it existed.
struct TimeSeries {
  std::uint64_t requested_interval_ns = 0;  ///< the interval asked for (--interval)
  std::uint64_t interval_ns = 0;            ///< the kept resolution: requested x merged_intervals
  std::uint64_t merged_intervals = 1;       ///< requested intervals per point (1, 2, 4...: the cap)
  std::vector<SeriesPoint> points;          ///< in time order, adjacent, none overlapping
};

}  // namespace iobench
