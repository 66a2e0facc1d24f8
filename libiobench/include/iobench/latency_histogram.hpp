#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace iobench {

/// Log-linear latency histogram in nanoseconds: fixed memory (~39 KiB), no allocation when
/// recording, mergeable by adding buckets, trivially copyable (it may live in shared memory that
/// worker processes write). One made in memory known to be zero (InZeroedMemory: the runner's
/// fresh shared memory) writes only its first cache lines, and reset(), merge() and percentile()
/// touch only the buckets between the minimum's and the maximum's: a histogram's resident memory
/// is the pages its samples reached, not 39 KiB (dbench's 17 op kinds per client process).
///
/// Bucketing. Values below 2^(kSubBits+1) (256 ns) get one bucket each (exact). Above, every
/// power-of-two range [2^e, 2^(e+1)) is split into 2^kSubBits equal buckets, so a bucket is at most
/// 1/128 of its lower bound wide. A percentile is reported as the bucket midpoint (clamped to the
/// exact min/max), whose relative error is then at most 1/256 = 0.39 %; fio's 6 sub-bits give
/// 0.78 %. The top group is [2^kMaxExponent, 2^(kMaxExponent+1)) ns, so the 0.39 % bound holds to
/// 2^45 ns (about 9.8 h); larger values land in the last bucket (their percentiles are clamped to
/// the exact max()), and max() stays exact.
///
/// Moments. count, min, max and the sum and sum of squares are kept exactly in 128-bit integers,
/// so mean() is exact and stddev() has no cancellation error; no division happens per sample
/// (Welford would need one). The sum of squares is exact while it stays below 2^128 (e.g. 2^38
/// samples of 9.8 h each).
///
/// Thread safety: none; each worker owns one and the runner merges after join.
class LatencyHistogram {
 public:
  // __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit integer type.
  __extension__ typedef unsigned __int128 Uint128;

  /// Selects the constructor for memory that already holds only zero bytes.
  struct InZeroedMemory {};

  /// An empty histogram.
  LatencyHistogram() noexcept : buckets_{} {}
  /// An empty histogram in memory that holds only zero bytes (a fresh anonymous mapping), which
  /// its buckets keep: only the fields before them are written. REQUIRES: every byte of the
  /// storage is zero.
  explicit LatencyHistogram(InZeroedMemory) noexcept {}

  static constexpr unsigned kSubBits = 7;
  static constexpr std::uint64_t kSubBuckets = 1ULL << kSubBits;
  static constexpr unsigned kMaxExponent = 44;
  static constexpr std::size_t kBucketCount = kSubBuckets * (kMaxExponent - kSubBits + 2);

  /// Records one latency of `ns` nanoseconds. A few ns (tests/bench/histogram_bench); never
  /// allocates.
  void record(std::uint64_t ns) noexcept {
    ++count_;
    sum_ += ns;
    sum_squares_ += static_cast<Uint128>(ns) * ns;
    if (ns < min_) min_ = ns;
    if (ns > max_) max_ = ns;
    ++buckets_[bucket_index(ns)];
  }

  /// Adds every sample of `other` into this histogram (exactly as if recorded here).
  void merge(const LatencyHistogram& other) noexcept;
  /// Forgets all samples (used when a warm-up ends); writes only the buckets samples reached.
  void reset() noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  /// Exact minimum in ns; 0 when empty.
  [[nodiscard]] std::uint64_t min() const noexcept { return count_ ? min_ : 0; }
  /// Exact maximum in ns; 0 when empty.
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  /// Exact sum of all samples in ns (saturates at 2^64-1, about 584 years).
  [[nodiscard]] std::uint64_t sum() const noexcept {
    return sum_ > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(sum_);
  }
  /// Exact arithmetic mean in ns; 0 when empty.
  [[nodiscard]] double mean() const noexcept;
  /// Sample standard deviation (n-1) in ns; 0 with fewer than two samples.
  [[nodiscard]] double stddev() const noexcept;
  /// Nearest-rank percentile in ns, `p` in [0, 100]: the smallest recorded value v such that at
  /// least p % of samples are <= v, reported as its bucket's midpoint clamped to [min, max].
  /// Relative error <= 0.39 %. Returns 0 when empty. p <= 0 gives min(), p >= 100 gives max().
  [[nodiscard]] std::uint64_t percentile(double p) const noexcept;

