#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/clock.hpp>
#include <iobench/coordinator.hpp>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <iobench/sysinfo.hpp>
#include <map>
#include <optional>
#include <random>

#include "core/phase_executor.hpp"
#include "core/run_dirs.hpp"
#include "core/shared_targets.hpp"
#include "core/step_options.hpp"
#include "core/step_sync.hpp"
#include "explain/phase_observer.hpp"
#include "suite/units_detail.hpp"

namespace iobench {
namespace {

// A step after validation: its workload built (the factory has accepted the params).
struct PlannedStep {
  const Step* step = nullptr;
  const WorkloadInfo* info = nullptr;
  Params params;
  std::unique_ptr<Engine> engine;  ///< built from the step's engine spec
  std::string engine_spec;         ///< as results record it ("io_uring:fixedbufs")
  std::unique_ptr<Workload> workload;
  std::vector<PhaseSpec> phases;
};

std::string step_label(const Step& step, std::size_t index) {
  return fmt::format("step {} ({})", index + 1, step.name.empty() ? step.workload : step.name);
}

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
    need.peak = saturating_add(need.peak, planned.workload->planned_bytes(i));
    need.retained = saturating_add(need.retained, planned.workload->retained_bytes(i));
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

// True if the workload times itself through its own duration param `key` (dbench's
// "time_limit" and "warmup"): the step's --time/--warmup go there, not to its phases.
bool declares_duration(const WorkloadInfo& info, std::string_view key) {
  return std::any_of(info.params.begin(), info.params.end(), [&](const ParamSpec& s) {
    return s.key == key && s.type == ParamType::kDuration;
  });
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
    params[key] = detail::format_duration(static_cast<std::uint64_t>(value.count()));
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

// The steps of a run as planned, or none if a stop request cut validation short.
struct Plan {
  std::vector<PlannedStep> steps;
  /// A factory's set-up saw a stop request (InterruptedError), on this rank or across ranks on
  /// any: nothing is planned, and neither the steps planned nor the problems found matter.
  bool interrupted = false;
};

Plan plan_steps(const Registry& registry, std::span<const Step> steps, const RunOptions& options) {
  const bool check_space = !options.skip_space_check;
  const bool keep_files = options.keep_files;
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
      if (step.interval < kMinSeriesInterval || step.interval > kMaxSeriesInterval) {
        throw ConfigError(fmt::format(
            "interval {}: the time-series interval must be {} to {}",
            format_duration(
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, step.interval.count()))),
            format_duration(static_cast<std::uint64_t>(kMinSeriesInterval.count())),
            format_duration(static_cast<std::uint64_t>(kMaxSeriesInterval.count()))));
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
      if (options.wear_out) check_wear_out(planned);
      if (check_space) check_free_space(planned, errors, label, keep_files ? &kept : nullptr);
    } catch (const ConfigError& e) {
      errors.push_back(steps.size() > 1 ? fmt::format("{}: {}", label, e.what()) : e.what());
      continue;
    } catch (const InterruptedError& e) {
      if (detail::stop_wanted(options.stop_token)) return Plan{.interrupted = true};
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

// PrepareContext of a running step: attributes and warnings go into its StepResult.
class StepContext final : public PrepareContext {
 public:
  StepContext(std::span<const Target> targets, const Engine& engine, StepResult& result,
              detail::StepSync& sync)
      : targets_(targets), engine_(engine), result_(result), sync_(sync) {}
  [[nodiscard]] const RankIdentity& rank_identity() const override {
    return sync_.active() ? sync_.coordinator().identity() : PrepareContext::rank_identity();
  }
  [[nodiscard]] std::string from_rank0(const std::function<std::string()>& produce) override;
  [[nodiscard]] std::span<const Target> targets() const override { return targets_; }
  [[nodiscard]] const Engine& engine() const override { return engine_; }
  [[nodiscard]] std::uint64_t seed() const override { return result_.seed; }
  void set_attribute(const std::string& key, AttributeValue value) override {
    for (auto& [k, v] : result_.attributes) {
      if (k == key) {
        v = std::move(value);
        return;
      }
    }
    result_.attributes.emplace_back(key, std::move(value));
  }
  void warn(const std::string& message) override { result_.warnings.push_back(message); }
  void skip_remaining_phases(const std::string& reason) override { skip_reason_ = reason; }
  /// Set by skip_remaining_phases(): why the phases after the current one do not run.
  [[nodiscard]] const std::optional<std::string>& skip_reason() const { return skip_reason_; }

 private:
  std::span<const Target> targets_;
  const Engine& engine_;
  StepResult& result_;
  detail::StepSync& sync_;
  std::optional<std::string> skip_reason_;
};

// What run() without a reporter reports to.
class NullReporter final : public Reporter {
 public:
  void on_step_end(const StepResult& /*step*/) override {}
};
// An ok phase some of whose workers ended inside the warm-up: say so in the step's warnings.
void warn_unmeasured_workers(const PhaseResult& phase, PrepareContext& context) {
  if (phase.status != Status::kOk) return;
  for (const WorkerResult& worker : phase.workers) {
    if (worker.status != Status::kNoMeasurement) continue;
    context.warn(fmt::format("phase '{}': worker {} {}", phase.name, worker.index, worker.message));
  }
}

// Across ranks: every rank's validation outcome, agreed before any I/O. Throws ConfigError on
// every rank if any rank has a problem: the message once if all ranks have the same, else each
// rank's ("rank R (HOST): ..."). A lost rank throws CoordinationError.
void agree_on_validation(Coordinator& coordinator, const std::string& problem) {
  const std::vector<std::string> all = coordinator.all_gather(problem);
  std::vector<std::string> lines;
  bool all_same = true;
  for (const std::string& text : all) all_same = all_same && text == all.front();
  if (all_same) {
    if (!all.front().empty()) throw ConfigError(all.front());
    return;
  }
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) lines.push_back(fmt::format("rank {}: {}", r, all[r]));
  }
  throw ConfigError(fmt::format("{}", fmt::join(lines, "\n")));
}

// Across ranks: rank 0's seed for every rank (each rank's workers then draw from it mixed with
// the rank, so ranks differ yet a repeat with the same seed repeats every rank).
std::uint64_t agreed_seed(Coordinator& coordinator, std::uint64_t mine) {
  const std::vector<std::string> all = coordinator.all_gather(std::to_string(mine));
  return std::stoull(all.front());
}

std::uint64_t rank_seed(std::uint64_t step_seed, int rank) {
  return rank == 0 ? step_seed
                   : detail::worker_seed(step_seed, SIZE_MAX, static_cast<std::size_t>(rank));
}

// What a step result reports at a checkpoint.
detail::StepSync::Kind sync_kind(Status status) {
  switch (status) {
    case Status::kFailed:
      return detail::StepSync::Kind::kFailed;
    case Status::kInterrupted:
      return detail::StepSync::Kind::kInterrupted;
    default:
      return detail::StepSync::Kind::kNone;
  }
}

// Applies the checkpoint that ended a step on another rank's problem to this rank's result.
void take_verdict(const detail::StepSync& sync, const std::string& verdict, StepResult& result) {
  if (sync.own_problem() && result.status != Status::kOk) return;  // ours says it already
  if (sync.coordinator().lost()) {  // no rank's problem: the ranks are gone
    result.status = Status::kFailed;
    result.message = verdict;
    return;
  }
  if (sync.worst() == detail::StepSync::Kind::kSkip) {
    result.warnings.push_back(
        fmt::format("phases left skipped as another rank skips them: {}", verdict));
    return;
  }
  const Status status =
      sync.worst() == detail::StepSync::Kind::kInterrupted ? Status::kInterrupted : Status::kFailed;
  if (worse(result.status, status) != result.status || result.status == Status::kOk) {
    result.status = worse(result.status, status);
    result.message = fmt::format("stopped because of another rank: {}", verdict);
  }
}

// Rank 0's text for every rank, at a checkpoint: rank 0's own failure in `produce` is its
// problem there (and rethrown); another rank's ends the step for this one.
std::string StepContext::from_rank0(const std::function<std::string()>& produce) {
  if (!sync_.active()) return produce();
  std::string mine;
  if (rank_identity().rank == 0) {
    try {
      mine = produce();
    } catch (const Error& e) {
      (void)sync_.sync(detail::StepSync::Kind::kFailed, e.what());
      throw;
    }
  }
  const std::optional<std::vector<std::string>> all = sync_.exchange(mine);
  if (!all) {
    take_verdict(sync_, *sync_.verdict(), result_);
    throw detail::StepSync::Ended{};
  }
  return all->front();
}

// Across ranks, after a step: the worst of the ranks' own statuses, so that every rank goes on
// to the next step or none does (a stop one rank saw after the step's last checkpoint is its
// alone). Lost ranks: failed, without a collective.
Status agreed_status(Coordinator& coordinator, Status mine) {
  if (coordinator.lost()) return Status::kFailed;
  try {
    Status worst = mine;
    for (const std::string& theirs : coordinator.all_gather(to_string(mine))) {
      for (const Status s : {Status::kFailed, Status::kInterrupted}) {
        if (theirs == to_string(s)) worst = worse(worst, s);
      }
    }
    return worst;
  } catch (const CoordinationError&) {
    return Status::kFailed;
  }
}

// Rank 0 receives every rank's result and window of the step and replaces `result` with their
// aggregate (reported through on_ranked); the others send theirs. A lost rank fails the step.
void reduce_step(Coordinator& coordinator, const Environment& environment,
                 const std::vector<RankWindow>& windows, StepResult& result,
                 const std::function<void(const RankedStep&)>& on_ranked) {
  RankStep mine{.rank = coordinator.identity().rank,
                .environment = environment,
                .step = result,
                .windows = windows,
                .clock_residual_ns = coordinator.clock_residual_ns()};
  if (coordinator.lost()) return;  // the step's message already says so
  std::vector<std::string> all;
  try {
    all = coordinator.gather(to_rank_text(mine));
  } catch (const CoordinationError& e) {
    result.status = Status::kFailed;
    result.message = e.what();
    return;
  }
  if (all.empty()) return;  // not rank 0
  std::vector<RankStep> ranks;
  ranks.reserve(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (static_cast<int>(r) == mine.rank) {
      ranks.push_back(std::move(mine));
      continue;
    }
    try {
      ranks.push_back(from_rank_text(all[r]));
    } catch (const ConfigError& e) {
      result.status = Status::kFailed;
      result.message = fmt::format("the result of rank {} cannot be read: {}", r, e.what());
      return;
    }
  }
  RankedStep ranked = aggregate_ranks(std::move(ranks));
  if (on_ranked) on_ranked(ranked);
  result = std::move(ranked.aggregate);
}

// Across ranks: every rank's planning outcome, then the targets of steps whose ranks share them,
// agreed before any I/O (ConfigError on every rank). A stop that cut one rank's validation short
// leaves every rank's plan empty and interrupted: none may wait for it at a step's checkpoint.
Plan plan_across_ranks(Coordinator& coordinator, const Registry& registry,
                       std::span<const Step> steps, const RunOptions& options) {
  Plan plan;
  std::string problem;
  try {
    plan = plan_steps(registry, steps, options);
  } catch (const ConfigError& e) {
    problem = e.what();
  }
  const std::vector<std::string> stops = coordinator.all_gather(plan.interrupted ? "stop" : "");
  if (std::any_of(stops.begin(), stops.end(), [](const std::string& s) { return !s.empty(); })) {
    return Plan{.interrupted = true};
  }
  agree_on_validation(coordinator, problem);
  std::vector<detail::SharedTargets> shared;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlannedStep& planned = plan.steps[i];
    if (!planned.info->shared_targets_param) continue;
    std::string param = planned.info->shared_targets_param(planned.params);
    if (param.empty()) continue;
    shared.push_back({.label = step_label(*planned.step, i),
                      .param = std::move(param),
                      .targets = planned.step->targets});
  }
  detail::agree_on_shared_targets(coordinator, shared);
  return plan;
}

