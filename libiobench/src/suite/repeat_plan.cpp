// `iobench run --again`: the plan that repeats a saved run, from its result document.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iobench/error.hpp>
#include <iobench/result_json.hpp>
#include <iobench/version.hpp>
#include <optional>
#include <tuple>

namespace iobench {
namespace {

using Version = std::tuple<unsigned, unsigned, unsigned>;

// "MAJOR.MINOR.PATCH" (anything after the patch number, e.g. "-dev", is ignored).
std::optional<Version> parse_version(std::string_view text) {
  unsigned parts[3] = {0, 0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    const auto [next, ec] = std::from_chars(p, end, parts[i]);
    if (ec != std::errc() || (i < 2 && (next == end || *next != '.'))) return std::nullopt;
    p = i < 2 ? next + 1 : next;
  }
  return Version{parts[0], parts[1], parts[2]};
}

std::size_t suite_step_index(const SuitePlan& plan, const std::string& name, std::size_t step) {
  for (std::size_t i = 0; i < plan.suite.steps.size(); ++i) {
    if (plan.suite.steps[i].name == name) return i;
  }
  throw ConfigError(fmt::format(
      "/steps/{}/suite_step: '{}' is not a step of the document's suite; the document cannot be "
      "repeated",
      step, name));
}

}  // namespace

SuitePlan repeat_plan(const ResultDocument& document, const RepeatOptions& options) {
  const std::string& version = document.run.environment.iobench_version;
  if (!document.invocation) {
    throw ConfigError(fmt::format(
        "the result was written by iobench {} (schema {}), which did not record how it was run "
        "(the invocation and each step's options, since schema {}); it cannot be repeated: run "
        "its command line again",
        version.empty() ? "?" : version, document.schema, kResultSchemaV2));
  }
  const std::optional<Version> theirs = parse_version(version);
  const std::optional<Version> ours = parse_version(IOBENCH_VERSION);
  if (!theirs || (ours && *theirs > *ours)) {
    throw ConfigError(fmt::format(
        "the result was written by iobench {}, {} this iobench {}; its workloads and params may "
        "mean other things here, so it is not repeated: use iobench {} or later",
        version.empty() ? "(no version)" : version, theirs ? "newer than" : "unknown to",
        IOBENCH_VERSION, version.empty() ? "(the same)" : version));
  }
  if (document.run.steps.empty()) throw ConfigError("the result has no steps to repeat");

  SuitePlan plan;
  const bool placed = document.suite && !document.placements.empty();
  plan.suite.name = document.suite ? document.suite->name : document.run.steps.front().workload;
  plan.suite.source = document.suite ? document.suite->source : document.invocation->suite_source;
  plan.suite.text = document.invocation->suite_text;
  if (placed) {
    for (const StepSummary& s : document.suite->summary) {
      plan.suite.steps.push_back(
          SuiteStep{.name = s.name, .workload = s.workload, .repeat = s.repeat, .sweep = s.sweep});
    }
  }
  for (std::size_t i = 0; i < document.run.steps.size(); ++i) {
    const StepResult& result = document.run.steps[i];
    if (result.engine.empty()) {
      throw ConfigError(fmt::format(
          "/steps/{}: the step's engine and options are not recorded; it cannot be repeated", i));
    }
    Step step{.name = result.name, .workload = result.workload};
    for (const std::string& key : result.given_params) step.params[key] = result.params.at(key);
    if (options.targets.empty()) {
      step.targets.assign(result.targets.begin(), result.targets.end());
    } else {
      step.targets = options.targets;
    }
    step.engine = result.engine;
    step.time_limit = std::chrono::nanoseconds(result.time_limit_ns);
    step.warmup = std::chrono::nanoseconds(result.warmup_ns);
    // The interval the run recorded its time series at (older results: none, the default).
    for (const PhaseResult& phase : result.phases) {
      const std::uint64_t ns = phase.time_series.requested_interval_ns;
      if (ns != 0)
        step.interval =
            std::clamp(std::chrono::nanoseconds(ns), kMinSeriesInterval, kMaxSeriesInterval);
    }
    step.ops_limit = result.ops_limit;
    step.drop_caches = result.drop_caches;
    step.seed = result.seed;  // 0 (the step never started): a new seed, as then
    PlannedRun run{.step = std::move(step)};
    if (placed) {
      const StepPlacement& placement = document.placements[i];
      run.suite_step = suite_step_index(plan, placement.suite_step, i);
      const SuiteStep& suite_step = plan.suite.steps[run.suite_step];
      if (suite_step.workload != result.workload) {
        throw ConfigError(fmt::format(
            "/steps/{}: workload '{}' under suite step '{}' of workload '{}'; the document cannot "
            "be repeated",
            i, result.workload, suite_step.name, suite_step.workload));
      }
      if (suite_step.sweep && placement.sweep_point) {
        const auto& values = suite_step.sweep->values;
        const auto it = std::find(values.begin(), values.end(), *placement.sweep_point);
        if (it == values.end()) {
          throw ConfigError(fmt::format(
              "/steps/{}/sweep_point: '{}' is not a value of the sweep of '{}'; the document "
              "cannot be repeated",
              i, *placement.sweep_point, suite_step.name));
        }
        run.point = static_cast<std::size_t>(it - values.begin());
      } else if (suite_step.sweep.has_value() != placement.sweep_point.has_value()) {
        throw ConfigError(fmt::format(
            "/steps/{}/sweep_point: does not match the sweep of suite step '{}'; the document "
            "cannot be repeated",
            i, suite_step.name));
      }
      run.repetition = placement.repetition - 1;
    } else {
      plan.suite.steps.push_back(SuiteStep{.name = result.name, .workload = result.workload});
      run.suite_step = plan.suite.steps.size() - 1;
    }
    plan.runs.push_back(std::move(run));
  }
  return plan;
}

}  // namespace iobench
