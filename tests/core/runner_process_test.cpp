#include <catch2/catch.hpp>
#include <iobench/runner.hpp>

#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {
RunResult run_processes(test::FakeConfig config) {
  config.phases[0].mode = WorkerMode::kProcesses;
  test::TempDir dir("proc");
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  test::CapturingReporter reporter;
  return Runner(registry, {})
      .run(std::vector<Step>{Step{.workload = "fake", .targets = {dir.path()}}}, reporter);
}
}  // namespace

TEST_CASE("process workers report exact counts through shared memory", "[core][runner]") {
  test::FakeConfig config;
  config.phases[0].workers = 3;
  config.ops = 777;
  const RunResult run = run_processes(config);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.mode == WorkerMode::kProcesses);
  for (const WorkerResult& worker : phase.workers) {
    CHECK(worker.ops.at(0).ops == 777);
    CHECK(worker.ops.at(0).bytes == 777ULL * 4096);
  }
  CHECK(phase.ops.at(0).ops == 3 * 777);
}

TEST_CASE("a worker process that dies fails the phase and names the signal", "[core][runner]") {
  test::FakeConfig config;
  config.behaviour = test::FakeBehaviour::kCrash;
  const RunResult run = run_processes(config);
  REQUIRE(run.status == Status::kFailed);
  CHECK_THAT(run.steps.at(0).message, Catch::Contains("killed by signal 6"));
}
