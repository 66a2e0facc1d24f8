// What io500's data pattern costs (plugins/common/ior_data_pattern.hpp): the check each read phase
// makes of every transfer or file it reads (ior -R, mdtest -X), and the fill, against a memcpy of
// the same bytes (the copy a read from the page cache makes). SetBytesProcessed: bytes/s, from
// which the check's cost per MiB follows. Run from a Release-type build:
//   io500_pattern_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "plugins/common/ior_data_pattern.hpp"

namespace {

using iobench::plugins::IorPattern;

constexpr IorPattern kPattern{.rank = 1, .seed = 123456789};

// Sizes: mdtest-hard's 3901-byte file, ior-hard's 47008-byte and ior-easy's 2 MiB transfer.
void sizes(benchmark::internal::Benchmark* b) { b->Arg(3901)->Arg(47008)->Arg(2 << 20); }

void BM_PatternCheck(benchmark::State& state) {
  std::vector<std::byte> buf(static_cast<std::size_t>(state.range(0)));
  iobench::plugins::fill_pattern(buf, kPattern);
  for (auto _ : state) {
    benchmark::DoNotOptimize(buf.data());
    const bool ok = iobench::plugins::matches_pattern(buf, kPattern);
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_PatternCheck)->Apply(sizes);

void BM_PatternFill(benchmark::State& state) {
  std::vector<std::byte> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    iobench::plugins::fill_pattern(buf, kPattern);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_PatternFill)->Apply(sizes);

// The baseline: copying the same bytes, as read(2) copies them out of the page cache.
void BM_Memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> from(bytes, std::byte{1});
  std::vector<std::byte> to(bytes);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Memcpy)->Apply(sizes);

}  // namespace
