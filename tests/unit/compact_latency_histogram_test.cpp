#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <iobench/compact_latency_histogram.hpp>
#include <iobench/latency_histogram.hpp>
#include <iobench/metrics.hpp>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <vector>

namespace {

using iobench::CompactLatencyHistogram;
using iobench::LatencyHistogram;

// Lognormal latencies around 20 us with a tail to seconds, and a few exact small values: many
// buckets, some shared, some alone.
std::vector<std::uint64_t> samples(std::uint32_t seed, std::size_t n) {
  std::mt19937_64 random(seed);
  std::lognormal_distribution<double> latency(10.0, 1.5);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(i % 97 == 0 ? i % 300 : static_cast<std::uint64_t>(latency(random)));
  }
  return out;
}

// Every figure of `compact` is the one `dense` reports: moments, percentiles, every bucket.
void check_same(const CompactLatencyHistogram& compact, const LatencyHistogram& dense) {
  CHECK(compact.count() == dense.count());
  CHECK(compact.min() == dense.min());
  CHECK(compact.max() == dense.max());
  CHECK(compact.sum() == dense.sum());
  CHECK(compact.mean() == dense.mean());
  CHECK(compact.stddev() == dense.stddev());
  CHECK(compact.moments().sum_squares == dense.moments().sum_squares);
  for (const double p : {0.0, 0.1, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    INFO("p" << p);
    CHECK(compact.percentile(p) == dense.percentile(p));
  }
  std::size_t non_empty = 0;
  for (std::size_t i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    if (compact.bucket_count(i) != dense.bucket_count(i)) {
      FAIL("bucket " << i << ": " << compact.bucket_count(i) << " against "
                     << dense.bucket_count(i));
    }
    non_empty += dense.bucket_count(i) != 0;
  }
  CHECK(compact.buckets().size() == non_empty);
  CHECK(compact.bucket_count(LatencyHistogram::kBucketCount) == 0);
}

}  // namespace

TEST_CASE("a compact histogram reports exactly what the recorded one reports", "[unit][metrics]") {
  const auto values = samples(7, 20'000);
  auto dense = std::make_unique<LatencyHistogram>();
  CompactLatencyHistogram recorded;
  for (const std::uint64_t v : values) {
    dense->record(v);
    recorded.record(v);
  }
  check_same(recorded, *dense);
  check_same(CompactLatencyHistogram(*dense), *dense);
  CHECK(CompactLatencyHistogram(*dense) == recorded);
  // Ascending and without empty buckets.
  const auto buckets = recorded.buckets();
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    CHECK(buckets[i].count > 0);
    if (i > 0) CHECK(buckets[i - 1].index < buckets[i].index);
  }
}

TEST_CASE("compact histograms merge as recording everything in one", "[unit][metrics]") {
  const auto first = samples(1, 5000);
  const auto second = samples(2, 7000);
  auto all = std::make_unique<LatencyHistogram>();
  auto second_dense = std::make_unique<LatencyHistogram>();
  CompactLatencyHistogram a, b;
  for (const std::uint64_t v : first) {
    a.record(v);
    all->record(v);
  }
  for (const std::uint64_t v : second) {
    b.record(v);
    second_dense->record(v);
    all->record(v);
  }
  SECTION("compact into compact") {
    CompactLatencyHistogram merged = a;
    merged.merge(b);
    check_same(merged, *all);
  }
  SECTION("recorded into compact") {
    CompactLatencyHistogram merged = a;
    merged.merge(*second_dense);
    check_same(merged, *all);
  }
  SECTION("into an empty one, and an empty one into it") {
    CompactLatencyHistogram merged;
    merged.merge(a);
    merged.merge(CompactLatencyHistogram{});
    merged.merge(LatencyHistogram{});
    CHECK(merged == a);
  }
}

