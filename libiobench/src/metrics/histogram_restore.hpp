#pragma once

// The consistency check behind LatencyHistogram::restore and CompactLatencyHistogram::restore:
// whether saved moments and bucket counts can be one histogram's.

#include <iobench/latency_histogram.hpp>
#include <span>

namespace iobench::detail {

/// True if `buckets` (indices ascending and below kBucketCount, counts > 0) add up to
/// `moments.count`, the minimum and maximum fall in the first and last of them, min <= max, the
/// sum lies in [count x min, count x max] and the sum of squares is at least sum^2 / count; an
/// empty histogram must be all zero with no buckets.
[[nodiscard]] bool restorable(const LatencyHistogram::Moments& moments,
                              std::span<const LatencyHistogram::BucketCount> buckets) noexcept;

}  // namespace iobench::detail
