#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/reporter.hpp>
#include <iobench/result.hpp>
#include <map>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

class Registry;
class Coordinator;
struct RankedStep;

/// One step of a run: a workload with its params and targets.
struct Step {
  std::string name{};                            ///< shown in reports; defaults to `workload`
  std::string workload{};                        ///< registered workload name
  std::map<std::string, std::string> params{};   ///< raw key -> text, validated against ParamSpecs
  std::vector<std::filesystem::path> targets{};  ///< at least one
  /// Engine spec ("psync", "io_uring:fixedbufs"; see `iobench list`); empty: not asked for. A
  /// workload that declares an "engine" param (disk, tiotest) gets it there unless `params` set
  /// it, and the param decides; a workload that makes its original tool's system calls
  /// (WorkloadInfo::uses_engine false: bonnie, dbench) refuses any engine but psync.
  std::string engine{};
  /// Stop after this long (0: none). A workload that declares its own duration param
  /// "time_limit" (dbench) gets it there unless `params` set it, and only there; otherwise it
  /// applies to every measured phase that does not set its own time limit.
  std::chrono::nanoseconds time_limit{0};
  /// Discard this long first; goes to a declared duration param "warmup" (dbench) unless
  /// `params` set it, and only there; else to every measured phase without its own warm-up.
  std::chrono::nanoseconds warmup{0};
  /// Time-series interval of every phase (PhaseResult::time_series), kMinSeriesInterval to
  /// kMaxSeriesInterval; Runner::run() throws ConfigError naming the step for any other.
  std::chrono::nanoseconds interval{kDefaultSeriesInterval};
  /// Stop each worker after this many ops per phase (0: no limit).
  std::uint64_t ops_limit = 0;
  /// sync + drop the page cache before each measured phase (root only).
  bool drop_caches = false;
  /// Seed of the step's random generators (0: pick one and report it).
  std::uint64_t seed = 0;
};

/// What a step is doing, as a live display shows it (ProgressSnapshot::state). The runner
/// knows every state itself but kFsync, which a worker announces (WorkerContext::begin_fsync()).
enum class ProgressState : std::uint8_t {
  kSetUp,      ///< untimed set-up: the workload's prepare(), the workers' make_worker()
  kWarmUp,     ///< the timed loop, in the warm-up (its ops are discarded)
  kMeasuring,  ///< the timed loop (of an unmeasured phase too: see phase_measured)
  kFsync,      ///< every worker still running is in its closing fsync
  kCleanUp,    ///< the workers' tear-down, after_phase(), finish(), removing the run directory
  kPause,      ///< a suite's pause between two runs (SuiteRunOptions only)
};

/// "set-up", "warm-up", "measuring", "fsync", "clean-up", "pause".
[[nodiscard]] std::string_view to_string(ProgressState state) noexcept;

/// One worker's part of a ProgressSnapshot, read from the live counters the worker keeps anyway
/// (nothing is added to its hot path): a live display derives its rate from two snapshots.
struct WorkerProgress {
  std::size_t worker = 0;   ///< index among the phase's workers (0-based)
  std::uint64_t bytes = 0;  ///< so far in the phase (warm-up included), as ProgressSnapshot::bytes
  std::uint64_t ops = 0;    ///< likewise
  bool ended = false;       ///< its run() returned (or threw): it does no more I/O
  bool in_fsync = false;    ///< in its closing fsync (WorkerContext::begin_fsync())
  /// Latency of its ops in the newest complete time-series interval (the one interval_p99_ns
  /// is of), ns; nullopt while there is none or it completed no op in it.
  std::optional<SeriesLatency> interval_latency_ns;
};

/// What a progress callback sees: every RunOptions::progress_interval while a step runs (its
/// set-up included), and at once whenever the state changes (`state_changed` true), so a live
/// display can show a phase from its start. Estimates (done_fraction, phase_left_ns,
/// step_left_ns) are set only where a time limit, an op limit or the work the workers planned
/// (WorkerContext::plan_work()) makes them knowable; otherwise nullopt.
struct ProgressSnapshot {
  std::size_t step_index = 0;
  std::size_t step_count = 0;
  std::string step_name;
  std::string phase_name;  ///< empty in the step's own set-up and clean-up
  std::size_t workers = 0;
  std::uint64_t elapsed_ns = 0;  ///< in the current part: set-up, warm-up, or measurement
  std::uint64_t bytes = 0;       ///< so far in the phase (warm-up included)
  std::uint64_t ops = 0;
  double interval_bytes_per_s = 0;  ///< over the last progress interval
  double interval_ops_per_s = 0;
  bool warming_up = false;          ///< state == ProgressState::kWarmUp
  std::uint64_t time_limit_ns = 0;  ///< the phase's time limit after warm-up, 0: none
  std::uint64_t warmup_ns = 0;      ///< the phase's warm-up, 0: none
  ProgressState state = ProgressState::kMeasuring;
  /// true: this call reports a state change, made at once; false: the interval passed.
  bool state_changed = false;
  std::size_t phase_index = 0;  ///< of the step's phases (measured or not)
  std::size_t phase_count = 0;
  bool phase_measured = true;  ///< false: an untimed phase (e.g. priming the page cache)
  /// The phase's planned work (warm-up included) as its workers declared it, 0: not known.
  std::uint64_t planned_ops = 0;
  std::uint64_t planned_bytes = 0;
  /// 0..1 of the phase done: the furthest of time (warm-up + limit), op limit and planned work.
  std::optional<double> done_fraction;
  /// What the phase still has to run, ns: exact for a time limit, extrapolated from the rate so
  /// far for an op limit or planned work (the smallest where several apply).
  std::optional<std::uint64_t> phase_left_ns;
  /// What the step still has to run: phase_left_ns plus the warm-ups and time limits of the
  /// phases after it; nullopt if a measured one of those has no time limit (an unmeasured one
  /// without, such as a clean-up, counts as 0).
  std::optional<std::uint64_t> step_left_ns;
  /// p99 latency of the newest complete time-series interval (all workers and op kinds), ns;
  /// once known in a phase, kept until a newer one is (nullopt only before the first).
  std::optional<std::uint64_t> interval_p99_ns;
  /// The same interval's latency figures over all workers, ns (nullopt as interval_p99_ns).
  std::optional<SeriesLatency> interval_latency_ns;
  /// The workers running now, by index: all of the phase's, or the current one of a serial
  /// phase; empty outside the phases (the step's set-up and clean-up, a suite's pause).
  std::vector<WorkerProgress> worker_progress;
};

