// The run API a tool uses: a run's own stop token, a run without a reporter, after_phase() seeing
// each phase's result.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/runner.hpp>
#include <iobench/suite.hpp>
#include <stop_token>
#include <thread>

#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

Registry fake_registry(const test::FakeConfig& config) {
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  return registry;
}

// Each phase's workers record `ops` ops; after_phase() notes what it was given.
class PhaseResultProbe final : public Workload {
 public:
  struct Seen {
    std::size_t phase;
    std::string name;
    std::uint64_t ops;
    std::size_t workers;
  };
  explicit PhaseResultProbe(std::vector<Seen>& seen) : seen_(seen) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override {
    return {{.name = "unmeasured", .op_names = {"op"}, .workers = 2, .measured = false},
            {.name = "measured", .op_names = {"op"}, .workers = 3}};
  }
  std::unique_ptr<PhaseWorker> make_worker(std::size_t phase, WorkerContext&) override {
    return std::make_unique<Worker>(phase == 0 ? 7 : 11);
  }
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext&) override {
    seen_.push_back({phase, result.name, result.total_ops(), result.workers.size()});
  }

 private:
  class Worker final : public PhaseWorker {
   public:
    explicit Worker(std::uint64_t ops) : ops_(ops) {}
    void run(WorkerContext& ctx) override {
      for (std::uint64_t i = 0; i < ops_; ++i) ctx.record(0, 1, 1);
    }

   private:
    std::uint64_t ops_;
  };
  std::vector<Seen>& seen_;
};

// Runs `run` with fd 1 redirected to a file; returns what was written there.
template <typename Fn>
std::string stdout_of(Fn&& run) {
  test::TempDir dir("stdout");
  const std::string path = (dir.path() / "out").string();
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(file >= 0);
  ::dup2(file, 1);
  ::close(file);
  run();
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  return test::read_file(path);
}

}  // namespace

TEST_CASE("a run's stop token interrupts that run, not the process", "[core][run_api]") {
  test::TempDir dir("run_api");
  test::FakeConfig config;
  config.behaviour = test::FakeBehaviour::kUntilStopped;
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    config.phases[0].mode = mode;
    const Registry registry = fake_registry(config);
    std::stop_source stop;
    Runner runner(registry, RunOptions{.stop_token = stop.get_token()});
    const std::vector<Step> steps{Step{.workload = "fake", .targets = {dir.path()}},
                                  Step{.workload = "fake", .targets = {dir.path()}}};
    std::jthread stopper([&stop] {
      std::this_thread::sleep_for(100ms);
      stop.request_stop();
    });
    const RunResult run = runner.run(steps);
    stopper.join();
    CHECK_FALSE(stop_requested());  // the process-wide flag was never set
    CHECK(run.status == Status::kInterrupted);
    REQUIRE(run.steps.size() == 1);  // the second step never started
    CHECK(run.steps[0].status == Status::kInterrupted);
    CHECK(run.steps[0].phases.at(0).status == Status::kInterrupted);
    CHECK(run.steps[0].phases.at(0).total_ops() > 0);
    CHECK(dir.entries().empty());
  }
  // Another run with its own (unstopped) token runs to its end.
  test::FakeConfig fixed;
  const Registry registry = fake_registry(fixed);
  const RunResult again =
      Runner(registry, {})
          .run(std::vector<Step>{Step{.workload = "fake", .targets = {dir.path()}}});
  CHECK(again.status == Status::kOk);
  CHECK(again.steps.at(0).phases.at(0).total_ops() == 2 * fixed.ops);
}

TEST_CASE("a suite run stops at its stop token before the next run", "[core][run_api]") {
  test::TempDir dir("run_api");
  test::FakeConfig config;
  const Registry registry = fake_registry(config);
  Suite suite{.name = "s", .source = "test", .targets = {dir.path()}};
  suite.steps.push_back(SuiteStep{.name = "a", .workload = "fake", .repeat = 3});
  std::stop_source stop;
  SuiteRunOptions options{.run = RunOptions{.stop_token = stop.get_token()}, .on_progress = {}};
  const SuitePlan plan = plan_suite(suite, registry, {}, options.run);
  REQUIRE(plan.runs.size() == 3);
  stop.request_stop();
  test::CapturingReporter reporter;
  const SuiteRunResult result = run_suite(plan, registry, options, reporter);
  CHECK(result.run.steps.empty());
  CHECK_FALSE(result.complete);
  CHECK(result.run.status == Status::kInterrupted);
  CHECK_FALSE(stop_requested());
}

