#include "report/latency_rebuild.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iobench/result_json.hpp>

namespace iobench::detail {
namespace {

using Uint128 = LatencyHistogram::Uint128;

[[noreturn]] void fail(const LatencySummary& s, std::string_view key, const std::string& what) {
  throw ResultFormatError(key.empty() ? s.pointer : s.pointer + "/" + std::string(key), what);
}

// The sum of the samples whose mean is s.mean (schema 1 saved only the mean, exact to a double):
// the candidates next to mean x count, the first whose mean prints as saved.
Uint128 sum_from_mean(const LatencySummary& s) {
  const long double estimate = std::roundl(static_cast<long double>(s.mean) * s.count);
  const Uint128 n = s.count;
  if (!std::isfinite(estimate) || estimate < 0 || estimate > 1e38L) {
    fail(s, "mean", "is not the mean of this many ops");
  }
  const auto base = static_cast<Uint128>(estimate);
  for (Uint128 c = base > 2 ? base - 2 : 0; c <= base + 2; ++c) {
    if (c >= n * s.min && c <= n * s.max && LatencyHistogram::mean_of(s.count, c) == s.mean) {
      return c;
    }
  }
  fail(s, "mean",
       fmt::format("{} is not the mean of {} ops between min {} and max {}", s.mean, s.count, s.min,
                   s.max));
}

// The sum of squares whose stddev is s.stddev (schema 1): stddev grows with the sum of squares,
// so the smallest one that reaches it is found by bisection.
Uint128 squares_from_stddev(const LatencySummary& s, Uint128 sum) {
  if (s.count == 1) {
    if (s.stddev != 0) fail(s, "stddev", "one op has a stddev of 0");
    return sum * sum;
  }
  const Uint128 n = s.count;
  const Uint128 q = sum / n;
  const Uint128 r = sum % n;
  Uint128 q2 = 0, q2n = 0, qr2 = 0, base = 0;
  if (__builtin_mul_overflow(q, q, &q2) || __builtin_mul_overflow(q2, n, &q2n) ||
      __builtin_mul_overflow(q, 2 * r, &qr2) || __builtin_add_overflow(q2n, qr2, &base)) {
    fail(s, "mean", "is too large");
  }
  if (!std::isfinite(s.stddev) || s.stddev < 0) fail(s, "stddev", "must be 0 or more");
  const Uint128 room = ~Uint128{0} - base;
  const long double estimate = static_cast<long double>(s.stddev) * s.stddev * (s.count - 1) +
                               static_cast<long double>(r) * r / s.count;
  Uint128 high = room;
  if (estimate * 2 + 1e6L < static_cast<long double>(room)) {
    high = static_cast<Uint128>(estimate * 2 + 1e6L);
  }
  Uint128 low = 0;  // invariant: the answer is in [low, high]
  while (low < high) {
    const Uint128 mid = low + (high - low) / 2;
    if (LatencyHistogram::stddev_of(s.count, sum, base + mid) < s.stddev) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (LatencyHistogram::stddev_of(s.count, sum, base + low) != s.stddev) {
    fail(s, "stddev",
         fmt::format("{} is not a stddev {} ops with this mean can have", s.stddev, s.count));
  }
  return base + low;
}

// Bucket counts that put the ranks of min, each saved percentile and max where the saved
// values are, so that percentile() reports exactly those values.
std::vector<LatencyHistogram::BucketCount> buckets_from_percentiles(const LatencySummary& s) {
  struct Mark {
    std::string_view key;
    std::uint64_t value;
    std::uint64_t rank;
  };
  std::vector<Mark> marks{{"min", s.min, 1}};
  for (std::size_t i = 0; i < kSavedPercentiles.size(); ++i) {
    marks.push_back({kSavedPercentiles[i].key, s.percentiles[i],
                     LatencyHistogram::nearest_rank(kSavedPercentiles[i].p, s.count)});
  }
  marks.push_back({"max", s.max, s.count});
  std::vector<LatencyHistogram::BucketCount> buckets;
  std::uint64_t cumulative = 0;
  std::size_t last_index = 0;
  for (std::size_t m = 0; m < marks.size(); ++m) {
    const Mark& mark = marks[m];
    if (m > 0 && mark.value < marks[m - 1].value) {
      fail(s, mark.key,
           fmt::format("{} is below the {} of {}", mark.value, marks[m - 1].key,
                       marks[m - 1].value));
    }
    const std::size_t index = LatencyHistogram::bucket_index(mark.value);
    if (!buckets.empty() && index == last_index) {
      if (mark.rank > cumulative) {
        buckets.back().count += mark.rank - cumulative;
        cumulative = mark.rank;
      }
      continue;
    }
    if (mark.rank <= cumulative) {
      fail(s, mark.key,
           fmt::format("{} contradicts the lower figures: the op of rank {} lies below it",
                       mark.value, mark.rank));
    }
    buckets.push_back({index, mark.rank - cumulative});
    cumulative = mark.rank;
    last_index = index;
  }
  return buckets;
}

void expect(const LatencySummary& s, std::string_view key, double got, double saved) {
  if (got != saved) {
    fail(s, key,
         fmt::format("{} contradicts the other latency figures (they give {})", saved, got));
  }
}

}  // namespace

CompactLatencyHistogram rebuild_histogram(const LatencySummary& s) {
  if (s.count == 0) {
    bool zero = s.min == 0 && s.max == 0 && s.mean == 0 && s.stddev == 0 &&
                s.sum.value_or(0) == 0 && s.sum_squares.value_or(0) == 0 &&
                (!s.buckets || s.buckets->empty());
    for (const std::uint64_t p : s.percentiles) zero = zero && p == 0;
    if (!zero) fail(s, "", "an op kind without ops has no latency: every figure must be 0");
    return CompactLatencyHistogram{};
  }
  if (s.min > s.max) fail(s, "min", fmt::format("{} is larger than max {}", s.min, s.max));
  const Uint128 sum = s.sum ? *s.sum : sum_from_mean(s);
  const Uint128 squares = s.sum_squares ? *s.sum_squares : squares_from_stddev(s, sum);
  const std::vector<LatencyHistogram::BucketCount> buckets =
      s.buckets ? *s.buckets : buckets_from_percentiles(s);
  std::optional<CompactLatencyHistogram> histogram = CompactLatencyHistogram::restore(
      LatencyHistogram::Moments{s.count, s.min, s.max, sum, squares}, buckets);
  if (!histogram) {
    fail(s, s.buckets ? "buckets" : "",
         "the latency figures contradict each other (ops, min, max, sum, sum of squares, "
         "buckets)");
  }
  expect(s, "mean", histogram->mean(), s.mean);
  expect(s, "stddev", histogram->stddev(), s.stddev);
  for (std::size_t i = 0; i < kSavedPercentiles.size(); ++i) {
    const std::uint64_t got = histogram->percentile(kSavedPercentiles[i].p);
    if (got != s.percentiles[i]) {
      fail(s, kSavedPercentiles[i].key,
           fmt::format("{} contradicts the other latency figures (they give {})", s.percentiles[i],
                       got));
    }
  }
  return *std::move(histogram);
}

}  // namespace iobench::detail