// Plans a run's steps, across ranks when it has them.
Plan plan_run(const Registry& registry, std::span<const Step> steps, const RunOptions& options) {
  if (options.coordinator != nullptr && options.coordinator->ranked()) {
    return plan_across_ranks(*options.coordinator, registry, steps, options);
  }
  return plan_steps(registry, steps, options);
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
  (void)plan_steps(registry_, steps, options_);
}

std::vector<Runner::StepPreview> Runner::preview(std::span<const Step> steps) const {
  const std::vector<PlannedStep> plan = plan_run(registry_, steps, options_).steps;
  std::vector<StepPreview> previews;
  previews.reserve(plan.size());
  for (const PlannedStep& planned : plan) {
    StepPreview preview;
    for (auto& [key, value] : planned.params.as_text()) {
      if (planned.params.given(key)) preview.params.emplace(key, std::move(value));
    }
    for (std::size_t t = 0; t < planned.step->targets.size(); ++t) {
      preview.planned_bytes.push_back(planned.workload->planned_bytes(t));
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
  Coordinator* coordinator = options_.coordinator != nullptr && options_.coordinator->ranked()
                                 ? options_.coordinator
                                 : nullptr;
  // Empty if a stop request cut validation short: the run then ends interrupted, with no step.
  Plan planned_run = plan_run(registry_, steps, options_);
  std::vector<PlannedStep>& plan = planned_run.steps;

  std::vector<std::filesystem::path> all_targets;
  for (const Step& step : steps) {
    for (const auto& target : step.targets) {
      if (std::find(all_targets.begin(), all_targets.end(), target) == all_targets.end()) {
        all_targets.push_back(target);
      }
    }
  }
  RunResult run;
  run.environment = collect_environment(all_targets);
  reporter.on_run_start(run.environment);

  std::random_device entropy;
  for (std::size_t step_index = 0; step_index < plan.size(); ++step_index) {
    PlannedStep& planned = plan[step_index];
    const Step& step = *planned.step;
    StepResult result;
    result.name = step.name.empty() ? step.workload : step.name;
    result.workload = step.workload;
    result.params = planned.params.as_text();
    for (const auto& [key, value] : result.params) {
      if (planned.params.given(key)) result.given_params.push_back(key);
    }
    detail::record_options(step, result);
    // The engine that moved the bytes, as resolved (mode=mmap: "mmap"; bonnie: "psync").
    result.engine = planned.engine_spec;
    for (const auto& t : step.targets) result.targets.push_back(t.string());
    result.seed =
        step.seed != 0 ? step.seed : (static_cast<std::uint64_t>(entropy()) << 32) | entropy();
    detail::StepSync sync(coordinator);
    std::vector<RankWindow> windows;
    if (coordinator != nullptr) {
      try {
        result.seed = agreed_seed(*coordinator, result.seed);
      } catch (const CoordinationError& e) {
        result.status = Status::kFailed;
        result.message = e.what();
      }
    }
    const std::uint64_t phase_seed =
        coordinator != nullptr ? rank_seed(result.seed, coordinator->identity().rank) : result.seed;
    // Across ranks a stop is met at the step's checkpoints instead: leaving here would leave
    // the others waiting at them.
    if (coordinator == nullptr && detail::stop_wanted(options_.stop_token)) break;

    // A rank that leaves the step between its checkpoints (a stop seen between phases, an
    // exception) meets the others at the one they wait at, before its clean-up: that may remove
    // a file they still use (disk's shared file). One that passed the step's last checkpoint
    // must not: the others are already reducing the step.
    bool left_between_checkpoints = false;
    const auto meet_the_others = [&] {
      if (coordinator == nullptr || !left_between_checkpoints || sync.ended()) return;
      left_between_checkpoints = false;
      const Status status = result.status == Status::kOk ? Status::kInterrupted : result.status;
      sync.catch_up(sync_kind(status), status == Status::kInterrupted && result.message.empty()
                                           ? std::string("interrupted by a stop request")
                                           : result.message);
    };
    // (A lost coordinator above ends the step at its first checkpoint, after prepare.)
    try {
      detail::RunDirs dirs(step.targets, options_.keep_files);
      const Engine* engine = planned.engine.get();
      StepContext context(dirs.targets(), *engine, result, sync);
      if (!planned.info->uses_engine && step.engine != Step{}.engine) {
        context.warn(fmt::format(
            "engine '{}' not used: workload '{}' does its own I/O, not through an engine",
            printable(step.engine), planned.info->name));
      }
      const bool own_time_limit = declares_duration(*planned.info, "time_limit");
      const bool own_warmup = declares_duration(*planned.info, "warmup");
      // Phase p's time limit and warm-up, as its request gets them.
      const auto limits_of = [&](std::size_t p) {
        const PhaseSpec& spec = planned.phases[p];
        using std::chrono::nanoseconds;
        return std::pair{spec.time_limit.count() > 0        ? spec.time_limit
                         : spec.measured && !own_time_limit ? step.time_limit
                                                            : nanoseconds(0),
                         spec.warmup.count() > 0        ? spec.warmup
                         : spec.measured && !own_warmup ? step.warmup
                                                        : nanoseconds(0)};
      };
      // What phases `from`.. take by their time limits (and warm-ups); nullopt if a measured
      // one has none. An untimed phase without a limit (dbench's clean-up) counts as 0: the
      // ETA is then to the end of the timed work rather than absent.
      const auto phases_ns = [&](std::size_t from) -> std::optional<std::uint64_t> {
        std::uint64_t sum = 0;
        for (std::size_t q = from; q < planned.phases.size(); ++q) {
          const auto [limit, warmup] = limits_of(q);
          if (limit.count() <= 0 && !planned.phases[q].measured) continue;
          if (limit.count() <= 0) return std::nullopt;
          const PhaseSpec& spec = planned.phases[q];
          sum += static_cast<std::uint64_t>((limit + warmup).count()) *
                 (spec.serial ? std::max<std::size_t>(spec.workers, 1) : 1);
        }
        return sum;
      };
      const auto named = [&](ProgressSnapshot& snapshot) {
        snapshot.step_index = step_index;
        snapshot.step_count = plan.size();
        snapshot.step_name = result.name;
        snapshot.phase_count = planned.phases.size();
      };
      // The step's own set-up and clean-up, outside any phase.
      const auto step_state = [&](ProgressState state, std::optional<std::uint64_t> left) {
        if (!options_.on_progress) return;
        ProgressSnapshot snapshot;
        named(snapshot);
        snapshot.state = state;
        snapshot.state_changed = true;
        snapshot.step_left_ns = left;
        options_.on_progress(snapshot);
      };
      try {
        step_state(ProgressState::kSetUp, phases_ns(0));
        planned.workload->prepare(context);
        if (auto verdict = sync.sync(detail::StepSync::Kind::kNone, "")) {
          take_verdict(sync, *verdict, result);
          throw detail::StepSync::Ended{};
        }
        for (std::size_t p = 0; p < planned.phases.size(); ++p) {
          if (stop_requested()) {  // clean-up still runs
            if (result.status == Status::kOk) {
              result.status = Status::kInterrupted;
              result.message = fmt::format(
                  "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) before phase '{}'",
                  planned.phases[p].name);
            }
            left_between_checkpoints = true;
            break;
          }
          const PhaseSpec& spec = planned.phases[p];
          if (spec.drop_caches_before || (step.drop_caches && spec.measured)) {
            std::string why;
            if (!drop_page_cache(why)) {
              context.warn(fmt::format("page cache not dropped before '{}': {}", spec.name, why));
            }
          }
          const auto limits = limits_of(p);
          const std::chrono::nanoseconds time_limit = limits.first;
          const std::chrono::nanoseconds warmup = limits.second;
          detail::PhaseRequest request{
              .workload = *planned.workload,
              .phase_index = p,
              .spec = spec,
              .targets = dirs.targets(),
              .engine = *engine,
              .step_seed = phase_seed,
              .ops_limit = spec.measured ? step.ops_limit : 0,
              .time_limit = time_limit,
              .warmup = warmup,
              .progress_interval = options_.progress_interval,
              .series_interval = step.interval,
              .on_progress = {},
              .stop = options_.stop_token,
              .sync = &sync,
              .stonewall = options_.stonewall && spec.measured,
              .wear_out = options_.wear_out && spec.measured && time_limit.count() > 0};
          const std::optional<std::uint64_t> after = phases_ns(p + 1);
          std::uint64_t last_bytes = 0, last_ops = 0, last_clock_ns = monotonic_ns();
          double bytes_per_s = 0, ops_per_s = 0;
          if (options_.on_progress) {
            request.on_progress = [&](ProgressSnapshot& snapshot) {
              named(snapshot);
              snapshot.phase_name = spec.name;
              snapshot.workers = spec.workers;
              snapshot.time_limit_ns = static_cast<std::uint64_t>(time_limit.count());
              snapshot.warmup_ns = static_cast<std::uint64_t>(warmup.count());
              snapshot.phase_index = p;
              snapshot.phase_measured = spec.measured;
              if (snapshot.phase_left_ns && after) {
                snapshot.step_left_ns = *snapshot.phase_left_ns + *after;
              }
              // Rates over the progress interval, on a clock of their own (`elapsed` restarts
              // when the warm-up ends); a state change shows the last interval's.
              if (!snapshot.state_changed) {
                const std::uint64_t now = monotonic_ns();
                const double seconds = static_cast<double>(now - last_clock_ns) / 1e9;
                if (seconds > 0) {
                  bytes_per_s = static_cast<double>(snapshot.bytes - last_bytes) / seconds;
                  ops_per_s = static_cast<double>(snapshot.ops - last_ops) / seconds;
                }
                last_bytes = snapshot.bytes;
                last_ops = snapshot.ops;
                last_clock_ns = now;
              }
              snapshot.interval_bytes_per_s = bytes_per_s;
              snapshot.interval_ops_per_s = ops_per_s;
              options_.on_progress(snapshot);
            };
          }
          detail::PhaseWindow window;
          // Issue 29: the kernel's and the devices' view of the phase (explain/).
          const explain::PhaseObserver observer(request.targets);
          PhaseResult phase = detail::execute_phase(request, &window);
          observer.finish(phase);
          if (phase.status == Status::kOk) {
            // Files open in a run directory someone removed take writes unnoticed to the end.
            try {
              dirs.check_intact();
            } catch (const IoError& e) {
              phase.status = Status::kFailed;
              phase.message = e.what();
            }
          }
          if (spec.measured) warn_unmeasured_workers(phase, context);
          if (window.wear_out_ops != 0) {
            context.set_attribute(fmt::format("wear_out_ops.{}", spec.name),
                                  static_cast<std::int64_t>(window.wear_out_ops));
          }
          if (spec.measured && coordinator != nullptr) {
            // On rank 0's clock, for the aggregate's wall time and stonewall.
            const std::int64_t offset = coordinator->clock_offset_ns();
            const auto start = static_cast<std::int64_t>(window.start_ns) - offset;
            windows.push_back(
                window.start_ns == 0
                    ? RankWindow{}
                    : RankWindow{
                          .start_ns = start,
                          .end_ns = start + static_cast<std::int64_t>(phase.wall_ns),
                          .first_end_ns = start + static_cast<std::int64_t>(phase.stonewall_ns)});
          }
          const bool stopped_by_peer = window.stopped_by_peer;
          // The step's result keeps measured phases; after_phase() sees every phase's result.
          const PhaseResult& done =
              spec.measured ? result.phases.emplace_back(std::move(phase)) : phase;
          if (done.status != Status::kOk) {
            if (worse(result.status, done.status) != result.status) {
              result.status = done.status;
              result.message = fmt::format("phase '{}': {}", spec.name, done.message);
            }
            // A phase that measured nothing (it ended inside its warm-up) did no harm: the
            // step's other phases still run.
            if (done.status != Status::kNoMeasurement) {
              // Across ranks the phase's end is a checkpoint: a rank that failed tells the
              // others (one stopped by another rank's failure has nothing of its own to add).
              if (auto verdict = sync.sync(
                      stopped_by_peer ? detail::StepSync::Kind::kNone : sync_kind(done.status),
                      done.message)) {
                take_verdict(sync, *verdict, result);
              }
              break;
            }
          }
          planned.workload->after_phase(p, done, context);
          if (sync.active()) {
            const bool skip = context.skip_reason() && p + 1 < planned.phases.size();
            if (auto verdict =
                    sync.sync(skip ? detail::StepSync::Kind::kSkip : detail::StepSync::Kind::kNone,
                              skip ? *context.skip_reason() : std::string())) {
              if (!skip) {
                take_verdict(sync, *verdict, result);
                break;
              }
            }
          }
          if (context.skip_reason() && p + 1 < planned.phases.size()) {
            context.warn(
                fmt::format("phases after '{}' skipped: {}", spec.name, *context.skip_reason()));
            break;
          }
        }
      } catch (const detail::StepSync::Ended&) {
        // Another rank's problem ended the step at a checkpoint: clean-up as after a failure.
      } catch (const Error& e) {
        result.status = Status::kFailed;
        result.message = e.what();
        left_between_checkpoints = true;
      }
      meet_the_others();
      step_state(ProgressState::kCleanUp, std::nullopt);
      try {
        planned.workload->finish(context);
      } catch (const Error& e) {
        if (result.status == Status::kOk) {
          result.status = Status::kFailed;
          result.message = e.what();
        }
      }
      std::string remove_error;
      if (!dirs.remove(remove_error)) context.warn(remove_error);
    } catch (const Error& e) {
      result.status = Status::kFailed;
      result.message = e.what();
      left_between_checkpoints = true;  // its run directories could not be made
    }
    if (result.status == Status::kOk && detail::stop_wanted(options_.stop_token)) {
      result.status = Status::kInterrupted;
      result.message = "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) after its phases";
    }
    meet_the_others();
    Status step_status = result.status;
    if (coordinator != nullptr) {
      reduce_step(*coordinator, run.environment, windows, result, options_.on_ranked_step);
      step_status = agreed_status(*coordinator, step_status);
    }
    run.status = worse(worse(run.status, result.status), step_status);
    reporter.on_step_end(result);
    run.steps.push_back(std::move(result));
    if (step_status == Status::kInterrupted) break;
    if (step_status == Status::kFailed && options_.fail_fast) break;
  }
  if (planned_run.interrupted || detail::stop_wanted(options_.stop_token))
    run.status = worse(run.status, Status::kInterrupted);
  reporter.on_run_end(run);
  return run;
}

}  // namespace iobench
