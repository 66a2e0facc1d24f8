#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/tiotest/test_hooks.hpp"
#include "plugins/tiotest/tiobench_report.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using iobench::PhaseResult;
using iobench::Status;
using iobench::Step;
using iobench::StepResult;

using ::iobench::test::kMiB;

Step tiobench_step(std::map<std::string, std::string> params, std::vector<fs::path> targets) {
  Step step;
  step.name = "tiobench";
  step.workload = "tiobench";
  step.params = std::move(params);
  step.targets = std::move(targets);
  return step;
}

}  // namespace

TEST_CASE("tiobench runs every sweep point and repetition as phases") {
  iobench::test::TempDir dir("tiobench-run");
  // Files present when each phase ends, to check that a finished run's files are removed.
  std::vector<std::pair<std::string, std::vector<bool>>> existing;
  std::vector<std::vector<fs::path>> run_files;
  iobench::plugins::tiotest::TestHooks hooks;
  hooks.after_phase = [&](std::size_t, const std::string& name,
                          const std::vector<fs::path>& files) {
    if (name.rfind("Write size", 0) == 0) run_files.push_back(files);
    std::vector<bool> exists;
    for (const auto& previous : run_files) {
      for (const fs::path& f : previous) exists.push_back(fs::exists(f));
    }
    existing.emplace_back(name, exists);
  };
  iobench::plugins::tiotest::set_test_hooks(&hooks);
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, {});
  iobench::test::CapturingReporter reporter;
  const std::vector<Step> steps{tiobench_step({{"threads", "1,2"},
                                               {"sizes", "2m"},
                                               {"block_sizes", "4k"},
                                               {"random_ops", "64"},
                                               {"repetitions", "2"},
                                               {"identifier", "test"}},
                                              {dir.path()})};
  (void)runner.run(steps, reporter);
  iobench::plugins::tiotest::set_test_hooks(nullptr);
  REQUIRE(reporter.steps.size() == 1);
  const StepResult& step = reporter.steps.front();
  REQUIRE(step.status == Status::kOk);
  REQUIRE(step.phases.size() == 16);  // 2 thread counts x 2 repetitions x 4 phases
  CHECK(step.phases[0].name == "Write size=2M bs=4096 threads=1 run=1");
  CHECK(step.phases[3].name == "Random Read size=2M bs=4096 threads=1 run=1");
  CHECK(step.phases[4].name == "Write size=2M bs=4096 threads=1 run=2");
  CHECK(step.phases[15].name == "Random Read size=2M bs=4096 threads=2 run=2");
  for (const PhaseResult& phase : step.phases) {
    INFO(phase.name);
    const std::size_t threads = phase.name.find("threads=2") != std::string::npos ? 2 : 1;
    CHECK(phase.workers.size() == threads);
    const bool random = phase.name.rfind("Random", 0) == 0;
    // 2 MiB in total (int(2/T) MiB per thread); 64 random ops in total (int(64/T) per thread)
    CHECK(phase.ops.at(0).bytes == (random ? 64 * 4096 : 2 * kMiB));
  }
  // A run's files exist through its phases and are gone once the next run ends its first phase.
  REQUIRE(run_files.size() == 4);
  REQUIRE(existing.size() == 16);
  CHECK(existing[3].second == std::vector<bool>{true});         // run 1, its last phase
  CHECK(existing[4].second == std::vector<bool>{false, true});  // run 2 started; run 1 removed
  CHECK(existing[15].second ==
        std::vector<bool>{false, false, false, false, true, true});  // last run's 2 files remain
  CHECK(dir.entries().empty());

  std::ostringstream text;
  iobench::plugins::tiotest::format_tiobench_text(step, text);
  const std::string report = text.str();
  for (const char* section :
       {"\nSequential Reads\n================\n", "\nRandom Reads\n============\n",
        "\nSequential Writes\n=================\n", "\nRandom Writes\n=============\n"}) {
    CHECK(report.find(section) != std::string::npos);
  }
  // One row per thread count in each section: 4 x 2 rows starting with the identifier.
  std::istringstream lines(report);
  int rows = 0;
  const std::string prefix = "test" + std::string(27, ' ') + "2" + std::string(5, ' ') + "4096";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) ++rows;
  }
  CHECK(rows == 8);
  // Both repetitions are in each row.
  const auto aggregated = iobench::plugins::tiotest::aggregate_sweep(step);
  REQUIRE(aggregated.size() == 2);
  for (const auto& row : aggregated) {
    for (const auto& cell : row.cells) {
      CHECK(cell.runs == 2);
    }
    CHECK(row.cells[0].bytes == 4 * kMiB);
  }
}

