// Planning and validation of a run's steps, before any I/O (see step_plan.hpp).
#include "core/step_plan.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/coordinator.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/sysinfo.hpp>
#include <map>

#include "core/run_stop.hpp"
#include "util/duration_text.hpp"

namespace iobench::detail {
namespace {

void check_targets(const Step& step, const WorkloadInfo& info, std::vector<std::string>& errors,
                   const std::string& label) {
  if (step.targets.empty()) {
    errors.push_back(fmt::format("{}: no target; give a directory with -d DIR", label));
  }
  for (const auto& target : step.targets) {
    const std::string shown = printable(target.string());
    struct stat st {};
    if (target.empty()) {
      errors.push_back(fmt::format("{}: a target is empty; give a directory with -d DIR", label));
    } else if (::stat(target.c_str(), &st) != 0) {
      // Name the real cause: a missing path is not the same as one that cannot be reached.
      const int err = errno;
      errors.push_back(
          err == ENOENT ? fmt::format("{}: target '{}' does not exist; create the directory first",
                                      label, shown)
                        : fmt::format("{}: target '{}' cannot be used: {}", label, shown,
                                      std::strerror(err)));
    } else if (S_ISDIR(st.st_mode)) {
      if (::access(target.c_str(), W_OK | X_OK) != 0) {
        errors.push_back(fmt::format("{}: target directory '{}' is not writable: {}", label, shown,
                                     std::strerror(errno)));
      }
    } else if (info.needs_directory_targets) {
      errors.push_back(fmt::format(
          "{}: target '{}' is not a directory; workload '{}' creates its files in a directory",
          label, shown, info.name));
    } else if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
      errors.push_back(
          fmt::format("{}: target '{}' is neither a directory, a regular file nor a "
                      "block device",
                      label, shown));
    }
  }
}

// Bytes per filesystem (dev_t) that earlier steps leave behind under --keep.
using KeptBytes = std::map<dev_t, std::uint64_t>;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

std::uint64_t times_processes(std::uint64_t share, std::uint32_t processes) {
  std::uint64_t total = 0;
  return __builtin_mul_overflow(share, std::uint64_t{processes}, &total) ? UINT64_MAX : total;
}

// Planned bytes per filesystem (several targets may share one) against what statvfs offers;
// `kept` (not null under --keep) holds what earlier steps leave there and gains what this step
// leaves (its retained bytes).
void check_free_space(const PlannedStep& planned, std::vector<std::string>& errors,
                      const std::string& label, KeptBytes* kept) {
  struct Need {
    std::uint64_t peak = 0;
    std::uint64_t retained = 0;
    std::string path;
  };
  std::map<dev_t, Need> need_by_device;
  for (std::size_t i = 0; i < planned.step->targets.size(); ++i) {
    const auto& target = planned.step->targets[i];
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    Need& need = need_by_device[st.st_dev];
    need.peak = saturating_add(need.peak, step_planned_bytes(planned, i));
    need.retained = saturating_add(need.retained, step_retained_bytes(planned, i));
    need.path = target.string();
  }
  for (const auto& [device, need] : need_by_device) {
    const std::uint64_t earlier = kept != nullptr ? (*kept)[device] : 0;
    if (kept != nullptr) (*kept)[device] = saturating_add(earlier, need.retained);
    struct statvfs vfs {};
    if (need.peak == 0 || ::statvfs(need.path.c_str(), &vfs) != 0) continue;
    const std::uint64_t available = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    // Keep a margin for metadata and for what else writes there meanwhile.
    const std::uint64_t margin = std::min<std::uint64_t>(available / 20, 256ULL << 20);
    if (saturating_add(saturating_add(earlier, need.peak), margin) > available) {
      const auto mib = [](std::uint64_t bytes) {
        return saturating_add(bytes, (1 << 20) - 1) >> 20;
      };
      const std::string kept_text =
          earlier == 0
              ? std::string()
              : fmt::format(" on top of {} MiB that earlier steps leave with --keep", mib(earlier));
      errors.push_back(fmt::format(
          "{}: not enough free space on '{}': the workload writes {} MiB{}, {} MiB are free; use "
          "a smaller size or another target{}",
          label, printable(need.path), mib(need.peak), kept_text, available >> 20,
          earlier == 0 ? "" : ", or run without --keep"));
    }
  }
}

// True if the workload declares a param `key`.
bool declares_param(const WorkloadInfo& info, std::string_view key) {
  return std::any_of(info.params.begin(), info.params.end(),
                     [&](const ParamSpec& s) { return s.key == key; });
}

// The step's params plus --time/--warmup in the workload's own duration params and --engine in
// its "engine" param, unless the step's params set them.
std::map<std::string, std::string> params_with_limits(const Step& step, const WorkloadInfo& info) {
  std::map<std::string, std::string> params = step.params;
  if (!step.engine.empty() && !params.contains("engine") && declares_param(info, "engine")) {
    params["engine"] = step.engine;
  }
  const auto inject = [&](const char* key, std::chrono::nanoseconds value) {
    if (value.count() <= 0 || params.contains(key) || !declares_duration(info, key)) return;
    params[key] = format_duration(static_cast<std::uint64_t>(value.count()), DurationStyle::kExact);
  };
  inject("time_limit", step.time_limit);
  inject("warmup", step.warmup);
  return params;
}

// The engine a step asks for: the workload's own "engine" param where it declares one (the step's
// engine went there), else the step's, else psync; where the workload's params imply an engine
// (mode=mmap), that one, if what was asked does not contradict it.
std::string engine_spec_text(const Step& step, const WorkloadInfo& info, const Params& params) {
  std::string asked = step.engine;
  if (declares_param(info, "engine")) asked = params.get_string("engine");
  const std::string implied = info.implied_engine ? info.implied_engine(params) : std::string();
  if (implied.empty()) return asked.empty() ? std::string("psync") : asked;
  if (!asked.empty() && asked != "psync" && EngineSpec::parse(asked).name != implied) {
    throw ConfigError(fmt::format(
        "engine {} contradicts the workload's params, which select engine {} (e.g. mode=mmap); "
        "drop one of them",
        asked, implied));
  }
  return asked.empty() || asked == "psync" ? implied : asked;
}

// Builds the step's engine, refusing one the workload cannot use or the machine does not offer.
std::unique_ptr<Engine> plan_engine(const Registry& registry, const Step& step,
                                    const WorkloadInfo& info, const Params& params) {
  const std::string text = engine_spec_text(step, info, params);
  std::unique_ptr<Engine> engine = registry.create_engine(text);
  if (!info.uses_engine && (engine->name() != "psync" || text != "psync")) {
    throw ConfigError(fmt::format("--engine {}: workload '{}' does not take an engine: {}", text,
                                  info.name,
                                  info.fixed_engine_reason.empty() ? "it makes its own system calls"
                                                                   : info.fixed_engine_reason));
  }
  if (const std::string why = engine->unavailable_reason(); !why.empty()) {
    throw ConfigError(fmt::format("engine {} is not available here: {}", text, why));
  }
  return engine;
}

// Wear-out (RunOptions::wear_out) starts at a time limit: a step none of whose measured phases
// has one would run exactly as without it.
void check_wear_out(const PlannedStep& planned) {
  const bool own_time_limit = declares_duration(*planned.info, "time_limit");
  for (const PhaseSpec& spec : planned.phases) {
    if (!spec.measured) continue;
    if (spec.time_limit.count() > 0 || (!own_time_limit && planned.step->time_limit.count() > 0))
      return;
  }
  throw ConfigError(
      "--wear-out goes on past a time limit until every worker has done as many ops as the "
      "most, but this step has none; give --time (or the suite step's time_limit)");
}

// A workload that times its own phases (WorkloadInfo::times_own_phases: io500, whose write phases
// stop at its stonewall and every later phase does what they left, as IO500 runs them): a
// run-wide limit would cut its read, stat, find and delete phases short while its score still
// read valid, so the options that impose one are refused, naming the first given.
void check_own_phase_timing(const Step& step, const WorkloadInfo& info, const RunOptions& options) {
  if (!info.times_own_phases) return;
  const auto text = [](std::chrono::nanoseconds d) {
    return format_duration(static_cast<std::uint64_t>(d.count()), DurationStyle::kExact);
  };
  std::string option;
  if (step.time_limit.count() > 0)
    option = fmt::format("--time {}", text(step.time_limit));
  else if (step.ops_limit > 0)
    option = fmt::format("--ops {}", step.ops_limit);
  else if (step.warmup.count() > 0)
    option = fmt::format("--warmup {}", text(step.warmup));
  else if (options.stonewall)
    option = "--stonewall";
  else if (options.wear_out)
    option = "--wear-out";
  if (option.empty()) return;
  throw ConfigError(fmt::format(
      "{}: workload '{}' times its own phases (as the benchmark it runs does), so a run-wide "
      "limit would cut them short while its result read valid; drop {} (or the suite step's "
      "time, ops or warmup)",
      option, info.name, option.substr(0, option.find(' '))));
}

}  // namespace