TEST_CASE("a run without a reporter prints nothing and returns the results", "[core][run_api]") {
  test::TempDir dir("run_api");
  test::FakeConfig config;
  config.phases[0].workers = 2;
  config.ops = 500;
  const Registry registry = fake_registry(config);
  std::vector<ProgressSnapshot> progress;
  RunResult run;
  const std::string printed = stdout_of([&] {
    run =
        Runner(registry,
               RunOptions{.progress_interval = 1ms,
                          .on_progress = [&](const ProgressSnapshot& p) { progress.push_back(p); }})
            .run(std::vector<Step>{Step{.workload = "fake", .targets = {dir.path()}}});
  });
  CHECK(printed.empty());
  REQUIRE(run.status == Status::kOk);
  REQUIRE(run.steps.size() == 1);
  CHECK(run.steps[0].phases.at(0).total_ops() == 1000);
  CHECK(run.steps[0].phases.at(0).total_bytes() == 1000 * 4096);
  // The step's own set-up and clean-up have no phase; every state change is reported at once.
  REQUIRE(progress.size() >= 3);
  CHECK(progress.front().state == ProgressState::kSetUp);
  CHECK(progress.front().phase_name.empty());
  CHECK(progress.back().state == ProgressState::kCleanUp);
  CHECK(progress.back().phase_name.empty());
  CHECK(std::any_of(progress.begin(), progress.end(), [](const ProgressSnapshot& p) {
    return p.state == ProgressState::kMeasuring && p.state_changed && p.phase_name == "fake";
  }));
  for (const ProgressSnapshot& p : progress) {
    CHECK(p.step_name == "fake");
    if (!p.phase_name.empty()) CHECK(p.phase_name == "fake");
    CHECK(p.ops <= 1000);
    // Each running worker's own counters, summing to the phase's; none outside a phase.
    if (p.phase_name.empty()) {
      CHECK(p.worker_progress.empty());
      continue;
    }
    REQUIRE(p.worker_progress.size() == 2);
    CHECK(p.worker_progress[0].worker == 0);
    CHECK(p.worker_progress[1].worker == 1);
    CHECK(p.worker_progress[0].bytes + p.worker_progress[1].bytes == p.bytes);
    CHECK(p.worker_progress[0].ops + p.worker_progress[1].ops == p.ops);
  }
  // At the phase's clean-up both workers have ended with their 500 ops each.
  const auto cleanup =
      std::find_if(progress.begin(), progress.end(), [](const ProgressSnapshot& p) {
        return p.state == ProgressState::kCleanUp && p.phase_name == "fake";
      });
  REQUIRE(cleanup != progress.end());
  for (const WorkerProgress& w : cleanup->worker_progress) {
    CHECK(w.ended);
    CHECK(w.ops == 500);
    CHECK(w.bytes == 500 * 4096);
  }
}

TEST_CASE("after_phase gets each phase's result, measured or not", "[core][run_api]") {
  test::TempDir dir("run_api");
  std::vector<PhaseResultProbe::Seen> seen;
  Registry registry;
  register_builtins(registry);
  registry.add_workload(WorkloadInfo{
      .name = "probe", .summary = "test", .params = {}, .factory = [&seen](const WorkloadSetup&) {
        return std::make_unique<PhaseResultProbe>(seen);
      }});
  const RunResult run =
      Runner(registry, {})
          .run(std::vector<Step>{Step{.workload = "probe", .targets = {dir.path()}}});
  REQUIRE(run.status == Status::kOk);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].phase == 0);
  CHECK(seen[0].name == "unmeasured");
  CHECK(seen[0].ops == 2 * 7);
  CHECK(seen[0].workers == 2);
  CHECK(seen[1].phase == 1);
  CHECK(seen[1].name == "measured");
  CHECK(seen[1].ops == 3 * 11);
  CHECK(seen[1].workers == 3);
  REQUIRE(run.steps.at(0).phases.size() == 1);  // only the measured one is reported
  CHECK(run.steps[0].phases[0].total_ops() == 3 * 11);
}

TEST_CASE("a timed phase followed by an untimed clean-up still has a step ETA",
          "[core][run_api][progress]") {
  // dbench's shape: a timed measured phase, then an unmeasured one without a time limit.
  test::TempDir dir("run_api");
  test::FakeConfig config;
  config.phases = {
      PhaseSpec{.name = "execute", .op_names = {"op"}, .workers = 1},
      PhaseSpec{.name = "cleanup", .op_names = {"op"}, .workers = 1, .measured = false}};
  config.ops = 10;
  const Registry registry = fake_registry(config);
  std::vector<ProgressSnapshot> progress;
  const RunResult run =
      Runner(registry,
             RunOptions{.progress_interval = 1ms,
                        .on_progress = [&](const ProgressSnapshot& p) { progress.push_back(p); }})
          .run(std::vector<Step>{
              Step{.workload = "fake", .targets = {dir.path()}, .time_limit = 10s}});
  REQUIRE(run.status == Status::kOk);
  // The step's set-up knows the whole step: the 10 s limit, the clean-up counting 0.
  REQUIRE(!progress.empty());
  CHECK(progress.front().state == ProgressState::kSetUp);
  CHECK(progress.front().step_left_ns == std::optional<std::uint64_t>(10'000'000'000));
  bool measuring_seen = false;
  for (const ProgressSnapshot& p : progress) {
    if (p.phase_name != "execute" || p.state != ProgressState::kMeasuring) continue;
    measuring_seen = true;
    CHECK(p.step_left_ns.has_value());
  }
  CHECK(measuring_seen);
}
