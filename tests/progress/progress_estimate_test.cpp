// % done and time left from what the runner's loop knows: exact for time limits, extrapolated
// for op limits and planned work, the nearest end winning.
#include "core/progress_estimate.hpp"

#include <catch2/catch.hpp>

using iobench::ProgressSnapshot;
using iobench::ProgressState;
using iobench::detail::fill_progress;
using iobench::detail::GroupProgress;

namespace {

constexpr std::uint64_t kMs = 1'000'000;

GroupProgress timed() {
  // Released at 1000 ms, 200 ms warm-up ended at 1200 ms, 1 s limit; now 1700 ms.
  return GroupProgress{.state = ProgressState::kMeasuring,
                       .now_ns = 1700 * kMs,
                       .set_up_start_ns = 900 * kMs,
                       .released_ns = 1000 * kMs,
                       .measure_start_ns = 1200 * kMs,
                       .bytes = 4096 * 100,
                       .ops = 100,
                       .time_limit_ns = 1000 * kMs,
                       .warmup_ns = 200 * kMs};
}

}  // namespace

TEST_CASE("a time limit gives exact fraction and time left, warm-up included", "[progress][unit]") {
  ProgressSnapshot s;
  fill_progress(timed(), s);
  CHECK(s.state == ProgressState::kMeasuring);
  CHECK(s.elapsed_ns == 500 * kMs);  // since the measurement began
  REQUIRE(s.done_fraction);
  CHECK(*s.done_fraction == Approx(700.0 / 1200));
  CHECK(s.phase_left_ns == 500 * kMs);

  GroupProgress warm = timed();
  warm.state = ProgressState::kWarmUp;
  warm.measure_start_ns = 0;
  warm.now_ns = 1100 * kMs;
  fill_progress(warm, s);
  CHECK(s.warming_up);
  CHECK(s.elapsed_ns == 100 * kMs);
  CHECK(s.phase_left_ns == 1100 * kMs);

  GroupProgress setting_up = timed();
  setting_up.state = ProgressState::kSetUp;
  setting_up.released_ns = setting_up.measure_start_ns = 0;
  setting_up.now_ns = 950 * kMs;
  fill_progress(setting_up, s);
  CHECK(s.elapsed_ns == 50 * kMs);
  CHECK(*s.done_fraction == 0);
  CHECK(s.phase_left_ns == 1200 * kMs);  // all of it is still to run
}

TEST_CASE("planned work and op limits extrapolate, the nearest end wins", "[progress][unit]") {
  GroupProgress g = timed();
  g.time_limit_ns = 0;
  g.warmup_ns = 0;
  g.planned_ops = 400;  // 100 done in the 700 ms since the release
  ProgressSnapshot s;
  fill_progress(g, s);
  CHECK(*s.done_fraction == Approx(0.25));
  CHECK(s.phase_left_ns == 2100 * kMs);

  // With a 1 s limit as well the limit ends it first.
  g.time_limit_ns = 1000 * kMs;
  fill_progress(g, s);
  CHECK(*s.done_fraction == Approx(0.5));
  CHECK(s.phase_left_ns == 500 * kMs);

  // An op limit of 50 per worker on two workers: 60 of 100 measured since 1200 ms.
  GroupProgress limited = timed();
  limited.time_limit_ns = 0;
  limited.warmup_ns = 0;
  limited.count = limited.workers = 2;
  limited.ops_limit = 50;
  limited.ops_at_measure_start = 40;
  fill_progress(limited, s);
  CHECK(*s.done_fraction == Approx(0.6));
  CHECK(s.phase_left_ns == std::uint64_t{333'333'333});

  // Nothing known: no estimate.
  GroupProgress open = timed();
  open.time_limit_ns = 0;
  fill_progress(open, s);
  CHECK_FALSE(s.done_fraction);
  CHECK_FALSE(s.phase_left_ns);
}

TEST_CASE("a serial phase counts the groups before and after the running one", "[progress][unit]") {
  GroupProgress g = timed();  // worker 1 of 4 runs alone, 700 of its 1200 ms done
  g.first = 1;
  g.count = 1;
  g.workers = 4;
  ProgressSnapshot s;
  fill_progress(g, s);
  CHECK(*s.done_fraction == Approx((1 + 700.0 / 1200) / 4));
  CHECK(s.phase_left_ns == 500 * kMs + 2 * 1200 * kMs);

  g.state = ProgressState::kCleanUp;
  fill_progress(g, s);
  CHECK(*s.done_fraction == Approx(2.0 / 4));
  CHECK(s.phase_left_ns == 2 * 1200 * kMs);
}