/// How the runner behaves.
struct RunOptions {
  /// Leave the run directories and files for inspection instead of removing them.
  bool keep_files = false;
  /// Stop the whole run at the first failed step (otherwise later steps still run).
  bool fail_fast = false;
  std::chrono::nanoseconds progress_interval = std::chrono::seconds(5);
  /// Stonewalling (IOR's): every measured phase ends for all its workers (and, with other ranks,
  /// for every rank's) as soon as the first worker is done; its stonewall_ns is that moment,
  /// and the others' results are what they did until then. Off: each worker runs to its end.
  bool stonewall = false;
  /// IOR's wear-out (stoneWallingWearOut): at a measured phase's time limit every worker (with
  /// other ranks, of every rank: one collective per phase) goes on until it has done as many
  /// measured ops as the most any worker had done then (each rank's count taken at its own
  /// time limit), so all do about the same amount; that target is the step attribute
  /// "wear_out_ops.PHASE" of each phase with a time limit. Every worker ends at or just past it
  /// (workers keep running while the ranks agree, so one may pass it before it learns it); one
  /// that runs out of work first ends there. Needs a time limit on some measured phase of every
  /// step and excludes `stonewall` (ConfigError otherwise, before any I/O).
  bool wear_out = false;
  /// Called from the runner's thread every `progress_interval` while a step runs and at each
  /// state change (ProgressSnapshot); must not block for long. Empty: no progress.
  std::function<void(const ProgressSnapshot&)> on_progress{};
  /// Stops this run (and a suite run with these options) as request_stop() stops every run:
  /// the current phase ends at its workers' next keep_going(), the step is reported
  /// kInterrupted with what was done, cleanup runs, no later step starts; during validation, a
  /// factory's long set-up ends (WorkloadSetup::stop_requested()) and no step runs. Empty: only
  /// request_stop() (SIGINT/SIGTERM through install_stop_signal_handlers()) stops the run.
  std::stop_token stop_token{};
  /// Skip the free-space check (for targets whose free space statvfs misreports).
  bool skip_space_check = false;
  /// `--explain`: measure every measured phase's system call latency by layer with eBPF
  /// (PhaseResult::explain_bpf, iobench/explain_bpf.hpp). The program is loaded at the first
  /// phase and stays for the process; where it cannot be (no privileges, no BTF, a build
  /// without libbpf) the run goes on and each phase says why. Off: nothing is loaded.
  bool explain = false;
  /// With `explain`: what is split (ExplainMode): the workers' ops (default, cheap) or their
  /// system calls (`--explain=syscalls`).
  ExplainMode explain_mode = ExplainMode::kOps;
  /// The other ranks of an MPI run (make_coordinator); null or alone: this process only. With
  /// other ranks, every rank runs the same steps in step: the validation outcome is agreed
  /// before any I/O (a ConfigError on every rank, naming each rank's problem), each phase starts
  /// at a barrier after every rank's set-up, a failure on one rank stops the others at their
  /// next check (their phase fails, naming the rank), and at each step's end rank 0 gathers
  /// every rank's result: on rank 0 the step result (returned and reported) is the aggregate
  /// (RankedStep::aggregate); the other ranks keep their own.
  Coordinator* coordinator = nullptr;
  /// Rank 0 of a ranked run: called with each step over all ranks, before the reporter's
  /// on_step_end() of its aggregate.
  std::function<void(const RankedStep&)> on_ranked_step{};
};

