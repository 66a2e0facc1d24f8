#pragma once

// A latency histogram (CompactLatencyHistogram) back from what a result document saved of it:
// exactly, from its buckets and exact sums (schema 2, merged op kinds), or as the histogram that
// has the saved figures (workers; schema 1): the same count, min, max, mean, stddev and saved
// percentiles.

#include <array>
#include <cstdint>
#include <iobench/compact_latency_histogram.hpp>
#include <iobench/latency_histogram.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::detail {

/// The percentiles a result document saves, with their keys.
struct SavedPercentile {
  std::string_view key;
  double p;
};
inline constexpr std::array<SavedPercentile, 5> kSavedPercentiles{
    {{"p50", 50.0}, {"p90", 90.0}, {"p99", 99.0}, {"p99_9", 99.9}, {"p99_99", 99.99}}};

/// What a document saved of one latency histogram.
struct LatencySummary {
  std::string pointer;  ///< JSON pointer of the latency object, for errors
  std::uint64_t count = 0;
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  double mean = 0;
  double stddev = 0;
  std::array<std::uint64_t, kSavedPercentiles.size()> percentiles{};
  std::optional<LatencyHistogram::Uint128> sum;          ///< schema 2
  std::optional<LatencyHistogram::Uint128> sum_squares;  ///< schema 2
  std::optional<std::vector<LatencyHistogram::BucketCount>> buckets;
};

/// The histogram `summary` describes; every saved figure of it is reproduced exactly. Without
/// sums, the sum is the one whose mean is `mean` and the sum of squares the one whose stddev is
/// `stddev`; without buckets, samples are placed at the saved percentiles' buckets (ranks as
/// percentile() counts them). Throws ResultFormatError at the field that contradicts the others.
[[nodiscard]] CompactLatencyHistogram rebuild_histogram(const LatencySummary& summary);

}  // namespace iobench::detail
