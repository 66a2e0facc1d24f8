// IOR's wear-out (RunOptions::wear_out) in one process: at the time limit every worker goes on
// until it has done as many ops as the most had then (the target, reported): every worker ends
// at or just past it. Refused without a time limit
// and beside stonewalling, before any I/O.
#include <catch2/catch.hpp>
#include <chrono>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <string>
#include <variant>
#include <vector>

#include "tests/support/test_support.hpp"

using iobench::ConfigError;
using iobench::Runner;
using iobench::RunOptions;
using iobench::RunResult;
using iobench::Status;
using iobench::Step;

namespace {

// Three workers of the null engine (more than the 2 CPUs here, so they do not keep pace), reading
// a working set they cannot finish, for `limit`.
Step wear_out_step(const iobench::test::TempDir& dir, std::chrono::nanoseconds limit) {
  return Step{.workload = "disk",
              .params = {{"engine", "null"},
                         {"operation", "read"},
                         {"seek", "random"},
                         {"random_order", "uniform"},
                         {"size", "1t"},
                         {"bs", "4k"}},
              .targets = {dir.path(), dir.path(), dir.path()},
              .time_limit = limit};
}

}  // namespace

TEST_CASE("wear-out: at the time limit every worker goes on to the most ops any had done",
          "[core][wear-out]") {
  iobench::test::TempDir dir("wearout");
  iobench::test::CapturingReporter reporter;
  const auto limit = std::chrono::milliseconds(200);
  const RunResult run = Runner(iobench::test::shared_full_registry(), RunOptions{.wear_out = true})
                            .run(std::vector<Step>{wear_out_step(dir, limit)}, reporter);
  REQUIRE(run.status == Status::kOk);
  const auto& step = run.steps.at(0);
  const auto* target = step.attribute("wear_out_ops.read");
  REQUIRE(target != nullptr);
  const auto most = static_cast<std::uint64_t>(std::get<std::int64_t>(*target));
  const auto& phase = step.phases.at(0);
  REQUIRE(phase.workers.size() == 3);
  std::uint64_t fewest = UINT64_MAX;
  for (const auto& worker : phase.workers) {
    CHECK(worker.ops.at(0).ops >= most);
    fewest = std::min(fewest, worker.ops.at(0).ops);
  }
  // The slowest went on to the target: exactly there, unless it passed it in the moment the
  // runner took to publish it.
  CHECK(fewest <= most + most / 100);
  CHECK(phase.wall_ns >= static_cast<std::uint64_t>(limit.count()));
}

TEST_CASE("wear-out is refused without a time limit and beside stonewalling", "[core][wear-out]") {
  iobench::test::TempDir dir("wearout");
  iobench::test::CapturingReporter reporter;
  const auto& registry = iobench::test::shared_full_registry();
  CHECK_THROWS_WITH(
      Runner(registry, RunOptions{.wear_out = true})
          .run(std::vector<Step>{wear_out_step(dir, std::chrono::nanoseconds(0))}, reporter),
      Catch::Contains("--wear-out") && Catch::Contains("give --time"));
  CHECK_THROWS_AS(
      Runner(registry, RunOptions{.stonewall = true, .wear_out = true})
          .run(std::vector<Step>{wear_out_step(dir, std::chrono::seconds(1))}, reporter),
      ConfigError);
  CHECK(iobench::test::TempDir::list(dir.path()).empty());
}
