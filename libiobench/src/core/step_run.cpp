// One step of a run: prepare, phases, clean-up and the checkpoints across ranks (step_run.hpp).
#include "core/step_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/sysinfo.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "core/phase_executor.hpp"
#include "core/rank_agreement.hpp"
#include "core/run_dirs.hpp"
#include "core/run_stop.hpp"
#include "core/step_context.hpp"
#include "core/step_options.hpp"
#include "core/step_sync.hpp"
#include "explain/phase_observer.hpp"
#include "explain_bpf/session.hpp"

namespace iobench::detail {
namespace {

// A phase's time limit and warm-up, as its request gets them.
struct PhaseLimits {
  std::chrono::nanoseconds time_limit{0};
  std::chrono::nanoseconds warmup{0};
};

// Rates over the progress interval, on a clock of their own (`elapsed` restarts when the
// warm-up ends); a state change shows the last interval's.
struct IntervalRates {
  std::uint64_t last_bytes = 0;
  std::uint64_t last_ops = 0;
  std::uint64_t last_clock_ns = monotonic_ns();
  double bytes_per_s = 0;
  double ops_per_s = 0;

  void fill(ProgressSnapshot& snapshot) {
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
  }
};

// A measured phase's window on rank 0's clock, for the aggregate's wall time and stonewall, and
// its measurement's start there, for its time series' place in the merged one.
RankWindow rank_window(const PhaseWindow& window, const PhaseResult& phase,
                       std::int64_t clock_offset_ns) {
  if (window.start_ns == 0) return RankWindow{};
  const auto start = static_cast<std::int64_t>(window.start_ns) - clock_offset_ns;
  const std::uint64_t measure =
      window.measure_start_ns != 0 ? window.measure_start_ns : window.start_ns;
  return RankWindow{.start_ns = start,
                    .end_ns = start + static_cast<std::int64_t>(phase.wall_ns),
                    .first_end_ns = start + static_cast<std::int64_t>(phase.stonewall_ns),
                    .measure_start_ns = static_cast<std::int64_t>(measure) - clock_offset_ns};
}

// The fields of a step's result known before it runs.
StepResult result_before_run(const PlannedStep& planned, std::uint64_t seed) {
  const Step& step = *planned.step;
  StepResult result;
  result.name = step.name.empty() ? step.workload : step.name;
  result.workload = step.workload;
  result.params = planned.params.as_text();
  for (const auto& [key, value] : result.params) {
    if (planned.params.given(key)) result.given_params.push_back(key);
  }
  record_options(step, result);
  // The engine that moved the bytes, as resolved (mode=mmap: "mmap"; bonnie: "psync").
  result.engine = planned.engine_spec;
  for (const auto& t : step.targets) result.targets.push_back(t.string());
  result.seed = seed;
  return result;
}

class StepRun {
 public:
  StepRun(PlannedStep& planned, StepPosition position, Coordinator& coordinator,
          const RunOptions& options)
      : planned_(planned),
        step_(*planned.step),
        position_(position),
        coordinator_(coordinator),
        options_(options),
        sync_(&coordinator),
        own_time_limit_(declares_duration(*planned.info, "time_limit")),
        own_warmup_(declares_duration(*planned.info, "warmup")) {}

  StepOutcome run(std::uint64_t drawn_seed, const Environment& environment);

 private:
  void run_in_dirs();
  void run_phases(RunDirs& dirs, StepContext& context);
  // Runs phase p; false: the step's phases end here.
  bool run_phase(std::size_t p, RunDirs& dirs, StepContext& context);
  bool end_phase(std::size_t p, PhaseResult phase, const PhaseWindow& window, RunDirs& dirs,
                 StepContext& context);
  [[nodiscard]] PhaseLimits limits_of(std::size_t p) const;
  [[nodiscard]] std::optional<std::uint64_t> phases_ns(std::size_t from) const;
  void name(ProgressSnapshot& snapshot) const;
  void step_state(ProgressState state, std::optional<std::uint64_t> left) const;
  /// report_prepare_progress() of the step's set-up, shown every progress interval.
  [[nodiscard]] std::function<void(std::uint64_t, std::uint64_t)> set_up_progress() const;
  [[nodiscard]] std::function<void(ProgressSnapshot&)> phase_progress(std::size_t p,
                                                                      PhaseLimits limits,
                                                                      IntervalRates& rates) const;
  void meet_the_others();