TEST_CASE("tiobench timeout skips the runs after one that took longer") {
  iobench::test::TempDir dir("tiobench-timeout");
  const iobench::Registry registry = iobench::test::make_full_registry();
  const auto run = [&](const std::string& timeout) {
    iobench::test::CapturingReporter reporter;
    (void)iobench::Runner(registry, {})
        .run(
            std::vector<Step>{tiobench_step(
                {{"threads", "1,2,4"}, {"sizes", "1m"}, {"random_ops", "16"}, {"timeout", timeout}},
                {dir.path()})},
            reporter);
    REQUIRE(reporter.steps.size() == 1);
    return reporter.steps.front();
  };
  // Every run takes more than 1 ns: the sweep stops after its first run, which is complete.
  const StepResult stopped = run("1ns");
  CHECK(stopped.status == Status::kOk);
  REQUIRE(stopped.phases.size() == 4);
  CHECK(stopped.phases[3].name == "Random Read size=1M bs=4096 threads=1 run=1");
  REQUIRE(stopped.warnings.size() == 1);
  CHECK_THAT(stopped.warnings[0],
             Catch::StartsWith("phases after 'Random Read size=1M bs=4096 threads=1 run=1' "
                               "skipped: run 1 of 3 took ") &&
                 Catch::EndsWith(", more than timeout=1 ns (tiobench --timeout)"));
  const auto rows = iobench::plugins::tiotest::aggregate_sweep(stopped);
  CHECK(rows.size() == 1);
  // No limit (the default) and a generous one run all three.
  CHECK(run("0").phases.size() == 12);
  CHECK(run("1h").phases.size() == 12);
  CHECK(dir.entries().empty());
}

TEST_CASE("tiobench rejects bad sweeps before any I/O") {
  iobench::test::TempDir dir("tiobench-invalid");
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, {});
  const auto message = [&](std::map<std::string, std::string> params) -> std::string {
    const std::vector<Step> steps{tiobench_step(std::move(params), {dir.path()})};
    try {
      runner.validate(steps);
    } catch (const iobench::ConfigError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(message({{"sizes", "1m"}, {"block_sizes", "2m"}}),
             Catch::Contains("sizes: the file of each thread is smaller than one block"));
  CHECK_THAT(message({{"sizes", "32"}}),
             Catch::Contains("tiobench.pl --size read it as MiB; write 32m"));
  CHECK_THAT(message({{"sizes", "1000000b"}}),
             Catch::Contains("1000000 bytes is not a whole number of MiB"));
  CHECK(message({{"sizes", "ram/1024,8m"}}).empty());
  CHECK_THAT(message({{"sizes", "8m"}, {"random_ops", "3"}}),
             Catch::Contains("random_ops: 3 random ops in total give none per thread"));
  CHECK_THAT(message({{"sizes", "8m"}, {"threads", "1,x"}}), Catch::Contains("threads"));
  CHECK(message({{"sizes", "8m"}}).empty());
  CHECK(dir.entries().empty());
}

TEST_CASE("tiobench on a raw target asks for raw_overwrite and offers no skip param") {
  iobench::test::TempDir dir("tiobench-raw");
  const fs::path device = dir.path() / "device.img";
  {
    std::ofstream out(device, std::ios::binary);
    out << std::string(4 * kMiB, '\0');
  }
  const iobench::Registry registry = iobench::test::make_full_registry();
  const iobench::Runner runner(registry, {});
  const auto message = [&](std::map<std::string, std::string> params) -> std::string {
    const std::vector<Step> steps{tiobench_step(std::move(params), {device})};
    try {
      runner.validate(steps);
    } catch (const iobench::ConfigError& e) {
      return e.what();
    }
    return "";
  };
  const std::string refused = message({{"sizes", "2m"}, {"threads", "1"}});
  CHECK_THAT(refused, Catch::Contains("set raw_overwrite=true to allow it"));
  CHECK_THAT(refused, Catch::Contains("use the tiotest workload with raw=true"));
  CHECK_THAT(refused, !Catch::Contains(", or skip="));
  // What the message would have offered is indeed not a tiobench param.
  CHECK_THAT(message({{"sizes", "2m"}, {"threads", "1"}, {"skip", "write,random_write"}}),
             Catch::Contains("unknown parameter 'skip'"));
  CHECK(message({{"sizes", "2m"}, {"threads", "1"}, {"raw_overwrite", "true"}}).empty());
}
