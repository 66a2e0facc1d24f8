// The cost of mdtest's item name ("file.mdtest.<rank>.<n>"), made once per item op by iobench's
// mdtest and IO500 workloads (append_item_name), against the fmt runtime format it replaced:
//   ItemName      - append_item_name(): std::to_chars into a buffer, one append
//   FmtBackInsert - fmt::format_to(std::back_inserter(out), "{}.mdtest.{}.{}", ...)
// Run from a Release-type build:
//   mdtest_names_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <string>

#include "plugins/common/mdtest_item_name.hpp"

namespace {

void ItemName(benchmark::State& state) {
  std::string name;
  name.reserve(64);
  std::uint64_t n = 0;
  for (auto _ : state) {
    name.clear();
    iobench::plugins::append_item_name(false, 3, n++ % 1000000, name);
    benchmark::DoNotOptimize(name.data());
  }
}
BENCHMARK(ItemName);

void FmtBackInsert(benchmark::State& state) {
  std::string name;
  name.reserve(64);
  std::uint64_t n = 0;
  for (auto _ : state) {
    name.clear();
    fmt::format_to(std::back_inserter(name), "{}.mdtest.{}.{}", "file", 3, n++ % 1000000);
    benchmark::DoNotOptimize(name.data());
  }
}
BENCHMARK(FmtBackInsert);

}  // namespace
