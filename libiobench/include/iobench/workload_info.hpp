#pragma once

/// What registers a workload: its factory's inputs (WorkloadSetup), the engine checks factories
/// make, and the registry entry (WorkloadInfo). Part of <iobench/workload.hpp>, which includes
/// it; include that one to call a factory (it defines Workload).

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/engine.hpp>
#include <iobench/params.hpp>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

class Workload;  // workload.hpp

/// What a workload factory is given.
struct WorkloadSetup {
  const Params& params;
  /// Targets as the user named them; at least one.
  std::span<const std::filesystem::path> targets;
  /// The step's engine (its caps decide what the workload may ask of it: check_engine_use()).
  const Engine& engine;
  /// The run's own stop (RunOptions::stop_token); stop_requested() checks it.
  std::stop_token run_stop{};
  /// The step's time limit after warm-up (Step::time_limit, `--time`), 0: none; and its op
  /// limit (Step::ops_limit, `--ops`), 0: none. For a workload whose params need one (disk's
  /// time_based).
  std::chrono::nanoseconds time_limit{0};
  std::uint64_t ops_limit = 0;

  /// True once the run is asked to stop: iobench::request_stop() (a stop signal) or run_stop.
  /// A factory that takes long (parsing a big loadfile) checks it now and then and throws
  /// InterruptedError, so that a stop is not kept waiting for it.
  [[nodiscard]] bool stop_requested() const noexcept;
};

/// Checks that `engine` can do what a workload asks, before any I/O: O_DIRECT (`direct`), buffered
/// I/O on an engine that is asynchronous only with O_DIRECT (libaio), polled completions without
/// O_DIRECT, a queue depth above EngineCaps::max_depth. Throws ConfigError naming the engine, the
/// param that asks (`direct_param`, e.g. "mode=direct") and the fix.
void check_engine_use(const Engine& engine, bool direct, std::uint32_t iodepth,
                      std::string_view direct_param);

/// Checks that `engine` moves bytes (EngineCaps::moves_data) when the workload checks what its
/// reads return (`checks_data`, e.g. disk's verify, tiotest's consistency_check): an engine that
/// moves none (null) leaves read buffers as they were, so every block would read as corrupt.
/// Throws ConfigError naming `check_param` (e.g. "verify=true"), the engine and the fix.
void check_engine_checks_data(const Engine& engine, bool checks_data, std::string_view check_param);

/// Builds a workload; throws ConfigError naming the parameter for invalid combinations, or
/// InterruptedError if WorkloadSetup::stop_requested() cut a long set-up short.
using WorkloadFactory = std::function<std::unique_ptr<Workload>(const WorkloadSetup&)>;

/// A registered workload: name, one-line summary, declared parameters and factory.
struct WorkloadInfo {
  std::string name{};     ///< e.g. "disk"
  std::string summary{};  ///< one line for `iobench list`
  std::vector<ParamSpec> params{};
  WorkloadFactory factory{};
  /// true: every target must be a directory (the workload creates files); false: existing files
  /// or block devices are accepted too, for reading.
  bool needs_directory_targets = true;
  /// true: the workload moves its bytes through the step's engine (WorkerContext::engine()).
  /// false: it makes the system calls of the tool it reproduces (bonnie++, dbench), so any
  /// engine but psync is refused, with `fixed_engine_reason` as the why.
  bool uses_engine = true;
  std::string fixed_engine_reason{};
  /// The engine the workload's own params select, if any (disk's mode=mmap and tiotest's
  /// mmap=true select "mmap"); empty result: none. An engine asked for otherwise (an "engine"
  /// param, --engine) must then be that one or psync (the default), else the step is refused.
  std::function<std::string(const Params& params)> implied_engine{};
  /// Under mpirun: the param that makes every rank work in the same target directories (disk's
  /// "shared_file=regions"), or "" when each rank works in its own; empty function: never. The
  /// runner then refuses, before any I/O and on every rank, targets that differ between ranks
  /// (a {rank} or {host} template, or no -d: each rank's own temporary directory).
  std::function<std::string(const Params& params)> shared_targets_param{};
  /// true: the workload times its phases itself, as a benchmark with validity rules does (io500:
  /// its write phases stop at its own stonewall, the later phases do what they left), so the
  /// step's run-wide limits (--time, --ops, --warmup, --stonewall, --wear-out, or a suite step's
  /// time, ops or warmup) are refused before any I/O (ConfigError naming the option).
  bool times_own_phases = false;
};

}  // namespace iobench
