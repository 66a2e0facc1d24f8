#include <sys/mman.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <iobench/latency_histogram.hpp>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using iobench::LatencyHistogram;

constexpr std::uint64_t kSecondNs = 1'000'000'000ULL;
constexpr std::uint64_t kHourNs = 3600 * kSecondNs;

// The histogram is ~39 KiB: keep it off the test's stack.
std::unique_ptr<LatencyHistogram> make_histogram() { return std::make_unique<LatencyHistogram>(); }

// Percentiles in hundredths of a percent, so the exact nearest rank is integer arithmetic that
// shares nothing with the floating-point rank in LatencyHistogram::percentile.
constexpr std::uint64_t kPercentilesX100[] = {10,   100,  1000, 2500, 5000, 7500,
                                              9000, 9900, 9990, 9999, 10000};

std::uint64_t exact_percentile(const std::vector<std::uint64_t>& sorted, std::uint64_t p_x100) {
  const std::uint64_t n = sorted.size();
  const std::uint64_t rank = std::max<std::uint64_t>(1, (p_x100 * n + 9999) / 10000);
  return sorted[rank - 1];
}

void check_percentiles(const std::vector<std::uint64_t>& samples) {
  auto histogram = make_histogram();
  for (const std::uint64_t v : samples) histogram->record(v);
  std::vector<std::uint64_t> sorted = samples;
  std::sort(sorted.begin(), sorted.end());

  for (const std::uint64_t p_x100 : kPercentilesX100) {
    const double p = static_cast<double>(p_x100) / 100.0;
    const std::uint64_t exact = exact_percentile(sorted, p_x100);
    const std::uint64_t reported = histogram->percentile(p);
    INFO("p=" << p << " exact=" << exact << " reported=" << reported);
    const double error = std::fabs(static_cast<double>(reported) - static_cast<double>(exact)) /
                         static_cast<double>(exact);
    CHECK(error <= 0.004);
  }
  CHECK(histogram->percentile(100) == sorted.back());
  CHECK(histogram->percentile(0) == sorted.front());
}

struct Moments {
  std::uint64_t min;
  std::uint64_t max;
  double mean;
  double stddev;
};

// Two-pass reference in long double.
Moments exact_moments(const std::vector<std::uint64_t>& samples) {
  long double sum = 0;
  for (const std::uint64_t v : samples) sum += static_cast<long double>(v);
  const long double n = static_cast<long double>(samples.size());
  const long double mean = sum / n;
  long double squares = 0;
  for (const std::uint64_t v : samples) {
    const long double d = static_cast<long double>(v) - mean;
    squares += d * d;
  }
  return Moments{*std::min_element(samples.begin(), samples.end()),
                 *std::max_element(samples.begin(), samples.end()), static_cast<double>(mean),
                 static_cast<double>(std::sqrt(squares / (n - 1)))};
}

