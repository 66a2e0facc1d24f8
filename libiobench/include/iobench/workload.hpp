#pragma once

/// The workload interface the runner drives (Workload, its phases' PhaseSpec, PhaseWorker,
/// PrepareContext). Includes the rest of what a workload is written against:
/// <iobench/worker_context.hpp> (Target, WorkerContext, OpTimer) and <iobench/workload_info.hpp>
/// (WorkloadSetup, WorkloadFactory, WorkloadInfo).

#include <chrono>
#include <cstdint>
#include <functional>
#include <iobench/coordinator.hpp>
#include <iobench/engine.hpp>
#include <iobench/metrics.hpp>
#include <iobench/steady_state.hpp>
#include <iobench/worker_context.hpp>
#include <iobench/workload_info.hpp>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace iobench {

struct PhaseResult;  // result.hpp

/// How a phase's workers run.
enum class WorkerMode {
  kThreads,    ///< one thread per worker in this process
  kProcesses,  ///< one forked process per worker (dbench clients, bonnie -p); results come back
               ///< through shared memory, so make_worker() runs in the child
};

/// One measured part of a workload (bonnie "Block output", tiotest "Random Read").
struct PhaseSpec {
  std::string name{};
  /// Names of the op kinds workers record, indexed by OpId (e.g. {"write"}, or dbench's ops).
  std::vector<std::string> op_names{};
  /// Names of extra per-worker counters (summed over workers), indexed by CounterId. At most
  /// kMaxCounters.
  std::vector<std::string> counter_names{};
  std::size_t workers = 1;
  WorkerMode mode = WorkerMode::kThreads;
  /// kProcesses: how many workers each process runs, as threads, in worker order (filebench's
  /// `define process` of several `thread` instances): {3, 2} puts workers 0-2 in one process
  /// and 3-4 in another. The counts sum to `workers`; empty: one process per worker. Each worker
  /// still has its own slot, seed, CPU time (its thread's, when its process has several) and
  /// results; a process that dies fails every worker of it not yet finished. Ignored by
  /// kThreads and by a serial phase (one worker at a time, each in its own process).
  std::vector<std::size_t> process_workers{};
  /// Run the workers one after another instead of together (tiotest's serial write). Phase wall
  /// time is then the sum.
  bool serial = false;
  /// false: untimed preparation (e.g. priming the page cache); run but not reported.
  bool measured = true;
  /// sync(2) and drop the page cache before the phase (needs root; otherwise a warning attribute).
  bool drop_caches_before = false;
  /// Stop the phase after this long (0: no limit beyond the step's). Workers see keep_going() turn
  /// false.
  std::chrono::nanoseconds time_limit{0};
  /// At the time limit every worker waits at its next keep_going() until every rank's count is
  /// in, then goes on to the most any had done (RunOptions::wear_out's code; mdtest's -W, IO500's
  /// ior writes): all end exactly there, so the workers must never wait on each other; the wait
  /// is in no op (restart op timing when wearing_out() turns true). Needs a time limit.
  bool wear_out = false;
  /// Run this long first and discard what was recorded (stats and CPU times restart).
  std::chrono::nanoseconds warmup{0};
  /// The latency parts workers record besides each op's total (OpLatencyParts): a workload asks
  /// for slat/clat when its engine is asynchronous and for service time when it is rate-limited.
  LatencyPartsKind latency_parts{};
  /// Stop the measurement once the phase's IOPS or throughput is steady (steady_state.hpp): the
  /// runner samples the workers' live op and byte counters every `interval` after the ramp (no
  /// per-op work) and ends the phase as its time limit would once the detector says steady, or
  /// after PTS's 25 rounds. nullopt: off. The outcome is PhaseResult::steady_state.
  std::optional<SteadyStateConfig> steady_state{};
  /// Split the phase's time series by op kind (SeriesPoint::op_points): per measured point and
  /// OpId, exact ops, bytes, errors and latency sum (filebench's `psrun` prints them per
  /// period). Costs nothing per op: each worker copies its per-op totals once per series
  /// interval (an array of op_names.size() entries per ring entry, sized once at the phase's
  /// start) and the runner takes the differences. false (default): the series has no op_points.
  bool per_op_series = false;
};

/// One worker of one phase. Built untimed by Workload::make_worker() (open files, allocate
/// buffers); run() is the timed part; the destructor runs untimed.
class PhaseWorker {
 public:
  virtual ~PhaseWorker() = default;
  /// The timed I/O loop. Records every op through `ctx`. Throws IoError on an I/O failure: the
  /// runner stops the phase and reports it failed with what was completed.
  virtual void run(WorkerContext& ctx) = 0;
};

/// A value a workload attaches to its step result (seen by reporters and in JSON "attributes").
using AttributeValue = std::variant<std::int64_t, double, std::string>;

