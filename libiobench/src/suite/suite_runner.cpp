// Runs a SuitePlan through the Runner, one runner step at a time, and groups the results.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iobench/coordinator.hpp>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/suite.hpp>
#include <iobench/sysinfo.hpp>
#include <optional>
#include <thread>

#include "core/run_stop.hpp"
#include "core/step_options.hpp"
#include "util/next_tick.hpp"

namespace iobench {
namespace {

using Clock = std::chrono::steady_clock;

// Passes each step on; the suite calls on_run_start/on_run_end itself, once.
class StepForwarder final : public Reporter {
 public:
  explicit StepForwarder(Reporter& target) : target_(target) {}
  void on_step_end(const StepResult& step) override { target_.on_step_end(step); }

 private:
  Reporter& target_;
};

std::uint64_t ns_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

// Idles for `pause`, returning early when a stop is requested; `tick(elapsed, changed)` is
// called at its start and every `interval` (0: only at its start).
void pause_between_runs(std::chrono::nanoseconds pause, const std::stop_token& stop,
                        std::chrono::nanoseconds interval,
                        const std::function<void(std::uint64_t, bool)>& tick) {
  const auto start = Clock::now();
  const auto end = start + pause;
  auto next_tick = interval.count() > 0 ? start + interval : Clock::time_point::max();
  if (tick) tick(0, true);
  while (!detail::stop_wanted(stop) && Clock::now() < end) {
    std::this_thread::sleep_for(std::min<Clock::duration>(
        {std::chrono::milliseconds(50), end - Clock::now(), next_tick - Clock::now()}));
    if (tick && Clock::now() >= next_tick && Clock::now() < end) {
      tick(ns_since(start), false);
      next_tick = detail::next_tick_after(next_tick, Clock::now(), interval);
    }
  }
}

}  // namespace

SuiteRunResult run_suite(const SuitePlan& plan, const Registry& registry,
                         const SuiteRunOptions& options, Reporter& reporter) {
  SuiteRunResult out;
  out.suite_name = plan.suite.name;
  out.source = plan.suite.source;
  out.planned_runs = plan.runs.size();

  const Clock::time_point suite_start = Clock::now();
  std::size_t current = 0;
  Clock::time_point run_start = suite_start;
  std::uint64_t finished_ns = 0;  // total duration of the runs finished so far

  RunOptions run_options = options.run;
  run_options.on_progress = {};
  if (options.on_progress) {
    run_options.on_progress = [&](const ProgressSnapshot& snapshot) {
      const PlannedRun& planned = plan.runs[current];
      SuiteProgress progress;
      progress.phase = snapshot;
      progress.phase.step_index = current;
      progress.phase.step_count = plan.runs.size();
      progress.repetition = planned.repetition;
      progress.repeat = plan.suite.steps[planned.suite_step].repeat;
      progress.suite_elapsed_ns = ns_since(suite_start);
      const std::uint64_t in_run = ns_since(run_start);
      const std::size_t left_after = plan.runs.size() - current - 1;
      const auto pause_ns = static_cast<std::uint64_t>(plan.suite.pause.count());
      // What the current run still has to go, as the runner knows it from its time limits.
      const std::optional<std::uint64_t> run_left =
          snapshot.step_left_ns ? snapshot.step_left_ns : snapshot.phase_left_ns;
      if (current > 0) {
        const std::uint64_t mean = finished_ns / current;
        const std::uint64_t current_left =
            std::max(mean > in_run ? mean - in_run : 0, run_left.value_or(0));
        progress.eta_ns = current_left + (mean + pause_ns) * left_after;
      } else if (left_after == 0 && snapshot.step_left_ns) {
        progress.eta_ns = snapshot.step_left_ns;
      }
      options.on_progress(progress);
    };
  }

  std::vector<std::filesystem::path> all_targets;
  for (const PlannedRun& run : plan.runs) {
    for (const auto& t : run.step.targets) {
      if (std::find(all_targets.begin(), all_targets.end(), t) == all_targets.end()) {
        all_targets.push_back(t);
      }
    }
  }
  out.run.environment = collect_environment(all_targets);
  reporter.on_run_start(out.run.environment);

  Runner runner(registry, run_options);
  StepForwarder forwarder(reporter);
  // Across ranks a stop is met inside the next run (its validation's agreement or its step's
  // checkpoints): a rank leaving here would leave the others waiting there.
  const bool ranked = options.run.coordinator != nullptr && options.run.coordinator->ranked();
  for (current = 0; current < plan.runs.size(); ++current) {
    if (!ranked && detail::stop_wanted(options.run.stop_token)) break;
    if (current > 0 && plan.suite.pause.count() > 0) {
      std::function<void(std::uint64_t, bool)> tick;
      if (options.on_progress) {
        // The pause before run `current`: what is left of it, then that run and those after.
        tick = [&](std::uint64_t elapsed_ns, bool changed) {
          const auto pause_ns = static_cast<std::uint64_t>(plan.suite.pause.count());
          SuiteProgress progress;
          progress.phase.step_index = current;
          progress.phase.step_count = plan.runs.size();
          const PlannedRun& next = plan.runs[current];
          progress.phase.step_name = next.step.name.empty() ? next.step.workload : next.step.name;
          progress.phase.state = ProgressState::kPause;
          progress.phase.state_changed = changed;
          progress.phase.elapsed_ns = elapsed_ns;
          progress.phase.phase_left_ns = pause_ns > elapsed_ns ? pause_ns - elapsed_ns : 0;
          progress.phase.done_fraction =
              std::min(1.0, static_cast<double>(elapsed_ns) / static_cast<double>(pause_ns));
          progress.repetition = next.repetition;
          progress.repeat = plan.suite.steps[next.suite_step].repeat;
          progress.suite_elapsed_ns = ns_since(suite_start);
          const std::size_t runs_left = plan.runs.size() - current;
          const std::uint64_t mean = finished_ns / current;
          progress.eta_ns =
              *progress.phase.phase_left_ns + mean * runs_left + pause_ns * (runs_left - 1);
          options.on_progress(progress);
        };
      }
      pause_between_runs(plan.suite.pause, options.run.stop_token, options.run.progress_interval,
                         tick);
      // Across ranks the next run meets a stop (every rank ends the same way; the run's status,
      // agreed across ranks, then ends the suite).
      if (!ranked && detail::stop_wanted(options.run.stop_token)) break;
    }
    const PlannedRun& planned = plan.runs[current];
    run_start = Clock::now();
    Status status = Status::kOk;
    try {
      RunResult one = runner.run(std::span<const Step>(&planned.step, 1), forwarder);
      status = one.status;
      for (StepResult& step : one.steps) out.run.steps.push_back(std::move(step));
    } catch (const Error& e) {
      // The step became invalid since planning (a target removed meanwhile): it fails alone.
      StepResult failed;
      failed.name = planned.step.name;
      failed.workload = planned.step.workload;
      failed.params = planned.step.params;
      for (const auto& [key, value] : failed.params) failed.given_params.push_back(key);
      detail::record_options(planned.step, failed);
      for (const auto& t : planned.step.targets) failed.targets.push_back(t.string());
      failed.status = Status::kFailed;
      failed.message = e.what();
      forwarder.on_step_end(failed);
      out.run.steps.push_back(std::move(failed));
      status = Status::kFailed;
    }
    finished_ns += ns_since(run_start);
    out.run.status = worse(out.run.status, status);
    if (status == Status::kInterrupted) break;
    if (status == Status::kFailed && options.run.fail_fast) break;
  }
  if (detail::stop_wanted(options.run.stop_token))
    out.run.status = worse(out.run.status, Status::kInterrupted);
  out.complete = out.run.steps.size() == plan.runs.size() && out.run.status != Status::kInterrupted;
  out.summary = summarize_suite(plan, out.run);
  reporter.on_run_end(out.run);
  return out;
}

std::vector<StepSummary> summarize_suite(const SuitePlan& plan, const RunResult& run) {
  std::vector<StepSummary> summary;
  for (const SuiteStep& step : plan.suite.steps) {
    StepSummary s{.name = step.name,
                  .workload = step.workload,
                  .repeat = step.repeat,
                  .sweep = step.sweep,
                  .points = {},
                  .sweep_rows = {}};
    const std::vector<std::string> points =
        step.sweep ? step.sweep->values : std::vector<std::string>{std::string()};
    for (const std::string& point : points) s.points.push_back(PointSummary{.point = point});
    summary.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < run.steps.size() && i < plan.runs.size(); ++i) {
    const PlannedRun& planned = plan.runs[i];
    summary[planned.suite_step].points[planned.point].result_indices.push_back(i);
  }
  for (StepSummary& s : summary) {
    std::vector<std::vector<const StepResult*>> by_point;
    std::vector<std::string> names;
    for (PointSummary& point : s.points) {
      std::vector<const StepResult*> results;
      for (const std::size_t index : point.result_indices) results.push_back(&run.steps[index]);
      if (s.repeat > 1) point.repetitions = repetition_statistics(results);
      by_point.push_back(std::move(results));
      names.push_back(point.point);
    }
    if (s.sweep) s.sweep_rows = sweep_rows(names, by_point);
  }
  return summary;
}

}  // namespace iobench
