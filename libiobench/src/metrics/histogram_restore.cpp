#include "metrics/histogram_restore.hpp"

#include <cstddef>
#include <cstdint>

namespace iobench::detail {

bool restorable(const LatencyHistogram::Moments& m,
                std::span<const LatencyHistogram::BucketCount> buckets) noexcept {
  using Uint128 = LatencyHistogram::Uint128;
  if (m.count == 0) {
    return m.min == 0 && m.max == 0 && m.sum == 0 && m.sum_squares == 0 && buckets.empty();
  }
  if (m.min > m.max || buckets.empty()) return false;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const LatencyHistogram::BucketCount& b = buckets[i];
    if (b.index >= LatencyHistogram::kBucketCount || b.count == 0 ||
        (i > 0 && b.index <= buckets[i - 1].index)) {
      return false;
    }
    if (b.count > UINT64_MAX - total) return false;
    total += b.count;
  }
  if (total != m.count || buckets.front().index != LatencyHistogram::bucket_index(m.min) ||
      buckets.back().index != LatencyHistogram::bucket_index(m.max)) {
    return false;
  }
  const Uint128 n = m.count;
  if (m.sum < n * m.min || m.sum > n * m.max) return false;
  // Cauchy-Schwarz: n * S2 >= S1^2, i.e. with S1 = q*n + r, S2 >= q^2*n + 2*q*r (+ r^2/n), the
  // integer part stddev_of() subtracts; computed with overflow checks (no real S2 overflows it).
  const Uint128 q = m.sum / n;
  const Uint128 r = m.sum % n;
  Uint128 q2 = 0, q2n = 0, qr2 = 0, floor_s2 = 0;
  return !(__builtin_mul_overflow(q, q, &q2) || __builtin_mul_overflow(q2, n, &q2n) ||
           __builtin_mul_overflow(q, 2 * r, &qr2) || __builtin_add_overflow(q2n, qr2, &floor_s2) ||
           m.sum_squares < floor_s2);
}

}  // namespace iobench::detail
