#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <iobench/engine.hpp>
#include <iobench/workload.hpp>
#include <memory>

#include "libiobench/src/core/worker_slot.hpp"

namespace {

using iobench::OpStats;
using iobench::OpTimer;
using iobench::WorkerContext;
namespace detail = iobench::detail;

}  // namespace

TEST_CASE("an op that spans the end of warm-up is timed from the start of measurement", "[core]") {
  const std::unique_ptr<iobench::Engine> engine = iobench::make_psync_engine();
  std::atomic<std::uint32_t> state{detail::kWarmup};
  auto slot = std::make_unique<detail::WorkerSlot>();
  std::array<OpStats, 1> ops{};
  WorkerContext ctx(0, 0, 1, {}, *engine, 1, state, *slot, ops, 0);
  REQUIRE(ctx.keep_going());  // warm-up starts: recording begins
  const std::uint64_t warmup_start = ctx.recording_start_ns();
  CHECK(warmup_start > 0);
  OpTimer timer;  // an op starts during warm-up...
  state.store(detail::kMeasure);
  REQUIRE(ctx.keep_going());  // ...warm-up ends: stats reset, measurement starts
  const std::uint64_t measure_start = ctx.recording_start_ns();
  CHECK(measure_start > timer.last_ns());
  timer.lap(ctx, 0, 4096);  // ...and the op ends
  REQUIRE(ops[0].ops == 1);
  // Its latency runs from the measurement start, not from the op's start in warm-up, so the
  // stats reset inside keep_going() is in no latency.
  CHECK(ops[0].latency.max() == timer.last_ns() - measure_start);
  CHECK(ops[0].bytes == 4096);
}
