// LatenessTrend: the Theil-Sen slope of an open loop's largest lateness per window, which the
// disk workload's latency search judges its probes by (growth_ns).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <iobench/lateness_trend.hpp>

using iobench::LatenessTrend;

namespace {

constexpr std::uint64_t kOrigin = 1'000'000'000;  // the recording's start, ns
constexpr std::uint64_t kMs = 1'000'000;

// An open loop at 408 ops/s behind a 400/s ceiling: op k is due at k / 408 s and completes
// (k + 1) / 400 s after the origin, so it is late by (k + 1) / 400 - k / 408 s, which grows by
// 8/408 (1.96 %) of the elapsed time, plus a service time of 0.2 ms.
void feed_backlog(LatenessTrend& trend, std::uint64_t duration_ns) {
  for (std::uint64_t k = 0;; ++k) {
    const double due = static_cast<double>(k) / 408.0 * 1e9;
    const double done = static_cast<double>(k + 1) / 400.0 * 1e9 + 0.2e6;
    if (done > static_cast<double>(duration_ns)) break;
    trend.record(kOrigin, kOrigin + static_cast<std::uint64_t>(done),
                 static_cast<std::uint64_t>(done - due));
  }
}

}  // namespace

TEST_CASE("a steady backlog's lateness grows at (rate - ceiling) / rate", "[unit][lateness]") {
  for (const std::uint64_t duration : {700 * kMs, 1000 * kMs, 3000 * kMs, 60'000 * kMs}) {
    INFO("over " << duration / kMs << " ms");
    LatenessTrend trend;
    feed_backlog(trend, duration);
    // The largest lateness of each window is its last op's: on the line, whatever the width.
    CHECK(trend.slope() == Approx(8.0 / 408.0).epsilon(0.01));
    CHECK(trend.windows() <= LatenessTrend::kMaxWindows);
    CHECK(trend.windows() >= LatenessTrend::kMaxWindows / 2);
  }
  // 60 s: 1200 windows of 50 ms merged pairwise down to at most 16 (7 doublings: 6.4 s each).
  LatenessTrend long_run;
  feed_backlog(long_run, 60'000 * kMs);
  CHECK(long_run.window_ns() == 50 * kMs * 128);
  CHECK(long_run.windows() == 10);  // 60 / 6.4: 9 full windows and a part
}

TEST_CASE("a few isolated stalls make no trend", "[unit][lateness]") {
  LatenessTrend trend;
  // 1 s at 400 ops/s, each 0.2 ms late (service time), but for three stalls of 30-80 ms.
  for (std::uint64_t k = 0; k < 400; ++k) {
    const std::uint64_t at = k * 2'500'000;
    std::uint64_t late = 200'000;
    if (k == 50) late = 80 * kMs;
    if (k == 201) late = 30 * kMs;
    if (k == 390) late = 60 * kMs;
    trend.record(kOrigin, kOrigin + at, late);
  }
  CHECK(trend.windows() == 10);  // 20 windows of 50 ms, merged once into 10 of 100 ms
  CHECK(std::abs(trend.slope()) < 1e-6);
}

TEST_CASE("a lateness that stays bounded has no trend, one that drains a negative one",
          "[unit][lateness]") {
  LatenessTrend flat;
  for (std::uint64_t k = 0; k < 400; ++k) {
    flat.record(kOrigin, kOrigin + k * 2'500'000, 20 * kMs + (k % 8) * kMs);  // a full queue
  }
  CHECK(std::abs(flat.slope()) < 1e-3);
  LatenessTrend draining;
  for (std::uint64_t k = 0; k < 400; ++k) {
    const std::uint64_t at = k * 2'500'000;
    draining.record(kOrigin, kOrigin + at, at < 500 * kMs ? 500 * kMs - at : 0);
  }
  CHECK(draining.slope() < -0.4);
}

TEST_CASE("a new origin starts the trend over and samples before it are ignored",
          "[unit][lateness]") {
  LatenessTrend trend;
  CHECK(trend.slope() == 0);  // nothing yet
  feed_backlog(trend, 1000 * kMs);
  REQUIRE(trend.slope() > 0.01);
  // The measurement begins at kOrigin + 2 s (a warm-up ended): the growing warm-up is gone.
  const std::uint64_t measure = kOrigin + 2000 * kMs;
  trend.record(measure, measure - 1, 900 * kMs);  // before the origin: ignored
  CHECK(trend.windows() == 0);
  trend.record(measure, measure + 10 * kMs, 5 * kMs);
  CHECK(trend.windows() == 1);
  CHECK(trend.slope() == 0);  // one window: no slope
  trend.record(measure, measure + 110 * kMs, 5 * kMs);
  CHECK(trend.slope() == 0);
  CHECK(trend.window_ns() == LatenessTrend::kWindowNs);
}
