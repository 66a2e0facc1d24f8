// A phase that ends inside its warm-up measured nothing: it says so (status no_measurement, no
// ops, the reason), instead of passing its discarded warm-up off as its result.
#include <catch2/catch.hpp>
#include <iobench/runner.hpp>
#include <thread>

#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

RunResult run_fake(const test::FakeConfig& config, Step step) {
  test::TempDir dir("warmup");
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  test::CapturingReporter reporter;
  step.workload = "fake";
  step.targets = {dir.path()};
  RunResult run = Runner(registry, {}).run(std::vector<Step>{step}, reporter);
  CHECK(dir.entries().empty());
  return run;
}

void check_nothing_measured(const PhaseResult& phase) {
  CHECK(phase.total_ops() == 0);
  CHECK(phase.total_bytes() == 0);
  CHECK(phase.wall_ns == 0);
  CHECK(phase.process_cpu.user_ns + phase.process_cpu.system_ns == 0);
  for (const WorkerResult& worker : phase.workers) {
    CHECK(worker.total_ops() == 0);
    CHECK(worker.elapsed_ns == 0);
    CHECK(worker.ops.at(0).latency.count() == 0);
  }
}

}  // namespace

TEST_CASE("a phase that ends inside its warm-up reports no measured ops and why",
          "[core][warmup]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    test::FakeConfig config;
    config.ops = 50;  // done in microseconds
    config.phases[0].mode = mode;
    config.phases[0].warmup = 5s;
    // A second phase without warm-up still runs and measures.
    config.phases.push_back(PhaseSpec{.name = "after", .op_names = {"op"}, .workers = 2});
    const RunResult run = run_fake(config, Step{});
    REQUIRE(run.steps.size() == 1);
    const StepResult& step = run.steps[0];
    CHECK(run.status == Status::kNoMeasurement);
    CHECK(step.status == Status::kNoMeasurement);
    CHECK_THAT(step.message, Catch::StartsWith("phase 'fake': ended ") &&
                                 Catch::Contains("into its 5.00 s warm-up, so it has no measured "
                                                 "ops"));
    REQUIRE(step.phases.size() == 2);
    CHECK(step.phases[0].status == Status::kNoMeasurement);
    check_nothing_measured(step.phases[0]);
    for (const WorkerResult& worker : step.phases[0].workers) {
      CHECK(worker.status == Status::kNoMeasurement);
    }
    CHECK(step.phases[1].status == Status::kOk);
    CHECK(step.phases[1].total_ops() == 2 * 50);
  }
}

TEST_CASE("a worker that ends inside the warm-up is left out and named in a warning",
          "[core][warmup]") {
  test::FakeConfig config;
  config.behaviour = test::FakeBehaviour::kFirstQuits;
  config.ops = 10;
  const RunResult run = run_fake(config, Step{.time_limit = 50ms, .warmup = 100ms});
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.status == Status::kOk);
  const PhaseResult& phase = step.phases.at(0);
  CHECK(phase.status == Status::kOk);
  const WorkerResult& quitter = phase.workers.at(0);
  CHECK(quitter.status == Status::kNoMeasurement);
  CHECK(quitter.total_ops() == 0);
  CHECK(quitter.elapsed_ns == 0);
  // The phase's figures are the measured worker's alone.
  CHECK(phase.total_ops() == phase.workers.at(1).total_ops());
  CHECK(phase.workers.at(1).total_ops() > 0);
  CHECK(phase.stonewall_ns == phase.wall_ns);
  REQUIRE(step.warnings.size() == 1);
  CHECK_THAT(step.warnings[0],
             Catch::StartsWith("phase 'fake': worker 0 ended ") &&
                 Catch::Contains("into its 100 ms warm-up: none of its ops are measured"));
}

TEST_CASE("a stop during the warm-up is an interruption with no measured ops", "[core][warmup]") {
  test::FakeConfig config;
  config.behaviour = test::FakeBehaviour::kUntilStopped;
  clear_stop_request();
  std::thread stopper([] {
    std::this_thread::sleep_for(100ms);
    request_stop();
  });
  const RunResult run = run_fake(config, Step{.warmup = 10s});
  stopper.join();
  clear_stop_request();
  CHECK(run.status == Status::kInterrupted);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.status == Status::kInterrupted);
  CHECK(
      phase.message ==
      "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) during the warm-up: no measured ops");
  check_nothing_measured(phase);
}

TEST_CASE("an op limit counts measured ops only, not the warm-up's", "[core][warmup]") {
  test::FakeConfig config;
  config.behaviour = test::FakeBehaviour::kUntilStopped;
  const RunResult run = run_fake(config, Step{.warmup = 50ms, .ops_limit = 300});
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  REQUIRE(phase.status == Status::kOk);
  for (const WorkerResult& worker : phase.workers) CHECK(worker.total_ops() == 300);
}
