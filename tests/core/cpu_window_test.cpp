// CPU figures are measured over exactly the measured window: untimed set-up, warm-up and
// tear-down are not in them, so no figure can exceed wall time x online CPUs.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <iobench/runner.hpp>

#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

std::uint64_t total(const CpuTimes& cpu) { return cpu.user_ns + cpu.system_ns; }

// The most CPU time `threads` can use in `wall_ns` of wall time, with the accounting's
// granularity: CPU totals come from the CPU-time clocks (exact to the ns); the wall clock and
// the scheduler's clock may run apart by NTP's slew (at most 500 ppm), and readings are a few
// us apart.
std::uint64_t most_cpu(std::uint64_t wall_ns, std::uint64_t threads) {
  const std::uint64_t ideal = wall_ns * threads;
  return ideal + ideal / 1000 + 5'000;
}

unsigned online_cpus() { return static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN)); }

void check_cpu_within_window(const PhaseResult& phase) {
  INFO("phase " << phase.name << ": wall " << phase.wall_ns << " ns, process cpu "
                << total(phase.process_cpu) << " ns, workers cpu " << total(phase.workers_cpu));
  CHECK(total(phase.process_cpu) <= most_cpu(phase.wall_ns, online_cpus()));
  CHECK(total(phase.workers_cpu) <= total(phase.process_cpu));
  CHECK(phase.system_busy_percent <= 100.0);
  for (const WorkerResult& worker : phase.workers) {
    INFO("worker " << worker.index << ": elapsed " << worker.elapsed_ns << " ns, cpu "
                   << total(worker.cpu));
    // Every worker is one thread, or a single-threaded process.
    CHECK(total(worker.cpu) <= most_cpu(worker.elapsed_ns, 1));
    CHECK(worker.elapsed_ns <= phase.wall_ns);
  }
}

const PhaseResult& run_one_phase(const test::FakeConfig& config, Step step, RunResult& keep) {
  test::TempDir dir("cpu");
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  test::CapturingReporter reporter;
  step.workload = "fake";
  step.targets = {dir.path()};
  keep = Runner(registry, {}).run(std::vector<Step>{step}, reporter);
  REQUIRE(keep.steps.size() == 1);
  REQUIRE(keep.steps[0].phases.size() == 1);
  return keep.steps[0].phases[0];
}

}  // namespace

TEST_CASE("CPU burnt in untimed set-up is not in a short phase's CPU", "[core][cpu]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    test::FakeConfig config;
    config.phases[0].mode = mode;
    config.setup_cpu = 150ms;  // per worker, in make_worker()
    config.ops = 10;
    RunResult run;
    const PhaseResult& phase = run_one_phase(config, Step{}, run);
    REQUIRE(phase.status == Status::kOk);
    // Two workers burnt 300 ms before the barrier; the phase itself lasts microseconds.
    CHECK(phase.wall_ns < 150'000'000ULL);
    check_cpu_within_window(phase);
  }
}

TEST_CASE("CPU used during warm-up is not in the phase's CPU", "[core][cpu]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    test::FakeConfig config;
    config.phases[0].mode = mode;
    config.behaviour = test::FakeBehaviour::kUntilStopped;
    config.op_cpu = 200us;
    RunResult run;
    // Two workers spin through 300 ms of warm-up, then do exactly 20 measured ops of 200 us of
    // CPU each: the measured window is a few ms, however loaded the machine is.
    const PhaseResult& phase = run_one_phase(config, Step{.warmup = 300ms, .ops_limit = 20}, run);
    REQUIRE(phase.status == Status::kOk);
    check_cpu_within_window(phase);
    for (const WorkerResult& worker : phase.workers) {
      REQUIRE(worker.ops.at(0).ops == 20);
      // What the worker really burnt in its window: every op but the first (which may have
      // begun in the warm-up) spun 200 us of CPU inside it.
      CHECK(total(worker.cpu) >= 19 * 200'000ULL);
    }
  }
}

TEST_CASE("a tiny phase after a CPU-heavy set-up stays within its window", "[core][cpu]") {
  test::FakeConfig config;
  config.setup_cpu = 30ms;
  config.ops = 1;
  RunResult run;
  const PhaseResult& phase = run_one_phase(config, Step{}, run);
  REQUIRE(phase.status == Status::kOk);
  check_cpu_within_window(phase);
}

TEST_CASE("a serial phase counts each worker's own window, not the others' set-up", "[core][cpu]") {
  test::FakeConfig config;
  config.phases[0].serial = true;
  config.phases[0].workers = 3;
  config.setup_cpu = 100ms;
  config.ops = 20;
  config.op_cpu = 100us;
  RunResult run;
  const PhaseResult& phase = run_one_phase(config, Step{}, run);
  REQUIRE(phase.status == Status::kOk);
  check_cpu_within_window(phase);
  for (const WorkerResult& worker : phase.workers) {
    CHECK(total(worker.cpu) >= 19 * 100'000ULL);  // 20 ops of 100 us, the first maybe outside
  }
}