/// Untimed context of a step: before, between and after phases, in the runner's process.
class PrepareContext {
 public:
  virtual ~PrepareContext() = default;
  [[nodiscard]] virtual std::span<const Target> targets() const = 0;
  [[nodiscard]] virtual const Engine& engine() const = 0;
  /// The step's seed (reported).
  [[nodiscard]] virtual std::uint64_t seed() const = 0;
  /// Attaches `key` = `value` to the step result (replaces an earlier value of `key`).
  virtual void set_attribute(const std::string& key, AttributeValue value) = 0;
  /// Adds a warning to the step result (e.g. "file smaller than 2x RAM").
  virtual void warn(const std::string& message) = 0;
  /// From after_phase(): the phases after this one do not run (e.g. tiobench.pl's --timeout
  /// ending a sweep early). The step still ends ok, with finish() called and, if any phase was
  /// left, a warning "phases after 'NAME' skipped: `reason`".
  virtual void skip_remaining_phases(const std::string& reason) = 0;
  /// True once the run is being stopped (SIGINT/SIGTERM/SIGHUP): long loops in prepare(),
  /// after_phase() or finish() that are not clean-up should end early (the runner then skips
  /// the phases left). Cheap: one atomic load.
  [[nodiscard]] bool stop_requested() const noexcept;

  /// This process's place among the ranks of an MPI run (`mpirun -n N iobench run ...`): rank 0
  /// of 1 when alone. Every rank runs the same steps, each with its own run directories.
  [[nodiscard]] virtual const RankIdentity& rank_identity() const;
  /// Collective, for what rank 0 makes and every rank then uses (IOR's N-1 shared file: rank 0
  /// creates it, the others open it): on rank 0 runs `produce` and gives every rank its text;
  /// alone it just returns produce(). Every rank's prepare() calls it the same number of times, in
  /// the same order and before anything in it that may throw, so the collectives match. An Error
  /// `produce` throws on rank 0 is rethrown there, and on the other ranks this throws the runner's
  /// own exception for a step another rank ended (its failure reported as "rank 0 (HOST): ..."):
  /// let both through. A rank that failed earlier in the step (its run directory could not be
  /// made) ends the step here for every rank the same way.
  [[nodiscard]] virtual std::string from_rank0(const std::function<std::string()>& produce);
  /// Collective, for what every rank must know of the others (mdtest: the items each rank made
  /// before its stonewall, for the ranks whose items it stats next): every rank's `mine`,
  /// indexed by rank; alone {mine}. Callable from prepare() and after_phase(), under from_rank0()'s
  /// rule: every rank calls it the same number of times, in the same order, and
  /// it is also a barrier (no rank returns before every rank called it). A step another rank
  /// ended (a failure there) throws the runner's own exception here: let it through.
  [[nodiscard]] virtual std::vector<std::string> all_ranks(const std::string& mine);
};

/// A workload instance: built from validated params by its factory (which throws ConfigError for
/// invalid combinations, before any I/O), then driven by the runner:
/// prepare() -> for each phase: make_worker() x workers, run(), after_phase() -> finish().
class Workload {
 public:
  virtual ~Workload() = default;
  /// The phases in order. Stable for the life of the object.
  [[nodiscard]] virtual std::vector<PhaseSpec> phases() const = 0;
  /// Bytes the workload will write into target `target_index` at its peak, for the free-space
  /// check made before any I/O.
  [[nodiscard]] virtual std::uint64_t planned_bytes(std::size_t /*target_index*/) const {
    return 0;
  }
  /// Bytes the workload's own files still hold in target `target_index` when the step ends
  /// (before the runner removes its run directory). With --keep nothing else is removed, so the
  /// free-space check adds this up over the steps. Default: planned_bytes(); a workload that
  /// deletes its files as part of the benchmark (bonnie++'s delete phases, dbench's cleanup)
  /// says less.
  [[nodiscard]] virtual std::uint64_t retained_bytes(std::size_t target_index) const {
    return planned_bytes(target_index);
  }
  /// Untimed, once, after the run directories exist.
  virtual void prepare(PrepareContext& /*ctx*/) {}
  /// Untimed, in the worker's thread or process: builds worker `ctx.worker_index()` of phase
  /// `phase`. Throws IoError (setup failed) or ConfigError. Long set-up loops check
  /// ctx.stop_requested() and return nullptr once it is true (the run is being stopped).
  [[nodiscard]] virtual std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                                 WorkerContext& ctx) = 0;
  /// Untimed, in the runner's process, after all workers of `phase` ended and the phase ended
  /// ok (measured or not): `result` is what they did (per worker in result.workers, indexed by
  /// worker index), e.g. how many files a time- or op-limited create phase really made, for the
  /// phases after it. Not called for a phase that failed or was interrupted.
  virtual void after_phase(std::size_t /*phase*/, const PhaseResult& /*result*/,
                           PrepareContext& /*ctx*/) {}
  /// Untimed, once, after the last phase (also after a failure or interruption).
  virtual void finish(PrepareContext& /*ctx*/) {}
};

}  // namespace iobench
