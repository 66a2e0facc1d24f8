#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iobench/compact_latency_histogram.hpp>
#include <utility>

#include "metrics/histogram_restore.hpp"

namespace iobench {
namespace {

using BucketCount = CompactLatencyHistogram::BucketCount;

bool index_below(const BucketCount& bucket, std::size_t index) noexcept {
  return bucket.index < index;
}

// How many distinct indices `a` and `b` (both ascending) hold together.
std::size_t union_size(std::span<const BucketCount> a, std::span<const BucketCount> b) noexcept {
  std::size_t shared = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i].index < b[j].index) {
      ++i;
    } else if (b[j].index < a[i].index) {
      ++j;
    } else {
      ++shared, ++i, ++j;
    }
  }
  return a.size() + b.size() - shared;
}

// `into` + `from`, both ascending by index: one pass, equal indices added. Sized exactly, as
// results keep these vectors for the rest of the run.
std::vector<BucketCount> merged(const std::vector<BucketCount>& into,
                                std::span<const BucketCount> from) {
  std::vector<BucketCount> out;
  out.reserve(union_size(into, from));
  auto a = into.begin();
  auto b = from.begin();
  while (a != into.end() && b != from.end()) {
    if (a->index < b->index) {
      out.push_back(*a++);
    } else if (b->index < a->index) {
      out.push_back(*b++);
    } else {
      out.push_back(BucketCount{a->index, a->count + b->count});
      ++a;
      ++b;
    }
  }
  out.insert(out.end(), a, into.end());
  out.insert(out.end(), b, from.end());
  return out;
}

}  // namespace

CompactLatencyHistogram::CompactLatencyHistogram(const LatencyHistogram& recorded) {
  merge(recorded);
}

void CompactLatencyHistogram::record(std::uint64_t ns) {
  const std::size_t index = LatencyHistogram::bucket_index(ns);
  const auto at = std::lower_bound(buckets_.begin(), buckets_.end(), index, index_below);
  if (at != buckets_.end() && at->index == index) {
    ++at->count;
  } else {
    buckets_.insert(at, BucketCount{index, 1});
  }
  ++count_;
  sum_ += ns;
  sum_squares_ += static_cast<Uint128>(ns) * ns;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
}

void CompactLatencyHistogram::merge(const CompactLatencyHistogram& other) {
  if (other.count_ == 0) return;
  buckets_ = buckets_.empty() ? other.buckets_ : merged(buckets_, other.buckets_);
  count_ += other.count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

// Only the buckets from the minimum's to the maximum's can hold samples (LatencyHistogram).
void CompactLatencyHistogram::merge(const LatencyHistogram& recorded) {
  if (recorded.count() == 0) return;
  const std::size_t first = LatencyHistogram::bucket_index(recorded.min());
  const std::size_t last = LatencyHistogram::bucket_index(recorded.max());
  std::size_t non_empty = 0;  // counted first, so the vector is allocated once, exactly
  for (std::size_t i = first; i <= last; ++i) non_empty += recorded.bucket_count(i) != 0;
  std::vector<BucketCount> reached;
  reached.reserve(non_empty);
  for (std::size_t i = first; i <= last; ++i) {
    if (const std::uint64_t n = recorded.bucket_count(i); n != 0) reached.push_back({i, n});
  }
  buckets_ = buckets_.empty() ? std::move(reached) : merged(buckets_, reached);
  const Moments m = recorded.moments();
  count_ += m.count;
  sum_ += m.sum;
  sum_squares_ += m.sum_squares;
  min_ = std::min(min_, m.min);
  max_ = std::max(max_, m.max);
}

double CompactLatencyHistogram::mean() const noexcept {
  return LatencyHistogram::mean_of(count_, sum_);
}

double CompactLatencyHistogram::stddev() const noexcept {
  return LatencyHistogram::stddev_of(count_, sum_, sum_squares_);
}

// As LatencyHistogram::percentile, over the non-empty buckets only.
std::uint64_t CompactLatencyHistogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  if (!(p > 0.0)) return min();  // also NaN
  if (p >= 100.0) return max_;
  const std::uint64_t target = LatencyHistogram::nearest_rank(p, count_);
  std::uint64_t cumulative = 0;
  for (const BucketCount& b : buckets_) {
    cumulative += b.count;
    if (cumulative < target) continue;
    const std::uint64_t value =
        LatencyHistogram::bucket_lower(b.index) + (LatencyHistogram::bucket_width(b.index) - 1) / 2;
    return std::clamp(value, min(), max_);
  }
  return max_;  // unreachable while counts are consistent
}

std::uint64_t CompactLatencyHistogram::bucket_count(std::size_t index) const noexcept {
  const auto at = std::lower_bound(buckets_.begin(), buckets_.end(), index, index_below);
  return at != buckets_.end() && at->index == index ? at->count : 0;
}

std::optional<CompactLatencyHistogram> CompactLatencyHistogram::restore(
    const Moments& m, std::span<const BucketCount> buckets) {
  if (!detail::restorable(m, buckets)) return std::nullopt;
  CompactLatencyHistogram h;
  h.buckets_.assign(buckets.begin(), buckets.end());
  h.count_ = m.count;
  h.min_ = m.count ? m.min : UINT64_MAX;
  h.max_ = m.max;
  h.sum_ = m.sum;
  h.sum_squares_ = m.sum_squares;
  return h;
}

}  // namespace iobench
