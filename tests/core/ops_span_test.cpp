// A phase its workers time by their ops (WorkerContext::time_phase_by_ops(), mdtest's timing):
// its wall time is the workers' first op's start to their last op's end, exactly, without the
// runner's start-up of the workers or the untimed work around the ops; a worker that did no op
// counts in no window; a phase whose workers never call it keeps the runner's window.
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <iobench/runner.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

// Runs `step` of the test double W (default-constructed), registered as step.workload beside the
// built-in workloads; the run must end ok.
template <class W>
RunResult run_double(const Step& step) {
  Registry registry;
  register_builtins(registry);
  registry.add_workload(
      WorkloadInfo{.name = step.workload,
                   .summary = "test double",
                   .params = {},
                   .factory = [](const WorkloadSetup&) -> std::unique_ptr<Workload> {
                     return std::make_unique<W>();
                   }});
  test::CapturingReporter reporter;
  RunResult run = Runner(registry, {}).run(std::vector<Step>{step}, reporter);
  REQUIRE(run.status == Status::kOk);
  return run;
}

// What each worker (threads) reported, per phase: its first op's start and last op's end.
struct Span {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};
std::array<std::array<Span, 2>, 3> g_spans{};

// Phase 0: both workers report their span; phase 1: worker 1 does no op and reports 0, 0;
// phase 2: no worker reports (the runner's window). Each worker sleeps untimed 20 ms before its
// first op and 10 ms after its last (worker 1 5 ms less before), does 3 ops of 1 ms.
class SpanWorker final : public PhaseWorker {
 public:
  SpanWorker(std::size_t phase, std::size_t worker) : phase_(phase), worker_(worker) {}
  void run(WorkerContext& ctx) override {
    std::this_thread::sleep_for(worker_ == 0 ? 20ms : 15ms);
    const bool idle = phase_ == 1 && worker_ == 1;
    const std::uint64_t start = monotonic_ns();
    std::uint64_t last = start;
    for (int i = 0; i < 3 && !idle && ctx.keep_going(); ++i) {
      std::this_thread::sleep_for(1ms);
      const std::uint64_t now = monotonic_ns();
      ctx.record(0, 0, now - last, now);
      last = now;
    }
    std::this_thread::sleep_for(10ms);
    if (phase_ == 2) return;
    g_spans[phase_][worker_] = idle ? Span{} : Span{start, last};
    ctx.time_phase_by_ops(idle ? 0 : start, idle ? 0 : last);
  }

 private:
  std::size_t phase_;
  std::size_t worker_;
};

class SpanWorkload final : public Workload {
 public:
  [[nodiscard]] std::vector<PhaseSpec> phases() const override {
    std::vector<PhaseSpec> specs;
    for (const char* name : {"both", "one idle", "runner"}) {
      specs.push_back(PhaseSpec{.name = name, .op_names = {"op"}, .workers = 2});
    }
    return specs;
  }
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override {
    return std::make_unique<SpanWorker>(phase, ctx.worker_index());
  }
};

}  // namespace

