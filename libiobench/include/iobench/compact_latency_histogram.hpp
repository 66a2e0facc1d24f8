#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/latency_histogram.hpp>
#include <optional>
#include <span>
#include <vector>

namespace iobench {

/// A latency histogram as results keep it (OpResult, in WorkerResult and PhaseResult): the same
/// buckets and exact moments as LatencyHistogram, so every figure it reports is the one the
/// recorded LatencyHistogram reports, but only its non-empty buckets are stored (16 bytes each:
/// a client's dbench op kind holds a few hundred, where LatencyHistogram is 39 KiB whatever it
/// holds). Workers record into LatencyHistogram (fixed memory, no allocation); the runner merges
/// those into these, so a run's results grow with the buckets samples reached, not with workers
/// x op kinds x 39 KiB (about 665 KiB per dbench client when results held LatencyHistogram).
///
/// Recording, merging, copying and restore() allocate (std::bad_alloc); reading never does.
/// Thread safety: none.
class CompactLatencyHistogram {
 public:
  using Uint128 = LatencyHistogram::Uint128;
  using Moments = LatencyHistogram::Moments;
  using BucketCount = LatencyHistogram::BucketCount;

  /// An empty histogram.
  CompactLatencyHistogram() = default;
  /// The samples of `recorded`, reading only its buckets from the minimum's to the maximum's
  /// (pages of a LatencyHistogram in shared memory that no sample reached stay untouched).
  explicit CompactLatencyHistogram(const LatencyHistogram& recorded);

  /// Records one latency of `ns` nanoseconds, bucketed as LatencyHistogram::record does. Costs
  /// a search and, for a new bucket, an insertion: for building results, not for an I/O loop.
  void record(std::uint64_t ns);
  /// Adds every sample of `other` (exactly as if recorded here).
  void merge(const CompactLatencyHistogram& other);
  /// Adds every sample of `recorded`, reading only the buckets between its minimum's and
  /// maximum's.
  void merge(const LatencyHistogram& recorded);

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  /// Exact minimum in ns; 0 when empty.
  [[nodiscard]] std::uint64_t min() const noexcept { return count_ ? min_ : 0; }
  /// Exact maximum in ns; 0 when empty.
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  /// Exact sum of all samples in ns (saturates at 2^64-1).
  [[nodiscard]] std::uint64_t sum() const noexcept {
    return sum_ > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(sum_);
  }
  /// Exact arithmetic mean in ns; 0 when empty (LatencyHistogram::mean_of).
  [[nodiscard]] double mean() const noexcept;
  /// Sample standard deviation (n-1) in ns; 0 with fewer than two samples.
  [[nodiscard]] double stddev() const noexcept;
  /// Nearest-rank percentile in ns, `p` in [0, 100], exactly as LatencyHistogram::percentile:
  /// the bucket midpoint clamped to [min, max], relative error <= 0.39 %; 0 when empty.
  [[nodiscard]] std::uint64_t percentile(double p) const noexcept;
  /// Count of samples in bucket `index` (LatencyHistogram::bucket_index); 0 for an empty or
  /// out-of-range bucket. A binary search.
  [[nodiscard]] std::uint64_t bucket_count(std::size_t index) const noexcept;
  /// The non-empty buckets, indices ascending, counts > 0; valid until the next record(),
  /// merge() or assignment.
  [[nodiscard]] std::span<const BucketCount> buckets() const noexcept { return buckets_; }
  /// The exact state behind count(), min(), max(), mean() and stddev().
  [[nodiscard]] Moments moments() const noexcept {
    return Moments{count_, min(), max_, sum_, sum_squares_};
  }
  /// A histogram with exactly `moments` and these bucket counts, as a saved one is read back;
  /// nullopt where LatencyHistogram::restore gives nullopt (they do not fit together).
  [[nodiscard]] static std::optional<CompactLatencyHistogram> restore(
      const Moments& moments, std::span<const BucketCount> buckets);

  /// Same samples in the same buckets with the same moments.
  friend bool operator==(const CompactLatencyHistogram&,
                         const CompactLatencyHistogram&) noexcept = default;

 private:
  Uint128 sum_ = 0;
  Uint128 sum_squares_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  std::vector<BucketCount> buckets_;  // ascending index, counts > 0
};

}  // namespace iobench