  /// Bucket of a value (exposed for tests and exporters).
  [[nodiscard]] static constexpr std::size_t bucket_index(std::uint64_t ns) noexcept {
    // Values past the top group share the last bucket; `| kSubBuckets` puts values below 128 in
    // the first group (shift 0), which maps them to themselves. No branch, bit_width never sees 0.
    constexpr std::uint64_t kTop = (std::uint64_t{2} << kMaxExponent) - 1;
    const std::uint64_t v = ns < kTop ? ns : kTop;
    const unsigned shift = static_cast<unsigned>(std::bit_width(v | kSubBuckets)) - 1 - kSubBits;
    // = kSubBuckets * (shift + 1) + ((v >> shift) - kSubBuckets)
    return static_cast<std::size_t>((std::uint64_t{shift} << kSubBits) + (v >> shift));
  }
  /// Smallest value that falls in bucket `index`.
  [[nodiscard]] static constexpr std::uint64_t bucket_lower(std::size_t index) noexcept {
    if (index < kSubBuckets) return index;
    const std::uint64_t shift = index / kSubBuckets - 1;
    return (kSubBuckets + index % kSubBuckets) << shift;
  }
  /// Number of distinct values bucket `index` covers (1 for exact buckets).
  [[nodiscard]] static constexpr std::uint64_t bucket_width(std::size_t index) noexcept {
    return index < kSubBuckets ? 1 : 1ULL << (index / kSubBuckets - 1);
  }
  /// Count of samples in bucket `index`.
  [[nodiscard]] std::uint64_t bucket_count(std::size_t index) const noexcept {
    return buckets_[index];
  }

  /// The exact state behind count(), min(), max(), mean() and stddev(): what a result file must
  /// keep to restore the histogram (LatencyHistogram::restore).
  struct Moments {
    std::uint64_t count = 0;
    std::uint64_t min = 0;  ///< 0 when empty
    std::uint64_t max = 0;
    Uint128 sum = 0;          ///< ns
    Uint128 sum_squares = 0;  ///< ns^2
  };
  /// One non-empty bucket: its index and count.
  struct BucketCount {
    std::size_t index = 0;
    std::uint64_t count = 0;
    friend bool operator==(const BucketCount&, const BucketCount&) noexcept = default;
  };

  [[nodiscard]] Moments moments() const noexcept {
    return Moments{count_, min(), max_, sum_, sum_squares_};
  }
  /// A histogram with exactly `moments` and these bucket counts (indices ascending, counts > 0),
  /// as a saved one is read back; every figure it reports equals the saved histogram's. nullopt
  /// if they do not fit together: bucket counts not adding up to the count, an index out of
  /// range or not ascending, min and max not in the first and last non-empty buckets, min > max,
  /// a sum outside [count x min, count x max], or a sum of squares below sum^2 / count.
  [[nodiscard]] static std::optional<LatencyHistogram> restore(
      const Moments& moments, std::span<const BucketCount> buckets) noexcept;
  /// mean() of a histogram with these moments: sum / count; 0 when count is 0.
  [[nodiscard]] static double mean_of(std::uint64_t count, Uint128 sum) noexcept;
  /// stddev() of a histogram with these moments: sample standard deviation, 0 below 2 samples.
  [[nodiscard]] static double stddev_of(std::uint64_t count, Uint128 sum,
                                        Uint128 sum_squares) noexcept;
  /// The 1-based rank percentile(p) reports for `count` samples (nearest rank); 0 if count is 0.
  [[nodiscard]] static std::uint64_t nearest_rank(double p, std::uint64_t count) noexcept;

 private:
  Uint128 sum_ = 0;  // 128-bit so that mean() stays exact past 2^64 ns in total
  Uint128 sum_squares_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  std::array<std::uint64_t, kBucketCount> buckets_;  // zeroed by the constructors (see above)
};

}  // namespace iobench
