#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/reporter.hpp>
#include <iobench/result.hpp>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace iobench {

class Registry;

/// One step of a run: a workload with its params and targets.
struct Step {
  std::string name;                            ///< shown in reports; defaults to `workload`
  std::string workload;                        ///< registered workload name
  std::map<std::string, std::string> params;   ///< raw key -> text, validated against ParamSpecs
  std::vector<std::filesystem::path> targets;  ///< at least one
  std::string engine = "psync";
  /// Stop after this long (0: none). A workload that declares its own duration param
  /// "time_limit" (dbench) gets it there unless `params` set it, and only there; otherwise it
  /// applies to every measured phase that does not set its own time limit.
  std::chrono::nanoseconds time_limit{0};
  /// Discard this long first; goes to a declared duration param "warmup" (dbench) unless
  /// `params` set it, and only there; else to every measured phase without its own warm-up.
  std::chrono::nanoseconds warmup{0};
  /// Stop each worker after this many ops per phase (0: no limit).
  std::uint64_t ops_limit = 0;
  /// sync + drop the page cache before each measured phase (root only).
  bool drop_caches = false;
  /// Seed of the step's random generators (0: pick one and report it).
  std::uint64_t seed = 0;
};

/// What a progress callback sees, every RunOptions::progress_interval while a phase runs.
struct ProgressSnapshot {
  std::size_t step_index = 0;
  std::size_t step_count = 0;
  std::string step_name;
  std::string phase_name;
  std::size_t workers = 0;
  std::uint64_t elapsed_ns = 0;  ///< since the phase started
  std::uint64_t bytes = 0;       ///< so far in the phase (warm-up included)
  std::uint64_t ops = 0;
  double interval_bytes_per_s = 0;  ///< over the last interval
  double interval_ops_per_s = 0;
  bool warming_up = false;
  std::uint64_t time_limit_ns = 0;  ///< the phase's time limit after warm-up, 0: none
  std::uint64_t warmup_ns = 0;      ///< the phase's warm-up, 0: none
};

/// How the runner behaves.
struct RunOptions {
  /// Leave the run directories and files for inspection instead of removing them.
  bool keep_files = false;
  /// Stop the whole run at the first failed step (otherwise later steps still run).
  bool fail_fast = false;
  std::chrono::nanoseconds progress_interval = std::chrono::seconds(5);
  /// Called from the runner's thread; must not block for long. Empty: no progress.
  std::function<void(const ProgressSnapshot&)> on_progress;
  /// Skip the free-space check (for targets whose free space statvfs misreports).
  bool skip_space_check = false;
};

/// Runs steps: validates all of them first (no I/O), then for each step creates the run
/// directories, prepares the workload, runs each phase with all workers started at a barrier,
/// merges their metrics, reports, and removes what it created.
///
/// Interruption: request_stop() (from the SIGINT/SIGTERM handler) ends the current phase at the
/// workers' next keep_going(), cleans up, and the partial results are reported as kInterrupted.
class Runner {
 public:
  Runner(const Registry& registry, RunOptions options);

  /// Checks every step without touching the disk beyond stat(2): the workload exists, params
  /// parse and fit their specs (and the workload's factory accepts them), targets exist and are
  /// directories (or readable files where allowed), and each filesystem has room for what the
  /// step writes at its peak (with keep_files: on top of what the earlier steps leave behind,
  /// Workload::retained_bytes, as no run directory is removed). Throws
  /// ConfigError with all problems found, one per line.
  void validate(std::span<const Step> steps) const;

  /// What a valid step will do, as validate() resolved it.
  struct StepPreview {
    /// The params the step gives (its own, and --time/--warmup where the workload takes them as
    /// params), as text; size expressions ("2*ram") resolved to sizes ("48GiB").
    std::map<std::string, std::string> params;
    /// Per target, in step order: the bytes the workload writes there at its peak (0 for a
    /// workload that writes nothing, or does not say).
    std::vector<std::uint64_t> planned_bytes;
  };
  /// validate() that also returns, per step, its resolved params and planned bytes. Throws
  /// ConfigError like validate().
  [[nodiscard]] std::vector<StepPreview> preview(std::span<const Step> steps) const;

  /// Validates, then runs every step. Reports through `reporter`. Never throws for I/O failures
  /// (they end their step as kFailed); throws ConfigError for invalid steps (before any I/O) and
  /// IoError if a run directory cannot be created or space is short.
  RunResult run(std::span<const Step> steps, Reporter& reporter);

 private:
  const Registry& registry_;
  RunOptions options_;
};

/// Asks the current run to stop: async-signal-safe (sets an atomic flag).
void request_stop() noexcept;
/// True once request_stop() was called (until clear_stop_request()).
[[nodiscard]] bool stop_requested() noexcept;
/// Clears the stop request (tests, or a new run in the same process).
void clear_stop_request() noexcept;
/// Installs SIGINT and SIGTERM handlers: the first signal calls request_stop(); a second one
/// terminates the process at once with the default action.
void install_stop_signal_handlers();

}  // namespace iobench
