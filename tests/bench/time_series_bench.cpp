// What recording an op costs with the time series (WorkerContext::record with its interval
// accumulator, issue 13's budget: within 2 ns) against the same record path without it (the
// OpStats update and live counters alone, as WorkerContext::record was before).
#include <benchmark/benchmark.h>

#include <atomic>
#include <iobench/engine.hpp>
#include <iobench/metrics.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <memory>

namespace {

constexpr std::uint64_t kBytes = 4096;
constexpr std::uint64_t kOpNs = 1000;  // an op completing every 1 us: a rollover per 1M ops

// Latencies that move over a few histogram buckets, as real ones do.
std::uint64_t latency_of(std::uint64_t i) { return 800 + (i * 7919) % 4096; }

void BM_RecordSeriesOff(benchmark::State& state) {
  iobench::OpStats stats;
  std::atomic<std::uint64_t> live_bytes{0}, live_ops{0};
  std::uint64_t i = 0;
  for (auto _ : state) {
    stats.record(kBytes, latency_of(i++));
    live_bytes.store(live_bytes.load(std::memory_order_relaxed) + kBytes,
                     std::memory_order_relaxed);
    live_ops.store(live_ops.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    benchmark::DoNotOptimize(&stats);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(live_ops.load());
}
BENCHMARK(BM_RecordSeriesOff);

void BM_RecordSeriesOn(benchmark::State& state) {
  const std::unique_ptr<iobench::Engine> engine = iobench::make_psync_engine();
  const iobench::PhaseSpec spec{.name = "p", .op_names = {"op"}};
  iobench::testing::WorkerHarness harness(spec, {}, *engine);
  iobench::WorkerContext& ctx = harness.context();
  harness.start_measuring();
  if (!ctx.keep_going()) {
    state.SkipWithError("not measuring");
    return;
  }
  std::uint64_t i = 0;
  std::uint64_t end_ns = iobench::monotonic_ns();
  for (auto _ : state) {
    end_ns += kOpNs;
    ctx.record(0, kBytes, latency_of(i++), end_ns);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(harness.ops()[0].ops);
}
BENCHMARK(BM_RecordSeriesOn);

}  // namespace
