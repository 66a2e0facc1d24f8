// Time to read and parse Debian's client.txt (26 MB, 458,344 lines) into the replay's program,
// which every dbench run pays before its clients start (issue 11 asks for <= 0.25 s), and the
// decoding of that program as a replay walks it (per line, in ns):
//   ParseClientTxt  - parse_loadfile_file(): read a chunk at a time and parse (the run's path)
//   DecodeProgram   - Program::Cursor over every instruction once
// Skipped (with a message) where /usr/share/dbench/client.txt is missing. Run from a
// Release-type build:
//   loadfile_parse_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>

#include "plugins/dbench/loadfile_parser.hpp"
#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/loadfile_reader.hpp"

namespace {

namespace db = iobench::plugins::dbench;

constexpr const char* kClientTxt = "/usr/share/dbench/client.txt";

db::Loadfile parse_client_txt() {
  db::ParseOptions options;
  options.file_name = "client.txt";
  return db::parse_loadfile_file(kClientTxt, db::kDefaultMaxLoadfileBytes, options);
}

void ParseClientTxt(benchmark::State& state) {
  if (!std::filesystem::exists(kClientTxt)) {
    state.SkipWithError("/usr/share/dbench/client.txt is missing (Debian package dbench)");
    return;
  }
  std::size_t lines = 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const db::Loadfile lf = parse_client_txt();
    lines = lf.code.size();
    bytes = lf.memory_bytes();
    benchmark::DoNotOptimize(lines);
  }
  state.counters["lines"] = static_cast<double>(lines);
  state.counters["program_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(ParseClientTxt)->Unit(benchmark::kMillisecond);

void DecodeProgram(benchmark::State& state) {
  if (!std::filesystem::exists(kClientTxt)) {
    state.SkipWithError("/usr/share/dbench/client.txt is missing (Debian package dbench)");
    return;
  }
  const db::Loadfile lf = parse_client_txt();
  for (auto _ : state) {
    db::Program::Cursor cursor(lf.code);
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < lf.code.size(); ++i) sum += cursor.at(i).value[1];
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(lf.code.size()));
}
BENCHMARK(DecodeProgram)->Unit(benchmark::kMillisecond);

}  // namespace
