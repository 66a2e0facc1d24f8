#include <catch2/catch.hpp>
#include <iobench/engine.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <memory>

namespace {

using iobench::OpTimer;
using iobench::PhaseSpec;
using iobench::testing::WorkerHarness;

const PhaseSpec kPhase{.name = "p", .op_names = {"write"}, .counter_names = {"c"}};

}  // namespace

TEST_CASE("an op that spans the end of warm-up is timed from the start of measurement", "[core]") {
  const std::unique_ptr<iobench::Engine> engine = iobench::make_psync_engine();
  WorkerHarness harness(kPhase, {}, *engine);
  iobench::WorkerContext& ctx = harness.context();
  harness.start_warmup();
  REQUIRE(ctx.keep_going());  // warm-up starts: recording begins
  const std::uint64_t warmup_start = ctx.recording_start_ns();
  CHECK(warmup_start > 0);
  OpTimer timer;  // an op starts during warm-up...
  harness.start_measuring();
  REQUIRE(ctx.keep_going());  // ...warm-up ends: stats reset, measurement starts
  const std::uint64_t measure_start = ctx.recording_start_ns();
  CHECK(measure_start > timer.last_ns());
  timer.lap(ctx, 0, 4096);  // ...and the op ends
  const auto ops = harness.ops();
  REQUIRE(ops[0].ops == 1);
  // Its latency runs from the measurement start, not from the op's start in warm-up, so the
  // stats reset inside keep_going() is in no latency.
  CHECK(ops[0].latency.max() == timer.last_ns() - measure_start);
  CHECK(ops[0].bytes == 4096);
}

TEST_CASE("the worker harness gives the runner's worker numbering, op limit and stop", "[core]") {
  const std::unique_ptr<iobench::Engine> engine = iobench::make_psync_engine();
  // Views of no descriptor: only their paths are looked at.
  const std::vector<iobench::Target> targets{
      {.user_path = "/a", .run_dir = iobench::ConfinedDir(-1, "/a/run")},
      {.user_path = "/b", .run_dir = iobench::ConfinedDir(-1, "/b/run")}};
  WorkerHarness harness(
      kPhase, targets, *engine,
      {.phase_index = 2, .worker_index = 3, .worker_count = 4, .seed = 7, .ops_limit = 5});
  iobench::WorkerContext& ctx = harness.context();
  CHECK(ctx.phase_index() == 2);
  CHECK(ctx.worker_index() == 3);
  CHECK(ctx.worker_count() == 4);
  CHECK(ctx.seed() == 7);
  CHECK(ctx.target_index() == 1);  // worker 3 of 2 targets: 3 % 2
  CHECK(ctx.target().run_dir.path() == "/b/run");

  // Recorded before measuring starts: discarded when it does.
  ctx.record(0, 1, 10);
  ctx.add_counter(0, 9);
  harness.start_measuring();
  std::uint64_t recorded = 0;
  while (ctx.keep_going()) {
    ctx.record(0, 512, 100);
    ++recorded;
  }
  CHECK(recorded == 5);  // the op limit, counted from the measurement start
  CHECK(harness.ops()[0].ops == 5);
  CHECK(harness.ops()[0].bytes == 5 * 512);
  CHECK(harness.counter(0) == 0);
  ctx.add_counter(0, 3);
  CHECK(harness.counter(0) == 3);
  harness.stop();
  CHECK_FALSE(ctx.keep_going());
}

TEST_CASE("target_index_of spreads workers over the targets in turn", "[core]") {
  CHECK(iobench::target_index_of(0, 3) == 0);
  CHECK(iobench::target_index_of(4, 3) == 1);
  CHECK(iobench::target_index_of(5, 1) == 0);
  CHECK(iobench::target_index_of(5, 0) == 0);
  static_assert(iobench::target_index_of(7, 4) == 3);
}
