// Stop requests are seen during untimed set-up, and a second one hurries the end: worker
// processes stuck in an op are killed instead of awaited; either way results and clean-up stay.
#include <catch2/catch.hpp>
#include <chrono>
#include <iobench/runner.hpp>
#include <thread>

#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

struct TimedRun {
  RunResult run;
  std::chrono::milliseconds took{0};  // from the first stop request to the end of the run
};

// Runs the fake workload, sending `requests` stop requests 150 ms apart after `after`.
TimedRun run_stopped(const test::FakeConfig& config, int requests,
                     std::chrono::milliseconds after = 150ms) {
  test::TempDir dir("stop");
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  test::CapturingReporter reporter;
  clear_stop_request();
  std::chrono::steady_clock::time_point first_request;
  std::thread stopper([&] {
    std::this_thread::sleep_for(after);
    first_request = std::chrono::steady_clock::now();
    for (int i = 0; i < requests; ++i) {
      if (i > 0) std::this_thread::sleep_for(150ms);
      request_stop();
    }
  });
  TimedRun out;
  out.run =
      Runner(registry, {})
          .run(std::vector<Step>{Step{.workload = "fake", .targets = {dir.path()}}}, reporter);
  const auto end = std::chrono::steady_clock::now();
  stopper.join();
  clear_stop_request();
  out.took = std::chrono::duration_cast<std::chrono::milliseconds>(end - first_request);
  CHECK(dir.entries().empty());
  return out;
}

}  // namespace

TEST_CASE("a stop is seen by workers still in their untimed set-up", "[core][stop]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    test::FakeConfig config;
    config.phases[0].mode = mode;
    config.phases[0].workers = 3;
    config.setup_until_stopped = 20s;  // a set-up that ends only when it sees the stop
    const TimedRun timed = run_stopped(config, 1);
    INFO("mode " << static_cast<int>(mode) << ": ended " << timed.took.count()
                 << " ms after the stop request");
    // Without the stop reaching make_worker() the run would take the set-up's 20 s.
    CHECK(timed.took < 10s);
    REQUIRE(timed.run.steps.size() == 1);
    const StepResult& step = timed.run.steps[0];
    CHECK(step.status == Status::kInterrupted);
    REQUIRE(step.phases.size() == 1);
    CHECK(step.phases[0].status == Status::kInterrupted);
    CHECK(
        step.phases[0].message ==
        "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) before the measurement started: no "
        "measured ops");
    for (const WorkerResult& worker : step.phases[0].workers) {
      CHECK(worker.status == Status::kInterrupted);
      CHECK(worker.total_ops() == 0);
    }
  }
}

TEST_CASE("a second stop request kills worker processes stuck in an op, results kept",
          "[core][stop]") {
  test::FakeConfig config;
  config.phases[0].mode = WorkerMode::kProcesses;
  config.behaviour = test::FakeBehaviour::kUntilStopped;
  config.op_sleep = 30s;  // deaf to the first request for 30 s
  const TimedRun timed = run_stopped(config, 2, 300ms);
  INFO("ended " << timed.took.count() << " ms after the first stop request");
  CHECK(timed.took < 10s);
  REQUIRE(timed.run.steps.size() == 1);
  const StepResult& step = timed.run.steps[0];
  CHECK(step.status == Status::kInterrupted);  // not failed: the kill was asked for
  REQUIRE(step.phases.size() == 1);
  for (const WorkerResult& worker : step.phases[0].workers) {
    CHECK(worker.status == Status::kInterrupted);
    CHECK_THAT(worker.message, Catch::StartsWith("worker process killed on a second stop"));
  }
}

TEST_CASE("a single stop request lets worker processes finish their op", "[core][stop]") {
  test::FakeConfig config;
  config.phases[0].mode = WorkerMode::kProcesses;
  config.behaviour = test::FakeBehaviour::kUntilStopped;
  config.op_sleep = 400ms;
  const TimedRun timed = run_stopped(config, 1, 200ms);
  REQUIRE(timed.run.steps.size() == 1);
  const PhaseResult& phase = timed.run.steps[0].phases.at(0);
  CHECK(phase.status == Status::kInterrupted);
  for (const WorkerResult& worker : phase.workers) {
    CHECK(worker.status == Status::kInterrupted);
    CHECK(worker.message.empty());
    CHECK(worker.total_ops() == 1);  // the op under way when the stop came was completed
  }
}

TEST_CASE("a stop during a factory's long set-up ends the run interrupted with no step",
          "[core][stop]") {
  test::FakeConfig config;
  config.factory_until_stopped = 20s;  // a loadfile parse that ends only when it sees the stop
  const TimedRun timed = run_stopped(config, 1);
  INFO("ended " << timed.took.count() << " ms after the stop request");
  // Without the factory seeing the stop, validation would take its 20 s.
  CHECK(timed.took < 10s);
  CHECK(timed.run.status == Status::kInterrupted);
  CHECK(timed.run.steps.empty());
}

TEST_CASE("a run's own stop token reaches a factory's set-up, and validate() returns",
          "[core][stop]") {
  test::FakeConfig config;
  config.factory_until_stopped = 5s;  // each of the three calls below would wait this long
  test::TempDir dir("stop-token");
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  clear_stop_request();
  std::stop_source source;
  RunOptions options;
  options.stop_token = source.get_token();
  Runner runner(registry, options);
  const std::vector<Step> steps{Step{.workload = "fake", .targets = {dir.path()}}};
  source.request_stop();  // before validation: the factory's first check sees it
  CHECK_NOTHROW(runner.validate(steps));
  CHECK(runner.preview(steps).empty());
  test::CapturingReporter reporter;
  const RunResult run = runner.run(steps, reporter);
  CHECK(run.status == Status::kInterrupted);
  CHECK(run.steps.empty());
  CHECK(reporter.ended);
  CHECK(reporter.final_run.status == Status::kInterrupted);
  CHECK(dir.entries().empty());
  CHECK_FALSE(stop_requested());  // the process-wide request was never made
}

TEST_CASE("InterruptedError without a stop request is the step's validation error",
          "[core][stop]") {
  test::TempDir dir("stop-mistake");
  Registry registry;
  register_builtins(registry);
  registry.add_workload(
      WorkloadInfo{.name = "interrupts",
                   .summary = "a factory that throws InterruptedError on its own",
                   .params = {},
                   .factory = [](const WorkloadSetup&) -> std::unique_ptr<Workload> {
                     throw InterruptedError("parse cut short");
                   }});
  clear_stop_request();
  Runner runner(registry, {});
  const std::vector<Step> steps{Step{.workload = "interrupts", .targets = {dir.path()}}};
  // Not a stop: a run of nothing that ends "ok" would hide the plugin's mistake.
  CHECK_THROWS_MATCHES(
      runner.run(steps), ConfigError,
      Catch::Message("workload 'interrupts' was interrupted without a stop request: parse cut "
                     "short"));
  CHECK(dir.entries().empty());
}