TEST_CASE("compact percentiles are clamped to the exact min and max, as the recorded ones",
          "[unit][metrics]") {
  // Around 1 ms a bucket is 4096 ns wide, [999424, 1003520), midpoint 1001471: samples above
  // it report the exact min, samples below it the exact max, a lone sample itself.
  struct Case {
    std::vector<std::uint64_t> values;
    std::uint64_t p50, p99_9;
  };
  const Case cases[] = {
      {{1'000'000}, 1'000'000, 1'000'000},
      {{1'003'000, 1'003'500}, 1'003'000, 1'003'000},
      {{1'000'001, 1'000'300}, 1'000'300, 1'000'300},
      // The top sample's bucket [996432412672, 1000727379968) has its midpoint below it.
      {{5, 1'000'000'000'000}, 5, 998'579'896'319},
  };
  for (const Case& c : cases) {
    auto dense = std::make_unique<LatencyHistogram>();
    CompactLatencyHistogram compact;
    for (const std::uint64_t v : c.values) {
      dense->record(v);
      compact.record(v);
    }
    check_same(compact, *dense);
    CHECK(compact.percentile(50) == c.p50);
    CHECK(compact.percentile(99.9) == c.p99_9);
    CHECK(compact.percentile(-1) == c.values.front());
    CHECK(compact.percentile(150) == c.values.back());
    CHECK(compact.percentile(std::numeric_limits<double>::quiet_NaN()) == c.values.front());
  }
}

TEST_CASE("a compact histogram merged into itself doubles every count", "[unit][metrics]") {
  CompactLatencyHistogram h;
  auto doubled = std::make_unique<LatencyHistogram>();
  for (const std::uint64_t v : samples(4, 2000)) {
    h.record(v);
    doubled->record(v);
    doubled->record(v);
  }
  h.merge(h);
  check_same(h, *doubled);
}

TEST_CASE("an empty compact histogram reports zeros", "[unit][metrics]") {
  const CompactLatencyHistogram empty;
  CHECK(empty.count() == 0);
  CHECK(empty.min() == 0);
  CHECK(empty.max() == 0);
  CHECK(empty.mean() == 0.0);
  CHECK(empty.stddev() == 0.0);
  CHECK(empty.percentile(50) == 0);
  CHECK(empty.buckets().empty());
  CHECK(empty == CompactLatencyHistogram(LatencyHistogram{}));
}

TEST_CASE("a compact histogram restores what it saved and refuses what does not fit",
          "[unit][metrics]") {
  CompactLatencyHistogram h;
  for (const std::uint64_t v : samples(3, 3000)) h.record(v);
  const std::vector<CompactLatencyHistogram::BucketCount> buckets(h.buckets().begin(),
                                                                  h.buckets().end());
  const auto restored = CompactLatencyHistogram::restore(h.moments(), buckets);
  REQUIRE(restored.has_value());
  CHECK(*restored == h);
  // The dense restore takes the same and reports the same.
  const auto dense = LatencyHistogram::restore(h.moments(), buckets);
  REQUIRE(dense.has_value());
  check_same(h, *dense);

  auto more = h.moments();
  ++more.count;  // buckets no longer add up to the count
  CHECK_FALSE(CompactLatencyHistogram::restore(more, buckets).has_value());
  auto reversed = buckets;
  std::swap(reversed.front(), reversed.back());
  CHECK_FALSE(CompactLatencyHistogram::restore(h.moments(), reversed).has_value());
  CHECK(CompactLatencyHistogram::restore({}, {}) == CompactLatencyHistogram{});
}

TEST_CASE("a result merges a worker's recorded histogram reading only the pages samples reached",
          "[unit][metrics]") {
  // An OpStats in fresh anonymous memory, as the runner's shared memory holds a worker's.
  const std::size_t bytes = (sizeof(iobench::OpStats) + 4095) / 4096 * 4096;
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(memory != MAP_FAILED);
  auto* recorded = new (memory) iobench::OpStats(LatencyHistogram::InZeroedMemory{});
  for (std::uint64_t ns = 1000; ns <= 3000; ++ns) recorded->record(4096, ns);

  iobench::OpResult result;
  result.merge(*recorded);
  CHECK(result.ops == 2001);
  CHECK(result.bytes == 2001 * 4096);
  CHECK(result.latency.count() == 2001);
  CHECK(result.latency.percentile(50) == recorded->latency.percentile(50));
  for (const auto& b : result.latency.buckets()) {
    CHECK(b.count == recorded->latency.bucket_count(b.index));
  }
  // The pages around a one-second bucket were never read (the buckets start within the
  // OpStats' first 128 bytes; the page before and after cover any padding).
  const std::size_t offset = LatencyHistogram::bucket_index(1'000'000'000) * 8;
  for (std::size_t page = offset / 4096 - 1; page <= offset / 4096 + 1; ++page) {
    unsigned char resident = 1;
    REQUIRE(::mincore(static_cast<char*>(memory) + page * 4096, 4096, &resident) == 0);
    CHECK((resident & 1) == 0);
  }
  ::munmap(memory, bytes);
}

TEST_CASE("an op result records and merges as OpStats counts", "[unit][metrics]") {
  iobench::OpResult a, b;
  a.record(100, 1'000);
  a.record(200, 3'000'000'000);   // over 2 s
  b.record(300, 11'000'000'000);  // over 2 s and 10 s
  b.errors = 2;
  a.merge(b);
  CHECK(a.ops == 3);
  CHECK(a.bytes == 600);
  CHECK(a.errors == 2);
  CHECK(a.ops_over_2s == 2);
  CHECK(a.ops_over_10s == 1);
  CHECK(a.latency.count() == 3);
  CHECK(a.latency.max() == 11'000'000'000);
}
