// Runs a SuitePlan through the Runner, one runner step at a time, and groups the results.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/suite.hpp>
#include <iobench/sysinfo.hpp>
#include <optional>
#include <thread>

#include "core/run_stop.hpp"
#include "core/step_options.hpp"

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

// Idles for `pause`, returning early when a stop is requested.
void pause_between_runs(std::chrono::nanoseconds pause, const std::stop_token& stop) {
  const auto end = Clock::now() + pause;
  while (!detail::stop_wanted(stop) && Clock::now() < end) {
    std::this_thread::sleep_for(
        std::min<Clock::duration>(std::chrono::milliseconds(50), end - Clock::now()));
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
      // What a time-limited phase still has to run (its elapsed time restarts after warm-up).
      std::optional<std::uint64_t> phase_left;
      if (snapshot.time_limit_ns > 0) {
        const std::uint64_t total =
            snapshot.time_limit_ns + (snapshot.warming_up ? snapshot.warmup_ns : 0);
        phase_left = total > snapshot.elapsed_ns ? total - snapshot.elapsed_ns : 0;
      }
      if (current > 0) {
        const std::uint64_t mean = finished_ns / current;
        const std::uint64_t current_left =
            std::max(mean > in_run ? mean - in_run : 0, phase_left.value_or(0));
        progress.eta_ns = current_left + mean * left_after;
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
  for (current = 0; current < plan.runs.size(); ++current) {
    if (detail::stop_wanted(options.run.stop_token)) break;
    if (current > 0 && plan.suite.pause.count() > 0) {
      pause_between_runs(plan.suite.pause, options.run.stop_token);
      if (detail::stop_wanted(options.run.stop_token)) break;
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
