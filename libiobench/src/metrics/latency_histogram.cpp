#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iobench/latency_histogram.hpp>

namespace iobench {

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  count_ += other.count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  for (std::size_t i = 0; i < kBucketCount; ++i) buckets_[i] += other.buckets_[i];
}

double LatencyHistogram::mean() const noexcept {
  if (count_ == 0) return 0.0;
  return static_cast<double>(static_cast<long double>(sum_) / static_cast<long double>(count_));
}

// Sample variance without cancellation. With S1 = sum, S2 = sum of squares and S1 = q*n + r
// (integer division), the sum of squared deviations is
//   M2 = S2 - S1^2/n = (S2 - q^2*n - 2*q*r) - r^2/n.
// The bracket is an exact 128-bit integer (q^2*n <= S2 by Cauchy-Schwarz, so nothing overflows)
// and r^2/n < n, so the only rounding left is one conversion to long double.
double LatencyHistogram::stddev() const noexcept {
  if (count_ < 2) return 0.0;
  const Uint128 n = count_;
  const Uint128 q = sum_ / n;
  const Uint128 r = sum_ % n;
  const Uint128 integer_part = sum_squares_ - q * q * n - 2 * q * r;
  const long double fraction =
      static_cast<long double>(r) * static_cast<long double>(r) / static_cast<long double>(n);
  const long double m2 = std::max(0.0L, static_cast<long double>(integer_part) - fraction);
  return static_cast<double>(std::sqrt(m2 / static_cast<long double>(count_ - 1)));
}

std::uint64_t LatencyHistogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  if (!(p > 0.0)) return min_;  // also NaN
  if (p >= 100.0) return max_;

  // Nearest rank: the smallest rank k with k >= p/100 * n. A p written in decimal (99.9) is not
  // exact in binary, so p/100 * n can land a hair above a whole number it is meant to equal
  // (999.0000000000001 for 99.9 % of 1000); values within the rounding error of the inputs are
  // taken as that whole number.
  const long double exact = static_cast<long double>(p) * static_cast<long double>(count_) / 100.0L;
  const long double nearest = std::nearbyint(exact);
  long double rank = std::fabs(exact - nearest) <= exact * 1e-15L ? nearest : std::ceil(exact);
  rank = std::clamp(rank, 1.0L, static_cast<long double>(count_));
  const auto target = static_cast<std::uint64_t>(rank);

  std::uint64_t cumulative = 0;
  std::size_t index = 0;
  for (; index < kBucketCount; ++index) {
    cumulative += buckets_[index];
    if (cumulative >= target) break;
  }
  if (index == kBucketCount) return max_;  // unreachable while counts are consistent

  // Centre of the integer range [lower, lower + width - 1], rounded down: the error is at most
  // width/2 relative to a value >= lower >= 128 * width, i.e. <= 1/256.
  const std::uint64_t value = bucket_lower(index) + (bucket_width(index) - 1) / 2;
  return std::clamp(value, min_, max_);
}

}  // namespace iobench
