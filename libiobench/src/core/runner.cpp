// Runner: plans a run's steps (step_plan), agrees them across ranks (rank_agreement), runs each
// (step_run) and reports. Alone, the ranks are a single-process coordinator's, so the code reads
// the same for one rank or many.
#include <algorithm>
#include <filesystem>
#include <iobench/coordinator.hpp>
#include <iobench/runner.hpp>
#include <iobench/sysinfo.hpp>
#include <memory>
#include <random>

#include "core/rank_agreement.hpp"
#include "core/run_stop.hpp"
#include "core/step_options.hpp"
#include "core/step_plan.hpp"
#include "core/step_run.hpp"

namespace iobench {
namespace {

// What run() without a reporter reports to.
class NullReporter final : public Reporter {
 public:
  void on_step_end(const StepResult& /*step*/) override {}
};

// Every target of the run, each once, in the order the steps name them.
std::vector<std::filesystem::path> all_targets_of(std::span<const Step> steps) {
  std::vector<std::filesystem::path> all_targets;
  for (const Step& step : steps) {
    for (const auto& target : step.targets) {
      if (std::find(all_targets.begin(), all_targets.end(), target) == all_targets.end()) {
        all_targets.push_back(target);
      }
    }
  }
  return all_targets;
}

}  // namespace

void detail::record_options(const Step& step, StepResult& result) {
  result.engine = step.engine;
  result.time_limit_ns =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, step.time_limit.count()));
  result.warmup_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, step.warmup.count()));
  result.ops_limit = step.ops_limit;
  result.drop_caches = step.drop_caches;
}

std::string_view to_string(ProgressState state) noexcept {
  switch (state) {
    case ProgressState::kSetUp:
      return "set-up";
    case ProgressState::kWarmUp:
      return "warm-up";
    case ProgressState::kMeasuring:
      return "measuring";
    case ProgressState::kFsync:
      return "fsync";
    case ProgressState::kCleanUp:
      return "clean-up";
    case ProgressState::kPause:
      return "pause";
  }
  return "?";
}

Runner::Runner(const Registry& registry, RunOptions options)
    : registry_(registry), options_(std::move(options)) {}

void Runner::validate(std::span<const Step> steps) const {
  (void)detail::plan_steps(registry_, steps, options_);
}

std::vector<Runner::StepPreview> Runner::preview(std::span<const Step> steps) const {
  std::unique_ptr<Coordinator> alone;
  Coordinator& coordinator = detail::run_coordinator(options_.coordinator, alone);
  const std::vector<detail::PlannedStep> plan =
      detail::plan_run(coordinator, registry_, steps, options_).steps;
  std::vector<StepPreview> previews;
  previews.reserve(plan.size());
  for (const detail::PlannedStep& planned : plan) {
    StepPreview preview;
    for (auto& [key, value] : planned.params.as_text()) {
      if (planned.params.given(key)) preview.params.emplace(key, std::move(value));
    }
    for (std::size_t t = 0; t < planned.step->targets.size(); ++t) {
      preview.planned_bytes.push_back(detail::step_planned_bytes(planned, t));
    }
    previews.push_back(std::move(preview));
  }
  return previews;
}

RunResult Runner::run(std::span<const Step> steps) {
  NullReporter quiet;
  return run(steps, quiet);
}

RunResult Runner::run(std::span<const Step> steps, Reporter& reporter) {
  std::unique_ptr<Coordinator> alone;
  Coordinator& coordinator = detail::run_coordinator(options_.coordinator, alone);
  // Empty if a stop request cut validation short: the run then ends interrupted, with no step.
  detail::Plan plan = detail::plan_run(coordinator, registry_, steps, options_);
  RunResult run;
  run.environment = collect_environment(all_targets_of(steps));
  reporter.on_run_start(run.environment);

  std::random_device entropy;
  for (std::size_t step_index = 0; step_index < plan.steps.size(); ++step_index) {
    const Step& step = *plan.steps[step_index].step;
    const std::uint64_t seed =
        step.seed != 0 ? step.seed : (static_cast<std::uint64_t>(entropy()) << 32) | entropy();
    // Across ranks a stop is met at the step's checkpoints instead: leaving here would leave
    // the others waiting at them.
    if (!coordinator.ranked() && detail::stop_wanted(options_.stop_token)) break;
    detail::StepOutcome outcome =
        detail::run_step(plan.steps[step_index], {.index = step_index, .count = plan.steps.size()},
                         seed, coordinator, run.environment, options_);
    run.status = worse(worse(run.status, outcome.result.status), outcome.agreed);
    reporter.on_step_end(outcome.result);
    run.steps.push_back(std::move(outcome.result));
    if (outcome.agreed == Status::kInterrupted) break;
    if (outcome.agreed == Status::kFailed && options_.fail_fast) break;
  }
  if (plan.interrupted || detail::stop_wanted(options_.stop_token))
    run.status = worse(run.status, Status::kInterrupted);
  reporter.on_run_end(run);
  return run;
}

}  // namespace iobench