std::vector<std::uint64_t> uniform_samples(std::uint64_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> dist(1'000, 10'000'000);
  std::vector<std::uint64_t> out(n);
  for (auto& v : out) v = dist(rng);
  return out;
}

std::vector<std::uint64_t> lognormal_samples(std::uint64_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> dist(std::log(100'000.0), 1.5);  // median 100 us
  std::vector<std::uint64_t> out(n);
  for (auto& v : out) v = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(dist(rng)));
  return out;
}

std::vector<std::uint64_t> bimodal_samples(std::uint64_t seed, std::size_t n) {
  // Page-cache hits around 50 us and device reads around 20 ms.
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> fast(50'000.0, 5'000.0);
  std::normal_distribution<double> slow(20'000'000.0, 2'000'000.0);
  std::bernoulli_distribution pick_slow(0.3);
  std::vector<std::uint64_t> out(n);
  for (auto& v : out) {
    const double x = pick_slow(rng) ? slow(rng) : fast(rng);
    v = static_cast<std::uint64_t>(std::max(1.0, x));
  }
  return out;
}

std::vector<std::uint64_t> extreme_samples(std::uint64_t seed, std::size_t n) {
  // Spread evenly in log space from 1 ns to 4 h, with exact edge values mixed in.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(0.0, std::log2(4.0 * kHourNs));
  std::vector<std::uint64_t> out(n);
  for (auto& v : out) v = std::max<std::uint64_t>(1, std::llround(std::exp2(exponent(rng))));
  const std::uint64_t edges[] = {1,           1,
                                 2,           127,
                                 128,         255,
                                 256,         257,
                                 kHourNs - 1, kHourNs,
                                 kHourNs + 1, 2 * kHourNs + 12345,
                                 1ULL << 44,  (1ULL << 45) - 1};
  for (std::size_t i = 0; i < std::size(edges); ++i) out[i * 97] = edges[i];
  return out;
}

}  // namespace

TEST_CASE("histogram percentiles of uniform samples are within 0.4 percent", "[unit][metrics]") {
  check_percentiles(uniform_samples(1, 200'000));
}

TEST_CASE("histogram percentiles of lognormal samples are within 0.4 percent", "[unit][metrics]") {
  check_percentiles(lognormal_samples(2, 200'000));
}

TEST_CASE("histogram percentiles of bimodal samples are within 0.4 percent", "[unit][metrics]") {
  check_percentiles(bimodal_samples(3, 200'000));
}

TEST_CASE("histogram percentiles of extreme samples from 1 ns to hours are within 0.4 percent",
          "[unit][metrics]") {
  check_percentiles(extreme_samples(4, 200'000));
}

TEST_CASE("histogram percentiles of a few samples are within 0.4 percent", "[unit][metrics]") {
  check_percentiles({kHourNs + 7});
  check_percentiles({1, 3 * kHourNs});
  check_percentiles({5000, 5001, 5002, 900'000'000'000ULL, 17});
}

TEST_CASE("histogram percentile uses the nearest rank exactly in exact buckets",
          "[unit][metrics]") {
  // Below 256 ns every value has its own bucket, so percentiles must be exact; the ranks here
  // are whole numbers that floating point p/100*n lands a hair above (99.9 % of 1000 = 999).
  auto h = make_histogram();
  h->record(5);
  for (int i = 0; i < 997; ++i) h->record(10);
  h->record(20);
  h->record(30);
  REQUIRE(h->count() == 1000);
  CHECK(h->percentile(0.1) == 5);    // rank 1
  CHECK(h->percentile(0.2) == 10);   // rank 2
  CHECK(h->percentile(99.8) == 10);  // rank 998
  CHECK(h->percentile(99.9) == 20);  // rank 999
  CHECK(h->percentile(99.95) == 30);
  CHECK(h->percentile(100) == 30);

  auto small = make_histogram();
  for (std::uint64_t v = 1; v <= 200; ++v) small->record(v);
  CHECK(small->percentile(50) == 100);
  CHECK(small->percentile(25) == 50);
  CHECK(small->percentile(99.5) == 199);
  CHECK(small->percentile(99.9) == 200);
  CHECK(small->percentile(0.1) == 1);
  CHECK(small->percentile(0.5) == 1);
  CHECK(small->percentile(0.51) == 2);
}

TEST_CASE("histogram percentile outside 0 to 100 gives min and max", "[unit][metrics]") {
  auto h = make_histogram();
  h->record(1000);
  h->record(2'000'000);
  h->record(3'000'000'000ULL);
  CHECK(h->percentile(-5) == 1000);
  CHECK(h->percentile(0) == 1000);
  CHECK(h->percentile(std::numeric_limits<double>::quiet_NaN()) == 1000);
  CHECK(h->percentile(100) == 3'000'000'000ULL);
  CHECK(h->percentile(250) == 3'000'000'000ULL);
}

TEST_CASE("histogram min max mean and stddev are exact", "[unit][metrics]") {
  for (const auto& samples : {uniform_samples(11, 50'000), lognormal_samples(12, 50'000),
                              bimodal_samples(13, 50'000), extreme_samples(14, 50'000)}) {
    auto h = make_histogram();
    std::uint64_t sum = 0;
    for (const std::uint64_t v : samples) {
      h->record(v);
      sum += v;
    }
    const Moments m = exact_moments(samples);
    CHECK(h->count() == samples.size());
    CHECK(h->min() == m.min);
    CHECK(h->max() == m.max);
    CHECK(h->sum() == sum);
    CHECK(h->mean() == Approx(m.mean).epsilon(1e-14));
    CHECK(h->stddev() == Approx(m.stddev).epsilon(1e-12));
  }
}

TEST_CASE("histogram stddev has no cancellation error", "[unit][metrics]") {
  // Large offset, tiny spread: E[x^2] - E[x]^2 in doubles would lose every digit.
  auto h = make_histogram();
  const std::uint64_t base = 4 * kHourNs;
  for (int i = 0; i < 1000; ++i) {
    h->record(base);
    h->record(base + 1);
    h->record(base + 2);
  }
  // Deviations -1, 0, 1: sum of squares 2000 over n-1 = 2999.
  CHECK(h->mean() == static_cast<double>(base + 1));
  CHECK(h->stddev() == Approx(std::sqrt(2000.0 / 2999.0)).epsilon(1e-14));

  auto constant = make_histogram();
  for (int i = 0; i < 10; ++i) constant->record(123'456'789);
  CHECK(constant->stddev() == 0.0);
}

TEST_CASE("histogram sum saturates while mean stays exact", "[unit][metrics]") {
  auto h = make_histogram();
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() - 1;
  h->record(huge);
  h->record(huge);
  CHECK(h->sum() == std::numeric_limits<std::uint64_t>::max());
  CHECK(h->mean() == static_cast<double>(huge));
  CHECK(h->max() == huge);
  CHECK(h->percentile(50) == huge);  // last bucket, clamped to the exact min and max
}

TEST_CASE("empty histogram reports zeros", "[unit][metrics]") {
  auto h = make_histogram();
  CHECK(h->count() == 0);
  CHECK(h->min() == 0);
  CHECK(h->max() == 0);
  CHECK(h->sum() == 0);
  CHECK(h->mean() == 0.0);
  CHECK(h->stddev() == 0.0);
  CHECK(h->percentile(50) == 0);
  CHECK(h->percentile(100) == 0);

  auto one = make_histogram();
  one->record(777'777);
  CHECK(one->stddev() == 0.0);
  CHECK(one->mean() == 777'777.0);
  for (const std::uint64_t p_x100 : kPercentilesX100) {
    CHECK(one->percentile(static_cast<double>(p_x100) / 100.0) == 777'777);
  }
  one->reset();
  CHECK(one->count() == 0);
  CHECK(one->percentile(50) == 0);
  CHECK(one->bucket_count(LatencyHistogram::bucket_index(777'777)) == 0);
}

TEST_CASE("merging histograms equals recording everything in one", "[unit][metrics]") {
  constexpr int kParts = 6;
  auto all = make_histogram();
  auto merged = make_histogram();
  std::vector<std::uint64_t> everything;
  for (int part = 0; part < kParts; ++part) {
    const auto seed = static_cast<std::uint64_t>(100 + part);
    std::vector<std::uint64_t> samples;
    switch (part % 4) {
      case 0:
        samples = uniform_samples(seed, 20'000);
        break;
      case 1:
        samples = lognormal_samples(seed, 20'000);
        break;
      case 2:
        samples = bimodal_samples(seed, 20'000);
        break;
      default:
        samples = extreme_samples(seed, 20'000);
        break;
    }
    auto h = make_histogram();
    for (const std::uint64_t v : samples) {
      h->record(v);
      all->record(v);
      everything.push_back(v);
    }
    merged->merge(*h);
  }
  merged->merge(*make_histogram());  // an empty part changes nothing

  REQUIRE(merged->count() == all->count());
  CHECK(merged->min() == all->min());
  CHECK(merged->max() == all->max());
  CHECK(merged->sum() == all->sum());
  CHECK(merged->mean() == all->mean());
  CHECK(merged->stddev() == all->stddev());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    differing += merged->bucket_count(i) != all->bucket_count(i);
  }
  CHECK(differing == 0);
  for (const std::uint64_t p_x100 : kPercentilesX100) {
    const double p = static_cast<double>(p_x100) / 100.0;
    CHECK(merged->percentile(p) == all->percentile(p));
  }
  const Moments m = exact_moments(everything);
  CHECK(merged->min() == m.min);
  CHECK(merged->max() == m.max);
  CHECK(merged->mean() == Approx(m.mean).epsilon(1e-14));
  CHECK(merged->stddev() == Approx(m.stddev).epsilon(1e-12));

  // Merging into an empty histogram copies it.
  auto copy = make_histogram();
  copy->merge(*all);
  CHECK(copy->min() == all->min());
  CHECK(copy->count() == all->count());
  CHECK(copy->percentile(50) == all->percentile(50));
}

TEST_CASE("histogram buckets tile the value range without gaps", "[unit][metrics]") {
  using H = LatencyHistogram;
  STATIC_REQUIRE(H::kBucketCount == 4992);
  STATIC_REQUIRE(std::is_trivially_copyable_v<H>);
  STATIC_REQUIRE(sizeof(H) <= 40 * 1024);

  CHECK(H::bucket_lower(0) == 0);
  for (std::size_t i = 0; i < H::kBucketCount; ++i) {
    const std::uint64_t lower = H::bucket_lower(i);
    const std::uint64_t width = H::bucket_width(i);
    INFO("bucket " << i << " lower " << lower << " width " << width);
    REQUIRE(width >= 1);
    REQUIRE(H::bucket_index(lower) == i);
    REQUIRE(H::bucket_index(lower + width - 1) == i);
    if (i + 1 < H::kBucketCount) REQUIRE(H::bucket_lower(i + 1) == lower + width);
    if (i >= 256) REQUIRE(width * 128 <= lower);  // at most 1/128 of the lower bound wide
    if (i < 256) REQUIRE(width == 1);             // exact below 256 ns
  }
  const std::size_t last = H::kBucketCount - 1;
  CHECK(H::bucket_lower(last) + H::bucket_width(last) == (1ULL << 45));
  CHECK(H::bucket_index((1ULL << 45) - 1) == last);
  CHECK(H::bucket_index(1ULL << 45) == last);
  CHECK(H::bucket_index(std::numeric_limits<std::uint64_t>::max()) == last);
}

TEST_CASE("histogram bucket of any value contains it", "[unit][metrics]") {
  using H = LatencyHistogram;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> bits(0, 45);
  for (int i = 0; i < 200'000; ++i) {
    const int b = bits(rng);
    const std::uint64_t v = b == 0 ? 0 : (rng() >> (64 - b));  // uniform in [0, 2^b)
    const std::size_t index = H::bucket_index(v);
    REQUIRE(index < H::kBucketCount);
    REQUIRE(H::bucket_lower(index) <= v);
    REQUIRE(v - H::bucket_lower(index) < H::bucket_width(index));
  }
}

namespace {

/// A histogram made in fresh anonymous memory (InZeroedMemory), as the runner makes them in its
/// shared memory.
class MappedHistogram {
 public:
  MappedHistogram() {
    bytes_ = (sizeof(LatencyHistogram) + 4095) / 4096 * 4096;
    memory_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(memory_ != MAP_FAILED);
    histogram_ = new (memory_) LatencyHistogram(LatencyHistogram::InZeroedMemory{});
  }
  ~MappedHistogram() { ::munmap(memory_, bytes_); }
  LatencyHistogram& get() { return *histogram_; }
  /// Whether the page holding the bucket of `ns` is resident.
  bool bucket_page_resident(std::uint64_t ns) const {
    // The buckets are the histogram's last member.
    const std::size_t header = sizeof(LatencyHistogram) - LatencyHistogram::kBucketCount * 8;
    const std::size_t page = (header + LatencyHistogram::bucket_index(ns) * 8) / 4096;
    unsigned char resident = 0;
    REQUIRE(::mincore(static_cast<char*>(memory_) + page * 4096, 4096, &resident) == 0);
    return (resident & 1) != 0;
  }

 private:
  void* memory_ = nullptr;
  std::size_t bytes_ = 0;
  LatencyHistogram* histogram_ = nullptr;
};

}  // namespace

TEST_CASE("a histogram made in zeroed memory touches only the buckets its samples reach",
          "[histogram]") {
  MappedHistogram a, b;
  LatencyHistogram& h = a.get();
  CHECK(h.count() == 0);
  CHECK(h.min() == 0);
  CHECK(h.max() == 0);
  CHECK(h.percentile(99) == 0);
  for (std::uint64_t ns = 1000; ns <= 2000; ++ns) h.record(ns);
  CHECK(h.count() == 1001);
  CHECK(h.min() == 1000);
  CHECK(h.max() == 2000);
  // It reports what a constructed histogram with the same samples reports.
  const auto constructed = make_histogram();
  for (std::uint64_t ns = 1000; ns <= 2000; ++ns) constructed->record(ns);
  for (const double p : {0.0, 1.0, 50.0, 99.0, 99.9, 100.0}) {
    CHECK(h.percentile(p) == constructed->percentile(p));
  }
  CHECK(h.mean() == constructed->mean());
  CHECK(h.stddev() == constructed->stddev());
  // One second lies pages away from 1-2 us: merging, reading percentiles and resetting never
  // reach its page, in the source or the destination.
  LatencyHistogram& into = b.get();
  into.merge(h);
  CHECK(into.count() == 1001);
  CHECK(into.min() == 1000);
  CHECK(into.percentile(99.9) == h.percentile(99.9));
  h.reset();
  CHECK(h.count() == 0);
  CHECK(h.min() == 0);
  CHECK(h.max() == 0);
  CHECK_FALSE(a.bucket_page_resident(1'000'000'000));
  CHECK_FALSE(b.bucket_page_resident(1'000'000'000));
  CHECK(a.bucket_page_resident(1500));
  // After the reset it is empty again, bucket for bucket: new samples count from zero.
  h.record(1500);
  CHECK(h.count() == 1);
  CHECK(h.bucket_count(LatencyHistogram::bucket_index(1500)) == 1);
  CHECK(h.bucket_count(LatencyHistogram::bucket_index(1000)) == 0);
  CHECK(h.min() == 1500);
}
