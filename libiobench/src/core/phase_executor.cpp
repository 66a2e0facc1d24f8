#include "core/phase_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/format.hpp>
#include <iobench/runner.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/group_run.hpp"
#include "core/phase_memory.hpp"
#include "core/series_recorder.hpp"

namespace iobench::detail {
namespace {

CpuTimes operator+(const CpuTimes& a, const CpuTimes& b) noexcept {
  return {a.user_ns + b.user_ns, a.system_ns + b.system_ns};
}

// `cpu` cut down to at most `limit_ns` in all, user and system in their proportion.
CpuTimes at_most(const CpuTimes& cpu, std::uint64_t limit_ns) noexcept {
  const std::uint64_t total = cpu.user_ns + cpu.system_ns;
  if (total <= limit_ns) return cpu;
  const auto user = static_cast<std::uint64_t>(static_cast<long double>(cpu.user_ns) * limit_ns /
                                               static_cast<long double>(total));
  return {user, limit_ns - user};
}

// The runner's CPU time inside a window from `window_start_ns` to `window_end_ns`. Its readings
// come from the measurement's start (before a window of a phase timed by its ops opens) to a
// little after the window (it wakes up when the last worker ends); a thread uses at most the
// wall time that passed, so that much is taken off, keeping the figure a lower bound of what it
// used in the window and every sum of CPU times within wall time x CPUs.
CpuTimes runner_cpu_in_window(const GroupOutcome& outcome, std::uint64_t window_start_ns,
                              std::uint64_t window_end_ns) noexcept {
  const CpuTimes cpu = cpu_between(outcome.runner_start, outcome.runner_end);
  const std::uint64_t total = cpu.user_ns + cpu.system_ns;
  const std::uint64_t late =
      outcome.runner_end_ns > window_end_ns ? outcome.runner_end_ns - window_end_ns : 0;
  const std::uint64_t early =
      window_start_ns > outcome.measure_start_ns ? window_start_ns - outcome.measure_start_ns : 0;
  if (late + early >= total) return {};
  return at_most(cpu, total - late - early);
}

// A worker's span in a phase timed by its ops (WorkerContext::time_phase_by_ops()): from its
// first op's start, or the measurement's start as the worker saw it if that is later (an op
// begun in the warm-up), to its last op's end. The phase's window (group_window()) and the
// worker's own elapsed time and CPU cap (copy_out_worker()) both take it from here.
struct OpsSpan {
  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0;
};

// nullopt: the worker did not time by its ops, reported no op (0, 0), or no op after the
// measurement's start.
std::optional<OpsSpan> ops_span(const WorkerSlot& slot) noexcept {
  if (slot.ops_span_reported == 0 || slot.ops_last_end_ns == 0) return std::nullopt;
  const std::uint64_t begin = std::max(slot.ops_first_start_ns, slot.start_ns);
  // Every op ended before the measurement began (warm-up ops, then a failure): no span, so that
  // it does not pull the window's first end (stonewall_ns) to its start.
  if (slot.ops_last_end_ns <= begin) return std::nullopt;
  return OpsSpan{.begin_ns = begin, .end_ns = slot.ops_last_end_ns};
}

// What the phase's groups add up to.
struct GroupTotals {
  std::uint64_t wall_ns = 0;
  std::uint64_t stonewall_ns = UINT64_MAX;
  CpuTimes runner_cpu;
  SystemCpuSample system_busy;  // summed over the groups' windows
  bool interrupted = false;
  std::string peer_problem;
  std::uint64_t first_measure_ns = 0;         // the phase's window's start (PhaseWindow::start_ns)
  std::uint64_t first_runner_measure_ns = 0;  // the runner's (PhaseWindow::measure_start_ns)
  std::uint64_t wear_out_ops = 0;
  std::optional<SteadyStateResult> steady;  // the last measured group's
};

// A measured group's window: from the runner's measurement start to its last measured worker's
// end, or, when a worker timed the phase by its ops (WorkerContext::time_phase_by_ops()), from
// the earliest first op's start to the latest last op's end of the workers that gave a span
// (start 0: none did, the group measured no op). `first_end` is the first such worker's end.
struct GroupWindow {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t first_end_ns = UINT64_MAX;
};

GroupWindow group_window(const PhaseMemory& memory, std::size_t first, std::size_t count,
                         const GroupOutcome& outcome) {
  bool by_ops = false;
  for (std::size_t i = first; i < first + count; ++i)
    by_ops = by_ops || memory.slot(i)->ops_span_reported != 0;
  GroupWindow window;
  if (!by_ops) {
    window.start_ns = outcome.measure_start_ns;
    window.end_ns = outcome.measure_start_ns;
    for (std::size_t i = first; i < first + count; ++i) {
      const WorkerSlot& slot = *memory.slot(i);
      if (!measured(slot)) continue;
      const std::uint64_t end = std::max(slot.end_ns, outcome.measure_start_ns);
      window.end_ns = std::max(window.end_ns, end);
      window.first_end_ns = std::min(window.first_end_ns, end);
    }
    return window;
  }
  std::uint64_t start = UINT64_MAX;
  for (std::size_t i = first; i < first + count; ++i) {
    const WorkerSlot& slot = *memory.slot(i);
    const std::optional<OpsSpan> span = measured(slot) ? ops_span(slot) : std::nullopt;
    if (!span) continue;
    start = std::min(start, span->begin_ns);
    window.end_ns = std::max(window.end_ns, span->end_ns);
    window.first_end_ns = std::min(window.first_end_ns, span->end_ns);
  }
  if (start == UINT64_MAX) return GroupWindow{};
  window.start_ns = start;
  return window;
}

// Adds a measured group's window to `totals`: its wall time (group_window()), the first
// worker's end (stonewall), the runner's CPU and /proc/stat's busy ticks.
void add_measured_group(const GroupWindow& window, const GroupOutcome& outcome,
                        GroupTotals& totals) {
  if (window.start_ns != 0 && window.first_end_ns != UINT64_MAX) {
    totals.stonewall_ns =
        std::min(totals.stonewall_ns, totals.wall_ns + (window.first_end_ns - window.start_ns));
  }
  if (window.start_ns != 0) totals.wall_ns += window.end_ns - window.start_ns;
  const std::uint64_t group_start =
      window.start_ns != 0 ? window.start_ns : outcome.measure_start_ns;
  const std::uint64_t group_end = window.start_ns != 0 ? window.end_ns : outcome.measure_start_ns;
  totals.runner_cpu = totals.runner_cpu + runner_cpu_in_window(outcome, group_start, group_end);
  if (outcome.system_end.total_ticks >= outcome.system_begin.total_ticks &&
      outcome.system_end.busy_ticks >= outcome.system_begin.busy_ticks) {
    totals.system_busy.busy_ticks +=
        outcome.system_end.busy_ticks - outcome.system_begin.busy_ticks;
    totals.system_busy.total_ticks +=
        outcome.system_end.total_ticks - outcome.system_begin.total_ticks;
  }
}

// The group's time on the series' axis: from its release to its last worker's end.
void end_series_group(const PhaseMemory& memory, std::size_t first, std::size_t count,
                      const GroupOutcome& outcome, SeriesRecorder& series) {
  std::uint64_t last_end = outcome.released_ns;
  for (std::size_t i = first; i < first + count; ++i)
    last_end = std::max(last_end, memory.slot(i)->end_ns);
  const std::uint64_t length = outcome.released_ns == 0 ? 0 : last_end - outcome.released_ns;
  series.end_group(outcome.measured ? outcome.measure_start_ns - outcome.released_ns : UINT64_MAX,
                   length);
}

// Runs the phase's groups: all workers at once, or one at a time in a serial phase (tiotest's
// -W; its wall time is the sum). The first group that fails, is interrupted or is stopped by
// another rank is the last.
GroupTotals run_groups(const PhaseRequest& request, const PhaseMemory& memory,
                       SeriesRecorder& series) {
  const PhaseSpec& spec = request.spec;
  GroupTotals totals;
  const std::size_t group = spec.serial ? 1 : spec.workers;
  for (std::size_t first = 0; first < spec.workers; first += group) {
    const std::size_t count = std::min(group, spec.workers - first);
    series.begin_group(first, count, static_cast<std::uint64_t>(request.warmup.count()));
    const GroupOutcome outcome = run_group(request, memory, first, count, series);
    end_series_group(memory, first, count, outcome, series);
    totals.interrupted = totals.interrupted || outcome.interrupted;
    bool group_failed = false;
    for (std::size_t i = first; i < first + count; ++i) group_failed |= memory.slot(i)->failed != 0;
    if (totals.peer_problem.empty()) totals.peer_problem = outcome.peer_problem;
    totals.wear_out_ops = std::max(totals.wear_out_ops, outcome.wear_out_ops);
    if (outcome.steady) totals.steady = outcome.steady;
    if (outcome.measured) {
      const GroupWindow window = group_window(memory, first, count, outcome);
      if (totals.first_measure_ns == 0) totals.first_measure_ns = window.start_ns;
      if (totals.first_runner_measure_ns == 0) {
        totals.first_runner_measure_ns = outcome.measure_start_ns;
      }
      add_measured_group(window, outcome, totals);
    }
    if (totals.interrupted || group_failed || !totals.peer_problem.empty()) break;
    // Across ranks, the groups of a serial phase end together: one more checkpoint per group.
    if (request.sync != nullptr && request.sync->active() && first + group < spec.workers) {
      if (auto verdict = request.sync->sync(StepSync::Kind::kNone, "")) {
        totals.peer_problem = *verdict;
        break;
      }
    }
  }
  return totals;
}

// What the workers' ends tell of the phase as a whole, for its status.
struct WorkerTally {
  bool any_measured = false;
  bool any_warmup = false;          // some worker recorded warm-up ops
  std::uint64_t warmup_ran_ns = 0;  // the longest a worker ran in a warm-up it never left
};

// Worker `i`'s results, copied out of its shared slot, with its status.
WorkerResult copy_out_worker(const PhaseRequest& request, const PhaseMemory& memory, std::size_t i,
                             bool interrupted, WorkerTally& tally) {
  const WorkerSlot& slot = *memory.slot(i);
  WorkerResult worker;
  worker.index = i;
  worker.target_index = target_index_of(i, request.targets.size());
  worker.seed = worker_seed(request.step_seed, request.phase_index, i);
  const auto stats = memory.ops(i);
  const auto parts = memory.parts(i);
  worker.ops.resize(stats.size());
  worker.latency_parts.resize(parts.size());
  worker.counters.assign(request.spec.counter_names.size(), 0);
  const bool ran_warmup_only = !measured(slot) && slot.start_ns != 0 && slot.end_ns != 0;
  if (measured(slot)) {
    tally.any_measured = true;
    worker.elapsed_ns = slot.end_ns - slot.start_ns;
    worker.cpu = cpu_between(slot.cpu_start, slot.cpu_end);
    if (slot.ops_span_reported != 0) {
      // Timed by its ops: its time is its own span, as in the phase's window (0: no op). Its
      // CPU readings hold its whole run(), work before the first op and after the last too;
      // capped at the span, min(run's CPU, span) is an upper bound of its CPU inside the span.
      const std::optional<OpsSpan> span = ops_span(slot);
      worker.elapsed_ns = span ? span->end_ns - span->begin_ns : 0;
      worker.cpu = at_most(worker.cpu, worker.elapsed_ns);
    }
    // Merged into compact results: a merge reads only the buckets between a histogram's
    // minimum's and maximum's, so the shared pages no sample reached are never made resident.
    for (std::size_t k = 0; k < stats.size(); ++k) worker.ops[k].merge(stats[k]);
    for (std::size_t k = 0; k < parts.size(); ++k) worker.latency_parts[k].merge(parts[k]);
    worker.counters.assign(slot.counters, slot.counters + request.spec.counter_names.size());
    worker.pacing = slot.pacing;
  } else if (ran_warmup_only) {
    // What it recorded was warm-up: discarded, like every warm-up (left empty).
    tally.any_warmup = true;
    tally.warmup_ran_ns = std::max(tally.warmup_ran_ns, slot.end_ns - slot.start_ns);
  }
  if (slot.failed) {
    worker.status = Status::kFailed;
    worker.message = slot.message;
  } else if (slot.hurried != 0) {
    worker.status = Status::kInterrupted;
    worker.message =
        "worker process killed on a second stop request: its CPU time is not known and its "
        "last op may be partly recorded";
  } else if (interrupted) {
    worker.status = Status::kInterrupted;
  } else if (ran_warmup_only) {
    worker.status = Status::kNoMeasurement;
    worker.message =
        fmt::format("ended {} into its {} warm-up: none of its ops are measured",
                    format_duration(slot.end_ns - slot.start_ns),
                    format_duration(static_cast<std::uint64_t>(request.warmup.count())));
  }
  return worker;
}

// Adds `worker` to the phase's merged figures and workers; its failure is the phase's first.
void add_worker(PhaseResult& result, WorkerResult&& worker) {
  result.pacing.merge(worker.pacing);
  for (std::size_t k = 0; k < worker.latency_parts.size(); ++k) {
    result.latency_parts[k].merge(worker.latency_parts[k]);
  }
  for (std::size_t k = 0; k < worker.ops.size(); ++k) result.ops[k].merge(worker.ops[k]);
  for (std::size_t k = 0; k < worker.counters.size(); ++k) result.counters[k] += worker.counters[k];
  result.workers_cpu = result.workers_cpu + worker.cpu;
  if (worker.status == Status::kFailed && result.status != Status::kFailed) {
    result.status = Status::kFailed;
    result.message = fmt::format("worker {}: {}", worker.index, worker.message);
  }
  result.workers.push_back(std::move(worker));
}

// Copies every worker's results out of the shared slots into `result` (sized for them).
WorkerTally copy_out_workers(const PhaseRequest& request, const PhaseMemory& memory,
                             bool interrupted, PhaseResult& result) {
  WorkerTally tally;
  for (std::size_t i = 0; i < request.spec.workers; ++i) {
    add_worker(result, copy_out_worker(request, memory, i, interrupted, tally));
  }
  return tally;
}

// The phase's status when no worker failed: stopped by another rank, interrupted, or without
// a measurement (its warm-up outlasted it).
void settle_status(const PhaseRequest& request, const GroupTotals& totals, const WorkerTally& tally,
                   PhaseResult& result) {
  if (!totals.peer_problem.empty() && result.status == Status::kOk && !totals.interrupted) {
    result.status = Status::kFailed;
    result.message = fmt::format("stopped because of another rank: {}", totals.peer_problem);
  } else if (result.status == Status::kOk && totals.interrupted) {
    result.status = Status::kInterrupted;
    result.message =
        tally.any_measured ? "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP)"
        : tally.any_warmup
            ? "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) during the warm-up: no "
              "measured ops"
            : "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) before the measurement "
              "started: no measured ops";
  } else if (result.status == Status::kOk && !tally.any_measured && request.spec.workers > 0) {
    result.status = Status::kNoMeasurement;
    result.message = fmt::format(
        "ended {} into its {} warm-up, so it has no measured ops (the warm-up's are "
        "discarded); shorten the warm-up (--warmup) or make the phase longer",
        format_duration(tally.warmup_ran_ns),
        format_duration(static_cast<std::uint64_t>(request.warmup.count())));
  }
}

}  // namespace

std::uint64_t worker_seed(std::uint64_t step_seed, std::size_t phase, std::size_t worker) noexcept {
  std::uint64_t z = step_seed + 0x9E3779B97F4A7C15ULL * (1 + phase * 0x10001ULL + worker);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

PhaseResult execute_phase(const PhaseRequest& request, PhaseWindow* window) {
  const PhaseSpec& spec = request.spec;
  PhaseMemory memory(spec.workers, spec.op_names.size(), spec.latency_parts.any(),
                     spec.per_op_series);
  const auto series_interval = static_cast<std::uint64_t>(
      std::clamp(request.series_interval, kMinSeriesInterval, kMaxSeriesInterval).count());
  for (std::size_t i = 0; i < spec.workers; ++i)
    memory.slot(i)->series.interval_ns = series_interval;
  SeriesRecorder series(series_interval, spec.workers);

  PhaseResult result;
  result.name = spec.name;
  result.op_names = spec.op_names;
  result.counter_names = spec.counter_names;
  result.mode = spec.mode;

  const GroupTotals totals = run_groups(request, memory, series);

  result.wall_ns = totals.wall_ns;
  result.time_series = series.build();
  result.steady_state = totals.steady;
  result.stonewall_ns = totals.stonewall_ns == UINT64_MAX ? totals.wall_ns : totals.stonewall_ns;
  result.system_busy_percent = system_busy_percent(SystemCpuSample{}, totals.system_busy);
  result.ops.resize(spec.op_names.size());
  result.latency_parts_kind = spec.latency_parts;
  if (spec.latency_parts.any()) result.latency_parts.resize(spec.op_names.size());
  result.counters.assign(spec.counter_names.size(), 0);

  const WorkerTally tally = copy_out_workers(request, memory, totals.interrupted, result);
  // The process's CPU in the window: its runner thread plus every worker (thread, or worker
  // process over its own measured time; not RUSAGE_CHILDREN, which counts whole lives).
  result.process_cpu = totals.runner_cpu + result.workers_cpu;
  if (window != nullptr) {
    window->start_ns = totals.first_measure_ns;
    window->measure_start_ns = totals.first_runner_measure_ns;
    window->stopped_by_peer = !totals.peer_problem.empty();
    window->wear_out_ops = totals.wear_out_ops;
  }
  settle_status(request, totals, tally, result);
  return result;
}

}  // namespace iobench::detail