TEST_CASE("time_phase_by_ops: wall time is the workers' first op's start to their last op's end",
          "[core][ops-span]") {
  test::TempDir dir("ops_span");
  const RunResult run = run_double<SpanWorkload>(Step{.workload = "span", .targets = {dir.path()}});
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.phases.size() == 3);

  const auto& both = g_spans[0];
  const std::uint64_t first = std::min(both[0].start_ns, both[1].start_ns);
  CHECK(step.phases[0].wall_ns == std::max(both[0].end_ns, both[1].end_ns) - first);
  CHECK(step.phases[0].stonewall_ns == std::min(both[0].end_ns, both[1].end_ns) - first);
  CHECK(step.phases[0].total_ops() == 6);
  // Each worker's own time is its own span (not its run(), 30 ms longer with the sleeps), and
  // its CPU at most that.
  for (std::size_t w = 0; w < 2; ++w) {
    const WorkerResult& worker = step.phases[0].workers.at(w);
    CHECK(worker.elapsed_ns == both[w].end_ns - both[w].start_ns);
    CHECK(worker.elapsed_ns <= step.phases[0].wall_ns);
    CHECK(worker.cpu.user_ns + worker.cpu.system_ns <= worker.elapsed_ns);
  }

  // The idle worker counts in no window: the phase is worker 0's ops alone.
  CHECK(g_spans[1][1].end_ns == 0);
  CHECK(step.phases[1].wall_ns == g_spans[1][0].end_ns - g_spans[1][0].start_ns);
  CHECK(step.phases[1].stonewall_ns == step.phases[1].wall_ns);
  CHECK(step.phases[1].workers.at(0).elapsed_ns == step.phases[1].wall_ns);
  CHECK(step.phases[1].workers.at(1).elapsed_ns == 0);
  CHECK(step.phases[1].workers.at(1).cpu.user_ns + step.phases[1].workers.at(1).cpu.system_ns == 0);

  // Without the call: the runner's window, from its release to the last worker's end, which
  // holds every worker's whole run.
  for (const WorkerResult& w : step.phases[2].workers)
    CHECK(step.phases[2].wall_ns >= w.elapsed_ns);
}

namespace {

// The warm-up test's one worker: its first op's start, the measurement's start as it saw it
// (WorkerContext::recording_start_ns() once measuring), its last op's end.
struct WarmSpan {
  std::uint64_t first_op_ns = 0;
  std::uint64_t warmup_start_ns = 0;
  std::uint64_t measure_start_ns = 0;
  std::uint64_t last_end_ns = 0;
};
WarmSpan g_warm{};

// Ops of 1 ms from the warm-up on, until the op limit ends the measurement; the span it reports
// begins at its first op, in the warm-up.
class WarmSpanWorker final : public PhaseWorker {
 public:
  void run(WorkerContext& ctx) override {
    g_warm.warmup_start_ns = ctx.recording_start_ns();
    g_warm.first_op_ns = monotonic_ns();
    std::uint64_t last = g_warm.first_op_ns;
    while (ctx.keep_going()) {
      std::this_thread::sleep_for(1ms);
      const std::uint64_t now = monotonic_ns();
      ctx.record(0, 0, now - std::max(last, ctx.recording_start_ns()), now);
      last = now;
    }
    g_warm.measure_start_ns = ctx.recording_start_ns();
    g_warm.last_end_ns = last;
    ctx.time_phase_by_ops(g_warm.first_op_ns, last);
  }
};

class WarmSpanWorkload final : public Workload {
 public:
  [[nodiscard]] std::vector<PhaseSpec> phases() const override {
    return {PhaseSpec{.name = "warm", .op_names = {"op"}, .workers = 1}};
  }
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t, WorkerContext&) override {
    return std::make_unique<WarmSpanWorker>();
  }
};

}  // namespace

TEST_CASE("time_phase_by_ops: a first op begun in the warm-up counts from the measurement's start",
          "[core][ops-span]") {
  test::TempDir dir("ops_span_warm");
  const RunResult run = run_double<WarmSpanWorkload>(
      Step{.workload = "warmspan", .targets = {dir.path()}, .warmup = 50ms, .ops_limit = 3});
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.total_ops() == 3);
  // Measured from the measurement's start as the worker saw it, to its last op's end.
  CHECK(phase.wall_ns == g_warm.last_end_ns - g_warm.measure_start_ns);
  CHECK(phase.workers.at(0).elapsed_ns == phase.wall_ns);
  // The three measured ops are back to back from there: their latencies add up to it.
  CHECK(phase.ops.at(0).latency.sum() == phase.wall_ns);
  if (g_warm.warmup_start_ns == g_warm.measure_start_ns) {
    // The thread woke after the warm-up had ended (a loaded machine): its first op was measured.
    WARN("skipped the warm-up case: the worker began after the 50 ms warm-up");
  } else {
    CHECK(g_warm.first_op_ns < g_warm.measure_start_ns);
    CHECK(phase.wall_ns < g_warm.last_end_ns - g_warm.first_op_ns);
  }
}
