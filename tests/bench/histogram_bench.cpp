// Micro-benchmarks of the per-op measurement path: what every recorded I/O costs.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iobench/clock.hpp>
#include <iobench/compact_latency_histogram.hpp>
#include <iobench/latency_histogram.hpp>
#include <iobench/metrics.hpp>
#include <memory>
#include <random>
#include <vector>

namespace {

// Realistic latencies (lognormal, median 100 us, from ~1 us to ~100 ms), precomputed so the
// benchmark measures recording, not random number generation. The table is a power of two long
// and larger than the branch predictor can memorise.
const std::vector<std::uint64_t>& latency_table() {
  static const std::vector<std::uint64_t> table = [] {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> dist(std::log(100'000.0), 1.5);
    std::vector<std::uint64_t> values(1 << 16);
    for (auto& v : values) v = static_cast<std::uint64_t>(dist(rng)) + 1;
    return values;
  }();
  return table;
}

void BM_HistogramRecord(benchmark::State& state) {
  const std::vector<std::uint64_t>& values = latency_table();
  const std::size_t mask = values.size() - 1;
  auto histogram = std::make_unique<iobench::LatencyHistogram>();
  std::size_t i = 0;
  for (auto _ : state) {
    histogram->record(values[i++ & mask]);
  }
  benchmark::DoNotOptimize(histogram->count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramMerge(benchmark::State& state) {
  const std::vector<std::uint64_t>& values = latency_table();
  auto source = std::make_unique<iobench::LatencyHistogram>();
  for (const std::uint64_t v : values) source->record(v);
  auto target = std::make_unique<iobench::LatencyHistogram>();
  for (auto _ : state) {
    target->merge(*source);
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(target->count());
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<std::int64_t>(sizeof(iobench::LatencyHistogram)));
}
BENCHMARK(BM_HistogramMerge);

void BM_HistogramPercentile(benchmark::State& state) {
  auto histogram = std::make_unique<iobench::LatencyHistogram>();
  for (const std::uint64_t v : latency_table()) histogram->record(v);
  for (auto _ : state) {
    benchmark::DoNotOptimize(histogram->percentile(99.9));
  }
}
BENCHMARK(BM_HistogramPercentile);

// What the runner does per worker and op kind at a phase's end (not per op): a recorded
// histogram into a result's compact one, and worker results into the phase's.
void BM_CompactFromRecorded(benchmark::State& state) {
  auto source = std::make_unique<iobench::LatencyHistogram>();
  for (const std::uint64_t v : latency_table()) source->record(v);
  for (auto _ : state) {
    iobench::CompactLatencyHistogram compact(*source);
    benchmark::DoNotOptimize(compact.buckets().data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CompactFromRecorded);

void BM_CompactMerge(benchmark::State& state) {
  iobench::CompactLatencyHistogram source;
  for (const std::uint64_t v : latency_table()) source.record(v);
  for (auto _ : state) {
    iobench::CompactLatencyHistogram target = source;
    target.merge(source);
    benchmark::DoNotOptimize(target.buckets().data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["buckets"] = static_cast<double>(source.buckets().size());
}
BENCHMARK(BM_CompactMerge);

void BM_OpStatsRecord(benchmark::State& state) {
  const std::vector<std::uint64_t>& values = latency_table();
  const std::size_t mask = values.size() - 1;
  auto stats = std::make_unique<iobench::OpStats>();
  std::size_t i = 0;
  for (auto _ : state) {
    stats->record(4096, values[i++ & mask]);
  }
  benchmark::DoNotOptimize(stats->ops);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OpStatsRecord);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(iobench::monotonic_ns());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClockRead);

}  // namespace