  PlannedStep& planned_;
  const Step& step_;
  StepPosition position_;
  Coordinator& coordinator_;
  const RunOptions& options_;
  StepResult result_;
  StepSync sync_;
  std::vector<RankWindow> windows_;
  std::uint64_t phase_seed_ = 0;
  const bool own_time_limit_;
  const bool own_warmup_;
  // A rank that leaves the step between its checkpoints (a stop seen between phases, an
  // exception) meets the others at the one they wait at, before its clean-up: that may remove a
  // file they still use (disk's shared file). One that passed the step's last checkpoint must
  // not: the others are already reducing the step.
  bool left_between_checkpoints_ = false;
};

StepOutcome StepRun::run(std::uint64_t drawn_seed, const Environment& environment) {
  result_ = result_before_run(planned_, drawn_seed);
  try {
    result_.seed = agreed_seed(coordinator_, result_.seed);
  } catch (const CoordinationError& e) {
    // A lost coordinator ends the step at its first checkpoint, after prepare.
    result_.status = Status::kFailed;
    result_.message = e.what();
  }
  phase_seed_ = rank_seed(result_.seed, coordinator_.identity().rank);
  run_in_dirs();
  if (result_.status == Status::kOk && stop_wanted(options_.stop_token)) {
    result_.status = Status::kInterrupted;
    result_.message = "interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) after its phases";
  }
  meet_the_others();
  const Status own = result_.status;
  reduce_step(coordinator_, environment, windows_, result_, options_.on_ranked_step);
  const Status agreed = agreed_status(coordinator_, own);
  return StepOutcome{.result = std::move(result_), .agreed = agreed};
}

void StepRun::run_in_dirs() {
  try {
    RunDirs dirs(step_.targets, options_.keep_files);
    StepContext context(dirs.targets(), *planned_.engine, result_, sync_);
    if (!planned_.info->uses_engine && step_.engine != Step{}.engine) {
      context.warn(
          fmt::format("engine '{}' not used: workload '{}' does its own I/O, not through an engine",
                      printable(step_.engine), planned_.info->name));
    }
    try {
      run_phases(dirs, context);
    } catch (const StepSync::Ended&) {
      // Another rank's problem ended the step at a checkpoint: clean-up as after a failure.
    } catch (const Error& e) {
      result_.status = Status::kFailed;
      result_.message = e.what();
      left_between_checkpoints_ = true;
    }
    meet_the_others();
    step_state(ProgressState::kCleanUp, std::nullopt);
    try {
      planned_.workload->finish(context);
    } catch (const Error& e) {
      if (result_.status == Status::kOk) {
        result_.status = Status::kFailed;
        result_.message = e.what();
      }
    }
    std::string remove_error;
    if (!dirs.remove(remove_error)) context.warn(remove_error);
  } catch (const Error& e) {
    result_.status = Status::kFailed;
    result_.message = e.what();
    left_between_checkpoints_ = true;  // its run directories could not be made
  }
}

void StepRun::run_phases(RunDirs& dirs, StepContext& context) {
  step_state(ProgressState::kSetUp, phases_ns(0));
  context.on_progress(set_up_progress());
  planned_.workload->prepare(context);
  context.on_progress({});
  if (auto verdict = sync_.sync(StepSync::Kind::kNone, "")) {
    take_verdict(sync_, *verdict, result_);
    throw StepSync::Ended{};
  }
  for (std::size_t p = 0; p < planned_.phases.size(); ++p) {
    if (!run_phase(p, dirs, context)) break;
  }
}

bool StepRun::run_phase(std::size_t p, RunDirs& dirs, StepContext& context) {
  if (stop_requested()) {  // clean-up still runs
    if (result_.status == Status::kOk) {
      result_.status = Status::kInterrupted;
      result_.message =
          fmt::format("interrupted by a stop request (SIGINT/SIGTERM/SIGHUP) before phase '{}'",
                      planned_.phases[p].name);
    }
    left_between_checkpoints_ = true;
    return false;
  }
  const PhaseSpec& spec = planned_.phases[p];
  if (spec.drop_caches_before || (step_.drop_caches && spec.measured)) {
    std::string why;
    // What the drop left (a journalling file system's unchecked metadata) goes with the step.
    const auto record = [&context](const std::string& key, std::int64_t bytes) {
      context.set_attribute(key, bytes);
    };
    if (!drop_page_cache_before(spec.name, why, record)) {
      context.warn(fmt::format("page cache not dropped before '{}': {}", spec.name, why));
    }
  }
  const PhaseLimits limits = limits_of(p);
  // --wear-out for every phase, or the workload's own for this one (mdtest's -W).
  const bool wear_out =
      (options_.wear_out || spec.wear_out) && spec.measured && limits.time_limit.count() > 0;
  PhaseRequest request{.workload = *planned_.workload,
                       .phase_index = p,
                       .spec = spec,
                       .targets = dirs.targets(),
                       .engine = *planned_.engine,
                       .step_seed = phase_seed_,
                       .ops_limit = spec.measured ? step_.ops_limit : 0,
                       .time_limit = limits.time_limit,
                       .warmup = limits.warmup,
                       .progress_interval = options_.progress_interval,
                       .series_interval = step_.interval,
                       .on_progress = {},
                       .stop = options_.stop_token,
                       .sync = &sync_,
                       .stonewall = options_.stonewall && spec.measured,
                       .wear_out = wear_out};
  IntervalRates rates;
  if (options_.on_progress) request.on_progress = phase_progress(p, limits, rates);
  PhaseWindow window;
  // --- --explain hook (explain_bpf/session.hpp): the phase's latency by layer.
  // The guard closes the phase if execute_phase throws.
  const bool explain = options_.explain && spec.measured;
  ExplainBpfPhaseGuard explain_phase(explain, options_.explain_mode);
  // Issue 29: the kernel's and the devices' view of the phase (explain/), always on.
  const explain::PhaseObserver observer(request.targets);
  request.series_devices = observer.devices();
  PhaseResult phase = execute_phase(request, &window);
  // The files' size, as the workload plans them (its space check's figure), for "fits in RAM".
  std::uint64_t files_bytes = 0;
  for (std::size_t t = 0; t < request.targets.size(); ++t)
    files_bytes += planned_.workload->planned_bytes(t);
  observer.finish(phase, limits.warmup.count() > 0, files_bytes);
  if (explain) phase.explain_bpf = explain_phase.end(phase.op_names);
  // --- end of the --explain hook.
  return end_phase(p, std::move(phase), window, dirs, context);
}

// A phase's result into the step's, then the checkpoint after it.
bool StepRun::end_phase(std::size_t p, PhaseResult phase, const PhaseWindow& window, RunDirs& dirs,
                        StepContext& context) {
  const PhaseSpec& spec = planned_.phases[p];
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
  if (spec.measured) {
    windows_.push_back(rank_window(window, phase, coordinator_.clock_offset_ns()));
  }
  // The step's result keeps measured phases; after_phase() sees every phase's result.
  const PhaseResult& done = spec.measured ? result_.phases.emplace_back(std::move(phase)) : phase;
  if (done.status != Status::kOk) {
    if (worse(result_.status, done.status) != result_.status) {
      result_.status = done.status;
      result_.message = fmt::format("phase '{}': {}", spec.name, done.message);
    }
    // A phase that measured nothing (it ended inside its warm-up) did no harm: the step's
    // other phases still run.
    if (done.status != Status::kNoMeasurement) {
      // Across ranks the phase's end is a checkpoint: a rank that failed tells the others (one
      // stopped by another rank's failure has nothing of its own to add).
      if (auto verdict =
              sync_.sync(window.stopped_by_peer ? StepSync::Kind::kNone : sync_kind(done.status),
                         done.message)) {
        take_verdict(sync_, *verdict, result_);
      }
      return false;
    }
  }
  planned_.workload->after_phase(p, done, context);
  const bool skip = context.skip_reason() && p + 1 < planned_.phases.size();
  // The checkpoint after the phase (alone: none); another rank's skip is this rank's too.
  if (auto verdict = sync_.sync(skip ? StepSync::Kind::kSkip : StepSync::Kind::kNone,
                                skip ? *context.skip_reason() : std::string())) {
    if (!skip) {
      take_verdict(sync_, *verdict, result_);
      return false;
    }
  }
  if (skip) {
    context.warn(fmt::format("phases after '{}' skipped: {}", spec.name, *context.skip_reason()));
    return false;
  }
  return true;
}

PhaseLimits StepRun::limits_of(std::size_t p) const {
  const PhaseSpec& spec = planned_.phases[p];
  using std::chrono::nanoseconds;
  return PhaseLimits{.time_limit = spec.time_limit.count() > 0         ? spec.time_limit
                                   : spec.measured && !own_time_limit_ ? step_.time_limit
                                                                       : nanoseconds(0),
                     .warmup = spec.warmup.count() > 0         ? spec.warmup
                               : spec.measured && !own_warmup_ ? step_.warmup
                                                               : nanoseconds(0)};
}

// What phases `from`.. take by their time limits (and warm-ups); nullopt if a measured one has
// none. An untimed phase without a limit (dbench's clean-up) counts as 0: the ETA is then to the
// end of the timed work rather than absent.
std::optional<std::uint64_t> StepRun::phases_ns(std::size_t from) const {
  std::uint64_t sum = 0;
  for (std::size_t q = from; q < planned_.phases.size(); ++q) {
    const PhaseLimits limits = limits_of(q);
    const PhaseSpec& spec = planned_.phases[q];
    if (limits.time_limit.count() <= 0 && !spec.measured) continue;
    if (limits.time_limit.count() <= 0) return std::nullopt;
    sum += static_cast<std::uint64_t>((limits.time_limit + limits.warmup).count()) *
           (spec.serial ? std::max<std::size_t>(spec.workers, 1) : 1);
  }
  return sum;
}

void StepRun::name(ProgressSnapshot& snapshot) const {
  snapshot.step_index = position_.index;
  snapshot.step_count = position_.count;
  snapshot.step_name = result_.name;
  snapshot.phase_count = planned_.phases.size();
}

// The step's own set-up and clean-up, outside any phase.
void StepRun::step_state(ProgressState state, std::optional<std::uint64_t> left) const {
  if (!options_.on_progress) return;
  ProgressSnapshot snapshot;
  name(snapshot);
  snapshot.state = state;
  snapshot.state_changed = true;
  snapshot.step_left_ns = left;
  options_.on_progress(snapshot);
}

// The set-up's own progress (a fileset being created): its done fraction, and its time left
// extrapolated from the rate so far plus the phases' time limits as the ETA.
std::function<void(std::uint64_t, std::uint64_t)> StepRun::set_up_progress() const {
  if (!options_.on_progress) return {};
  const std::uint64_t start = monotonic_ns();
  const auto interval =
      static_cast<std::uint64_t>(std::max<std::int64_t>(options_.progress_interval.count(), 1));
  return [this, start, interval, next = start + interval](std::uint64_t done,
                                                          std::uint64_t total) mutable {
    const std::uint64_t now = monotonic_ns();
    if (now < next && done < total) return;
    next = now + interval;
    ProgressSnapshot snapshot;
    name(snapshot);
    snapshot.state = ProgressState::kSetUp;
    snapshot.elapsed_ns = now - start;
    if (total > 0) {
      const double fraction =
          static_cast<double>(std::min(done, total)) / static_cast<double>(total);
      snapshot.done_fraction = fraction;
      if (done > 0) {
        const auto left = static_cast<std::uint64_t>(static_cast<double>(now - start) *
                                                     (1 - fraction) / fraction);
        snapshot.phase_left_ns = left;
        if (const auto after = phases_ns(0)) snapshot.step_left_ns = left + *after;
      }
    }
    options_.on_progress(snapshot);
  };
}

std::function<void(ProgressSnapshot&)> StepRun::phase_progress(std::size_t p, PhaseLimits limits,
                                                               IntervalRates& rates) const {
  const std::optional<std::uint64_t> after = phases_ns(p + 1);
  return [this, p, limits, after, &rates](ProgressSnapshot& snapshot) {
    const PhaseSpec& spec = planned_.phases[p];
    name(snapshot);
    snapshot.phase_name = spec.name;
    snapshot.workers = spec.workers;
    snapshot.time_limit_ns = static_cast<std::uint64_t>(limits.time_limit.count());
    snapshot.warmup_ns = static_cast<std::uint64_t>(limits.warmup.count());
    snapshot.phase_index = p;
    snapshot.phase_measured = spec.measured;
    if (snapshot.phase_left_ns && after) snapshot.step_left_ns = *snapshot.phase_left_ns + *after;
    rates.fill(snapshot);
    options_.on_progress(snapshot);
  };
}

void StepRun::meet_the_others() {
  if (!left_between_checkpoints_ || sync_.ended()) return;  // alone: catch_up() does nothing
  left_between_checkpoints_ = false;
  const Status status = result_.status == Status::kOk ? Status::kInterrupted : result_.status;
  sync_.catch_up(sync_kind(status), status == Status::kInterrupted && result_.message.empty()
                                        ? std::string("interrupted by a stop request")
                                        : result_.message);
}

}  // namespace

StepOutcome run_step(PlannedStep& planned, StepPosition position, std::uint64_t drawn_seed,
                     Coordinator& coordinator, const Environment& environment,
                     const RunOptions& options) {
  StepRun run(planned, position, coordinator, options);
  return run.run(drawn_seed, environment);
}

}  // namespace iobench::detail