/// Runs steps: validates all of them first (no I/O), then for each step creates the run
/// directories, prepares the workload, runs each phase with all workers started at a barrier,
/// merges their metrics, reports, and removes what it created.
///
/// Interruption: request_stop() (from a stop signal's handler) or RunOptions::stop_token ends
/// the current phase at the workers' next keep_going() (or their set-up), cleans up, and the
/// partial results are reported as kInterrupted. During validation it ends a workload factory's
/// long set-up (InterruptedError), and the run is kInterrupted with no step.
///
/// The runner prints nothing: results come back as a RunResult, and go to a Reporter only if
/// one is given. A tool's whole run, with the built-in workloads:
///
///   iobench::Registry registry = iobench::make_builtin_registry();
///   std::stop_source stop;  // stop.request_stop() from any thread ends the run early
///   iobench::Runner runner(registry, {.progress_interval = std::chrono::seconds(1),
///                                     .on_progress = [](const iobench::ProgressSnapshot&) {},
///                                     .stop_token = stop.get_token()});
///   const std::vector<iobench::Step> steps{
///       {.workload = "disk", .params = {{"operation", "write"}, {"bs", "64k"}, {"size", "1g"}},
///        .targets = {"/mnt/a", "/mnt/b"}, .time_limit = std::chrono::seconds(30)}};
///   runner.validate(steps);  // ConfigError listing every problem, one per line
///   const iobench::RunResult result = runner.run(steps);
///   std::cout << iobench::to_json(result);  // the iobench-result document
class Runner {
 public:
  Runner(const Registry& registry, RunOptions options);

  /// Checks every step without touching the disk beyond stat(2): the workload exists, params
  /// parse and fit their specs (and the workload's factory accepts them), targets exist and are
  /// directories (or readable files where allowed), and each filesystem has room for what the
  /// step writes at its peak (with keep_files: on top of what the earlier steps leave behind,
  /// Workload::retained_bytes, as no run directory is removed). Throws
  /// ConfigError with all problems found, one per line.
  ///
  /// A stop request seen by a factory's long set-up (InterruptedError: a big loadfile parsed)
  /// ends validation at once, without an error: check stop_requested() and the run's own
  /// RunOptions::stop_token after it.
  void validate(std::span<const Step> steps) const;

  /// What a valid step will do, as validate() resolved it.
  struct StepPreview {
    /// The params the step gives (its own, and --time/--warmup where the workload takes them as
    /// params), as text; size expressions ("2*ram") resolved to sizes ("48GiB").
    std::map<std::string, std::string> params;
    /// Per target, in step order: the bytes the workload writes there at its peak, under mpirun
    /// every process's where the ranks share their targets (0: none written, or not said).
    std::vector<std::uint64_t> planned_bytes;
  };
  /// validate() that also returns, per step, its resolved params and planned bytes. Throws
  /// ConfigError like validate(). An empty vector if a stop request ended validation early (on
  /// any rank, across ranks: RunOptions::coordinator).
  [[nodiscard]] std::vector<StepPreview> preview(std::span<const Step> steps) const;

  /// Validates, then runs every step. Reports through `reporter` (on_run_start, on_step_end per
  /// step, on_run_end), and returns the same results. Never throws for I/O failures (they end
  /// their step as kFailed, with the errno text in its message); throws ConfigError for invalid
  /// steps (before any I/O). A stop request during validation ends the run as kInterrupted with
  /// no step (across ranks: a stop on any rank, on every rank).
  RunResult run(std::span<const Step> steps, Reporter& reporter);
  /// The same, reporting to no one: nothing is printed or written but the steps' own files.
  RunResult run(std::span<const Step> steps);

 private:
  const Registry& registry_;
  RunOptions options_;
};

/// Asks the current run to stop; async-signal-safe (an atomic counter). Every request counts:
/// the first ends the current phase at the workers' next keep_going(), or their set-up at its
/// next WorkerContext::stop_requested() check, skips the phases and steps left, and reports
/// what was measured so far as kInterrupted; a second one hurries that end (worker processes
/// are killed instead of awaited; thread workers cannot be, they stop at their next check).
/// No request ever skips the clean-up: finish() runs and the run directories are removed.
/// To stop one run only, use RunOptions::stop_token.
void request_stop() noexcept;
/// True once request_stop() was called (until clear_stop_request()).
[[nodiscard]] bool stop_requested() noexcept;
/// How many times request_stop() was called since the last clear_stop_request(): 2 or more
/// asks for a hurried end.
[[nodiscard]] unsigned stop_request_count() noexcept;
/// Clears the stop request (tests, or a new run in the same process).
void clear_stop_request() noexcept;
/// The signals that ask a run to stop: SIGINT (Ctrl-C), SIGTERM and SIGHUP (terminal hangup).
[[nodiscard]] std::span<const int> stop_signals() noexcept;
/// Installs handlers for stop_signals() that call request_stop() (without SA_RESTART), except
/// for a signal already ignored (nohup(1) ignores SIGHUP; it stays ignored). They
/// never terminate the process, so no sequence of them (Ctrl-C twice, timeout(1) signalling the
/// process and then its group, SIGTERM, a hangup) can leave files behind or lose the results
/// gathered so far; only SIGKILL ends a run without its clean-up. Install them first thing in
/// main(), so that a stop during validation (parsing a big loadfile) is seen too.
void install_stop_signal_handlers();

}  // namespace iobench