std::string step_label(const Step& step, std::size_t index) {
  return fmt::format("step {} ({})", index + 1, step.name.empty() ? step.workload : step.name);
}

bool declares_duration(const WorkloadInfo& info, std::string_view key) {
  return std::any_of(info.params.begin(), info.params.end(), [&](const ParamSpec& s) {
    return s.key == key && s.type == ParamType::kDuration;
  });
}

std::uint64_t step_planned_bytes(const PlannedStep& planned, std::size_t target_index) {
  return times_processes(planned.workload->planned_bytes(target_index), planned.sharing_processes);
}

std::uint64_t step_retained_bytes(const PlannedStep& planned, std::size_t target_index) {
  return times_processes(planned.workload->retained_bytes(target_index), planned.sharing_processes);
}

Plan plan_steps(const Registry& registry, std::span<const Step> steps, const RunOptions& options) {
  const bool check_space = !options.skip_space_check;
  const bool keep_files = options.keep_files;
  // Under mpirun every process plans the same steps; where a step's ranks share their targets,
  // what every process writes there counts against their free space.
  const Coordinator* ranks = options.coordinator;
  const auto processes =
      static_cast<std::uint32_t>(ranks != nullptr && ranks->ranked() ? ranks->identity().size : 1);
  if (options.wear_out && options.stonewall) {
    throw ConfigError(
        "--stonewall and --wear-out both given: stonewalling ends every worker when the first is "
        "done, wear-out makes every worker do as much as the most; choose one");
  }
  std::vector<PlannedStep> plan;
  std::vector<std::string> errors;
  KeptBytes kept;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    const std::string label = step_label(step, i);
    PlannedStep planned;
    planned.step = &step;
    try {
      planned.info = &registry.workload(step.workload);
      check_own_phase_timing(step, *planned.info, options);
      if (step.interval < kMinSeriesInterval || step.interval > kMaxSeriesInterval) {
        throw ConfigError(fmt::format(
            "interval {}: the time-series interval must be {} to {}",
            format_duration(
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, step.interval.count())),
                DurationStyle::kReadable),
            format_duration(static_cast<std::uint64_t>(kMinSeriesInterval.count()),
                            DurationStyle::kReadable),
            format_duration(static_cast<std::uint64_t>(kMaxSeriesInterval.count()),
                            DurationStyle::kReadable)));
      }
      planned.params = Params::validate(
          planned.info->params, params_with_limits(step, *planned.info), step.workload,
          SizeContext{.ram_bytes = physical_memory_bytes(),
                      .targets = std::max<std::uint64_t>(step.targets.size(), 1)});
      planned.engine = plan_engine(registry, step, *planned.info, planned.params);
      planned.engine_spec =
          EngineSpec::parse(engine_spec_text(step, *planned.info, planned.params)).to_string();
      check_targets(step, *planned.info, errors, label);
      planned.workload = planned.info->factory(WorkloadSetup{.params = planned.params,
                                                             .targets = step.targets,
                                                             .engine = *planned.engine,
                                                             .run_stop = options.stop_token,
                                                             .time_limit = step.time_limit,
                                                             .ops_limit = step.ops_limit});
      planned.phases = planned.workload->phases();
      if (planned.info->shared_targets_param &&
          !planned.info->shared_targets_param(planned.params).empty()) {
        planned.sharing_processes = processes;
      }
      if (options.wear_out) check_wear_out(planned);
      if (check_space) check_free_space(planned, errors, label, keep_files ? &kept : nullptr);
    } catch (const ConfigError& e) {
      errors.push_back(steps.size() > 1 ? fmt::format("{}: {}", label, e.what()) : e.what());
      continue;
    } catch (const InterruptedError& e) {
      if (stop_wanted(options.stop_token)) return Plan{.interrupted = true};
      // Thrown without a stop request (a plugin's mistake): not a stop to end the run quietly.
      errors.push_back(fmt::format("{}workload '{}' was interrupted without a stop request: {}",
                                   steps.size() > 1 ? label + ": " : "", step.workload, e.what()));
      continue;
    }
    plan.push_back(std::move(planned));
  }
  if (!errors.empty()) throw ConfigError(fmt::format("{}", fmt::join(errors, "\n")));
  return Plan{.steps = std::move(plan)};
}

}  // namespace iobench::detail
