#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iobench/latency_histogram.hpp>

#include "metrics/histogram_restore.hpp"

namespace iobench {

// Only the buckets from the minimum's to the maximum's can hold samples: reading or writing
// no others leaves untouched pages untouched (a histogram in shared memory, fresh from mmap).
void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  if (other.count_ == 0) return;
  count_ += other.count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  const std::size_t last = bucket_index(other.max_);
  for (std::size_t i = bucket_index(other.min()); i <= last; ++i) buckets_[i] += other.buckets_[i];
}

void LatencyHistogram::reset() noexcept {
  if (count_ != 0) {
    const std::size_t last = bucket_index(max_);
    for (std::size_t i = bucket_index(min()); i <= last; ++i) buckets_[i] = 0;
  }
  count_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
}

double LatencyHistogram::mean() const noexcept { return mean_of(count_, sum_); }

double LatencyHistogram::mean_of(std::uint64_t count, Uint128 sum) noexcept {
  if (count == 0) return 0.0;
  return static_cast<double>(static_cast<long double>(sum) / static_cast<long double>(count));
}

double LatencyHistogram::stddev() const noexcept { return stddev_of(count_, sum_, sum_squares_); }

// Sample variance without cancellation. With S1 = sum, S2 = sum of squares and S1 = q*n + r
// (integer division), the sum of squared deviations is
//   M2 = S2 - S1^2/n = (S2 - q^2*n - 2*q*r) - r^2/n.
// The bracket is an exact 128-bit integer (q^2*n <= S2 by Cauchy-Schwarz, so nothing overflows)
// and r^2/n < n, so the only rounding left is one conversion to long double.
double LatencyHistogram::stddev_of(std::uint64_t count, Uint128 sum, Uint128 sum_squares) noexcept {
  if (count < 2) return 0.0;
  const Uint128 n = count;
  const Uint128 q = sum / n;
  const Uint128 r = sum % n;
  const Uint128 integer_part = sum_squares - q * q * n - 2 * q * r;
  const long double fraction =
      static_cast<long double>(r) * static_cast<long double>(r) / static_cast<long double>(n);
  const long double m2 = std::max(0.0L, static_cast<long double>(integer_part) - fraction);
  return static_cast<double>(std::sqrt(m2 / static_cast<long double>(count - 1)));
}

std::uint64_t LatencyHistogram::nearest_rank(double p, std::uint64_t count) noexcept {
  if (count == 0) return 0;
  if (!(p > 0.0)) return 1;  // also NaN
  if (p >= 100.0) return count;
  // Nearest rank: the smallest rank k with k >= p/100 * n. A p written in decimal (99.9) is not
  // exact in binary, so p/100 * n can land a hair above a whole number it is meant to equal
  // (999.0000000000001 for 99.9 % of 1000); values within the rounding error of the inputs are
  // taken as that whole number.
  const long double exact = static_cast<long double>(p) * static_cast<long double>(count) / 100.0L;
  const long double nearest = std::nearbyint(exact);
  long double rank = std::fabs(exact - nearest) <= exact * 1e-15L ? nearest : std::ceil(exact);
  rank = std::clamp(rank, 1.0L, static_cast<long double>(count));
  return static_cast<std::uint64_t>(rank);
}

std::optional<LatencyHistogram> LatencyHistogram::restore(
    const Moments& m, std::span<const BucketCount> buckets) noexcept {
  if (!detail::restorable(m, buckets)) return std::nullopt;
  LatencyHistogram h;
  for (const BucketCount& b : buckets) h.buckets_[b.index] = b.count;
  h.count_ = m.count;
  h.min_ = m.count ? m.min : UINT64_MAX;
  h.max_ = m.max;
  h.sum_ = m.sum;
  h.sum_squares_ = m.sum_squares;
  return h;
}

std::uint64_t LatencyHistogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  if (!(p > 0.0)) return min();  // also NaN
  if (p >= 100.0) return max_;

  const std::uint64_t target = nearest_rank(p, count_);

  std::uint64_t cumulative = 0;
  std::size_t index = bucket_index(min());  // none below it holds a sample
  for (; index < kBucketCount; ++index) {
    cumulative += buckets_[index];
    if (cumulative >= target) break;
  }
  if (index == kBucketCount) return max_;  // unreachable while counts are consistent

  // Centre of the integer range [lower, lower + width - 1], rounded down: the error is at most
  // width/2 relative to a value >= lower >= 128 * width, i.e. <= 1/256.
  const std::uint64_t value = bucket_lower(index) + (bucket_width(index) - 1) / 2;
  return std::clamp(value, min(), max_);
}

}  // namespace iobench
