// Suite -> SuitePlan: defaults and command-line overrides applied, sweeps and repetitions
// expanded, every distinct runner step validated; all problems reported at once.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/suite.hpp>
#include <sstream>

#include "suite/units_detail.hpp"
#include "util/duration_text.hpp"

namespace iobench {
namespace {

bool is_integer_type(ParamType type) {
  return type == ParamType::kCount || type == ParamType::kSize || type == ParamType::kInt;
}

const ParamSpec* find_spec(const WorkloadInfo& info, const std::string& key) {
  for (const ParamSpec& spec : info.params) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

std::vector<std::string> spec_keys(const WorkloadInfo& info) {
  std::vector<std::string> keys;
  for (const ParamSpec& spec : info.params) keys.push_back(spec.key);
  return keys;
}

// The runner prefixes target problems with "step 1 (NAME): "; the suite names the step itself.
std::string strip_runner_label(const std::string& line, const std::string& name) {
  const std::string prefix = fmt::format("step 1 ({}): ", name);
  return line.starts_with(prefix) ? line.substr(prefix.size()) : line;
}

// True if `message` names param `key`: quoted ('key') or as key=value after a space or ": ".
bool names_param(const std::string& message, const std::string& key) {
  if (message.find(fmt::format("'{}'", key)) != std::string::npos) return true;
  const std::string assign = key + "=";
  for (std::size_t pos = message.find(assign); pos != std::string::npos;
       pos = message.find(assign, pos + 1)) {
    if (pos == 0 || message[pos - 1] == ' ') return true;
  }
  return false;
}

// Where a runner message about params points: the param it names, if the suite gave it.
std::string param_pointer(const std::string& message, std::size_t step_index, const SuiteStep& step,
                          const Suite& suite, const std::optional<SweepSpec>& sweep,
                          std::size_t point) {
  if (sweep && names_param(message, sweep->param)) {
    return fmt::format("/steps/{}/sweep/values/{}", step_index, point);
  }
  for (const auto& [key, value] : step.params) {
    if (names_param(message, key)) return fmt::format("/steps/{}/params/{}", step_index, key);
  }
  for (const auto& [key, value] : suite.params) {
    if (names_param(message, key)) return fmt::format("/params/{}", key);
  }
  return fmt::format("/steps/{}", step_index);
}

std::string run_name(const SuiteStep& step, const std::string& point, std::size_t repetition) {
  std::string name = step.name;
  if (step.sweep && !point.empty()) name += fmt::format(" [{}={}]", step.sweep->param, point);
  if (step.repeat > 1) name += fmt::format(" #{}/{}", repetition + 1, step.repeat);
  return name;
}

// A suite that plans more runs than this is a mistake (a sweep of a million values, say),
// refused before its runs are built: they would take all memory and never end.
constexpr std::uint64_t kMaxPlannedRuns = 10'000;
// Nor may the time known in advance (--time/"time" and warm-ups of every run, and the pauses
// between runs) exceed a year.
constexpr std::uint64_t kMaxPlannedNs = 365ULL * 24 * 3600 * 1'000'000'000ULL;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

// Which suite params and command-line params (key or workload.key) some step used.
struct Used {
  std::map<std::string, bool> suite_params;
  std::map<std::string, bool> overrides;
};

// Adds a problem at a JSON pointer into the suite.
using AddProblem = std::function<void(const std::string& pointer, const std::string& message)>;

// A step's params: the suite's that its workload declares, its own, then the command line's
// (--time/--warmup, --engine, key=value), which beat both; marks in `used` which suite params and
// overrides served. A key=value for the swept param leaves one point: `sweep` is reset.
std::map<std::string, std::string> step_params(const Suite& suite, const SuiteStep& step,
                                               const WorkloadInfo& info,
                                               const SuiteOverrides& overrides, Used& used,
                                               std::optional<SweepSpec>& sweep) {
  std::map<std::string, std::string> params;
  for (const auto& [key, value] : suite.params) {
    if (find_spec(info, key) == nullptr) continue;
    params[key] = value;
    used.suite_params[key] = true;
  }
  for (const auto& [key, value] : step.params) params[key] = value;
  // --time/--warmup beat the suite's own "time_limit"/"warmup" params (dbench's), as the
  // command line's key=value do.
  for (const auto& [key, value] :
       {std::pair{"time_limit", overrides.time_limit}, std::pair{"warmup", overrides.warmup}}) {
    const ParamSpec* spec = find_spec(info, key);
    if (value.count() > 0 && spec != nullptr && spec->type == ParamType::kDuration) {
      params[key] = detail::format_duration(static_cast<std::uint64_t>(value.count()),
                                            detail::DurationStyle::kExact);
    }
  }
  // --engine beats a suite step's "engine" param the same way: the results name it.
  if (!overrides.engine.empty() && find_spec(info, "engine") != nullptr) {
    params["engine"] = overrides.engine;
  }
  for (const auto& [qualified, value] : overrides.params) {
    // "key" applies to every workload declaring it; "workload.key" to that workload only.
    const auto dot = qualified.find('.');
    if (dot != std::string::npos && qualified.substr(0, dot) != step.workload) continue;
    const std::string key = dot == std::string::npos ? qualified : qualified.substr(dot + 1);
    if (find_spec(info, key) == nullptr) continue;
    params[key] = value;
    used.overrides[qualified] = true;
    if (sweep && sweep->param == key) sweep.reset();  // one point: the command line's value
  }
  return params;
}

// True if the swept param is one of the workload's integer params; else says why at `pointer`.
bool sweep_fits(const SweepSpec& sweep, const WorkloadInfo& info, const std::string& workload,
                const std::string& pointer, const AddProblem& add) {
  const ParamSpec* spec = find_spec(info, sweep.param);
  if (spec == nullptr) {
    const std::string suggestion = closest_match(sweep.param, spec_keys(info));
    add(pointer,
        fmt::format("workload '{}' has no param '{}'{}", workload, sweep.param,
                    suggestion.empty() ? "" : fmt::format("; did you mean '{}'?", suggestion)));
    return false;
  }
  if (!is_integer_type(spec->type)) {
    add(pointer, fmt::format("param '{}' of workload '{}' is not an integer param; sweep a count, "
                             "size or integer",
                             sweep.param, workload));
    return false;
  }
  return true;
}

// The runner step a suite step makes, before its params: the command line's options beat the
// step's, the step's the suite's.
Step base_step(const Suite& suite, const SuiteStep& step, const SuiteOverrides& overrides) {
  Step base;
  base.workload = step.workload;
  // Empty: not asked for; the runner then uses the workload's own engine param or psync.
  base.engine = !overrides.engine.empty() ? overrides.engine : step.engine;
  base.time_limit = overrides.time_limit.count() > 0 ? overrides.time_limit : step.time_limit;
  base.warmup = overrides.warmup.count() > 0 ? overrides.warmup : step.warmup;
  base.interval = overrides.interval.count() > 0 ? overrides.interval
                  : step.interval.count() > 0    ? step.interval
                                                 : kDefaultSeriesInterval;
  base.ops_limit = overrides.ops_limit > 0 ? overrides.ops_limit : step.ops_limit;
  base.drop_caches = overrides.drop_caches || step.drop_caches.value_or(suite.drop_caches);
  base.seed = overrides.seed != 0 ? overrides.seed : step.seed;
  base.targets = !overrides.targets.empty() ? overrides.targets
                 : !step.targets.empty()    ? step.targets
                 : !suite.targets.empty()   ? suite.targets
                                            : std::vector{overrides.default_target};
  return base;
}

// With --keep nothing is removed between runs: every run's files must fit at once.
void check_kept_runs(const Runner& runner, const SuitePlan& plan, const AddProblem& add) {
  std::vector<Step> all;
  all.reserve(plan.runs.size());
  for (const PlannedRun& run : plan.runs) all.push_back(run.step);
  try {
    runner.validate(all);
  } catch (const ConfigError& e) {
    // The runner labels each line "step K (NAME): " with K counting runs; point at the suite
    // step instead, naming the run.
    std::istringstream lines(e.what());
    for (std::string line; std::getline(lines, line);) {
      std::string pointer = "/steps";
      for (std::size_t k = 0; k < plan.runs.size(); ++k) {
        const std::string label = fmt::format("step {} ({}): ", k + 1, plan.runs[k].step.name);
        if (!line.starts_with(label)) continue;
        pointer = fmt::format("/steps/{}", plan.runs[k].suite_step);
        line = fmt::format("run {} ({}): {}", k + 1, plan.runs[k].step.name,
                           line.substr(label.size()));
        break;
      }
      add(pointer, line);
    }
  }
}

// Suite params no step's workload declares, and command-line params no step's workload takes
// (unless a workload was unknown: its params are unknown too).
void check_unused(const Suite& suite, const Registry& registry, const Used& used,
                  bool unknown_workload, const AddProblem& add, std::vector<std::string>& errors) {
  for (const auto& [key, served] : used.suite_params) {
    if (!served && !unknown_workload) {
      add(fmt::format("/params/{}", key),
          fmt::format("no step's workload declares param '{}'; remove it or fix its name", key));
    }
  }
  for (const auto& [key, served] : used.overrides) {
    // "workload.key" for a workload the suite does not use is not an error (one set of
    // overrides can serve several suites), but it must name a workload.
    const auto dot = key.find('.');
    if (dot != std::string::npos) {
      try {
        (void)registry.workload(key.substr(0, dot));
      } catch (const ConfigError& e) {
        errors.push_back(fmt::format("{}: parameter '{}' from the command line: {}", suite.source,
                                     key, e.what()));
        continue;
      }
    }
    const bool absent_workload =
        dot != std::string::npos &&
        std::none_of(suite.steps.begin(), suite.steps.end(), [&, &name = key](const SuiteStep& s) {
          return s.workload == name.substr(0, dot);
        });
    if (!served && !unknown_workload && !absent_workload) {
      errors.push_back(fmt::format(
          "{}: parameter '{}' from the command line is not a param of any step's workload "
          "(see 'iobench list')",
          suite.source, key));
    }
  }
}

}  // namespace

SuitePlan plan_suite(const Suite& suite, const Registry& registry, const SuiteOverrides& overrides,
                     const RunOptions& options) {
  std::vector<std::string> errors;
  const AddProblem add = [&errors, &suite](const std::string& pointer, const std::string& message) {
    errors.push_back(fmt::format("{}: {}: {}", suite.source, pointer, message));
  };
  Used used;
  for (const auto& [key, value] : suite.params) used.suite_params[key] = false;
  for (const auto& [key, value] : overrides.params) used.overrides[key] = false;

  SuitePlan plan;
  plan.suite = suite;
  const Runner runner(registry, options);
  std::uint64_t planned_runs = 0;
  std::uint64_t planned_ns = 0;  // time limits and warm-ups known in advance
  bool too_large = false;
  bool unknown_workload = false;  // its params are unknown: don't call others' unused
  for (std::size_t i = 0; i < suite.steps.size(); ++i) {
    const SuiteStep& step = suite.steps[i];
    const WorkloadInfo* info = nullptr;
    try {
      info = &registry.workload(step.workload);
    } catch (const ConfigError& e) {
      add(fmt::format("/steps/{}/workload", i), e.what());
      unknown_workload = true;
      continue;
    }
    std::optional<SweepSpec> sweep = step.sweep;
    const std::map<std::string, std::string> params =
        step_params(suite, step, *info, overrides, used, sweep);
    if (sweep &&
        !sweep_fits(*sweep, *info, step.workload, fmt::format("/steps/{}/sweep/param", i), add)) {
      continue;
    }
    const Step base = base_step(suite, step, overrides);

    const std::vector<std::string> points =
        sweep ? sweep->values : std::vector<std::string>{std::string()};
    const std::uint64_t step_runs = saturating_mul(points.size(), step.repeat);
    planned_runs = saturating_add(planned_runs, step_runs);
    const auto ns = [](std::chrono::nanoseconds d) {
      return d.count() > 0 ? static_cast<std::uint64_t>(d.count()) : 0;
    };
    planned_ns = saturating_add(
        planned_ns,
        saturating_mul(step_runs, saturating_add(ns(base.time_limit), ns(base.warmup))));
    if (planned_runs > kMaxPlannedRuns) {
      add(fmt::format("/steps/{}", i),
          fmt::format("the suite plans more than {} runs ({} from this step: {} point(s) x repeat "
                      "{}); sweep fewer values or repeat less",
                      kMaxPlannedRuns, step_runs, points.size(), step.repeat));
      too_large = true;
      break;
    }
    SuiteStep effective = step;
    effective.sweep = sweep;
    for (std::size_t p = 0; p < points.size(); ++p) {
      Step point_step = base;
      point_step.params = params;
      if (sweep) point_step.params[sweep->param] = points[p];
      point_step.name = run_name(effective, points[p], 0);
      try {
        runner.validate(std::span<const Step>(&point_step, 1));
      } catch (const ConfigError& e) {
        const std::string where =
            sweep ? fmt::format(" [{}={}]", sweep->param, points[p]) : std::string();
        std::string text = e.what();
        std::size_t start = 0;
        while (start <= text.size()) {
          const std::size_t end = std::min(text.find('\n', start), text.size());
          const std::string line =
              strip_runner_label(text.substr(start, end - start), point_step.name);
          if (!line.empty()) {
            add(param_pointer(line, i, step, suite, sweep, p) + where, line);
          }
          start = end + 1;
        }
        continue;
      }
      for (unsigned r = 0; r < step.repeat; ++r) {
        PlannedRun run{.step = point_step, .suite_step = i, .point = p, .repetition = r};
        run.step.name = run_name(effective, points[p], r);
        plan.runs.push_back(std::move(run));
      }
    }
    plan.suite.steps[i].sweep = sweep;
  }
  if (!too_large && planned_runs > 1) {
    planned_ns = saturating_add(
        planned_ns,
        saturating_mul(planned_runs - 1,
                       static_cast<std::uint64_t>(std::max<std::int64_t>(0, suite.pause.count()))));
  }
  if (!too_large && planned_ns > kMaxPlannedNs) {
    add("/steps", fmt::format("the suite's time limits, warm-ups and pauses alone come to {} "
                              "days over {} runs, more than a year; shorten them or plan fewer "
                              "runs",
                              planned_ns / (24 * 3600 * 1'000'000'000ULL), planned_runs));
  }
  if (errors.empty() && options.keep_files && !options.skip_space_check && plan.runs.size() > 1) {
    check_kept_runs(runner, plan, add);
  }
  check_unused(suite, registry, used, unknown_workload, add, errors);
  if (!errors.empty()) throw ConfigError(fmt::format("{}", fmt::join(errors, "\n")));
  return plan;
}

}  // namespace iobench
