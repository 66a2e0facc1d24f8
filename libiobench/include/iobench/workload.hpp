#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/clock.hpp>
#include <iobench/engine.hpp>
#include <iobench/metrics.hpp>
#include <iobench/params.hpp>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace iobench {

/// Where a worker does its I/O: what the user named (-d) and the run's own directory in it.
struct Target {
  /// As the user gave it.
  std::filesystem::path user_path;
  /// The fresh directory `iobench.<pid>.<random>` the run created inside `user_path` and removes at
  /// the end. Workloads create every file inside it. Empty when `is_existing_file`.
  std::filesystem::path run_dir;
  /// `user_path` is an existing regular file or block device: workloads may read it, never write.
  bool is_existing_file = false;
};

/// How a phase's workers run.
enum class WorkerMode {
  kThreads,    ///< one thread per worker in this process
  kProcesses,  ///< one forked process per worker (dbench clients, bonnie -p); results come back
               ///< through shared memory, so make_worker() runs in the child
};

/// One measured part of a workload (bonnie "Block output", tiotest "Random Read").
struct PhaseSpec {
  std::string name;
  /// Names of the op kinds workers record, indexed by OpId (e.g. {"write"}, or dbench's ops).
  std::vector<std::string> op_names;
  /// Names of extra per-worker counters (summed over workers), indexed by CounterId. At most
  /// kMaxCounters.
  std::vector<std::string> counter_names;
  std::size_t workers = 1;
  WorkerMode mode = WorkerMode::kThreads;
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
  /// Run this long first and discard what was recorded (stats and CPU times restart).
  std::chrono::nanoseconds warmup{0};
};

using CounterId = std::uint16_t;
inline constexpr std::size_t kMaxCounters = 16;

namespace detail {
struct WorkerSlot;
/// Phase states the runner publishes to workers through one shared atomic word.
enum PhaseState : std::uint32_t { kWaiting = 0, kWarmup = 1, kMeasure = 2, kStop = 3 };
}  // namespace detail

/// Per-worker view handed to a workload's workers. Owned by the runner; lives in the worker's
/// thread (or process). record() and keep_going() are inline and allocation-free: one relaxed
/// atomic load and a few adds per op.
class WorkerContext final {
 public:
  /// Built by the runner (and by tests of workloads).
  /// `state` is the phase's shared state word; `slot` this worker's shared slot; `ops` its
  /// OpStats (one per op name); `ops_limit` 0 for none.
  WorkerContext(std::size_t phase_index, std::size_t worker_index, std::size_t worker_count,
                std::span<const Target> targets, const Engine& engine, std::uint64_t seed,
                const std::atomic<std::uint32_t>& state, detail::WorkerSlot& slot,
                std::span<OpStats> ops, std::uint64_t ops_limit);

  [[nodiscard]] std::size_t phase_index() const noexcept { return phase_index_; }
  [[nodiscard]] std::size_t worker_index() const noexcept { return worker_index_; }
  [[nodiscard]] std::size_t worker_count() const noexcept { return worker_count_; }
  /// All targets of the step, in the order the user gave them.
  [[nodiscard]] std::span<const Target> targets() const noexcept { return targets_; }
  /// This worker's target: targets()[worker_index() % targets().size()].
  [[nodiscard]] const Target& target() const noexcept {
    return targets_[worker_index_ % targets_.size()];
  }
  [[nodiscard]] const Engine& engine() const noexcept { return engine_; }
  /// Seed for this worker's random generator: the step seed mixed with the worker index (and
  /// reported in results, so a run can be repeated).
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

  /// False once the phase must end: time limit reached, op limit reached, or stop requested
  /// (SIGINT/SIGTERM, another worker failed). Also ends the warm-up (resetting stats) when due.
  /// Call it at least once per op in loops whose length is not fixed.
  [[nodiscard]] bool keep_going() noexcept {
    const std::uint32_t state = state_.load(std::memory_order_relaxed);
    if (state != seen_state_) [[unlikely]]
      return on_state_change(state);
    return live_ops_->load(std::memory_order_relaxed) < ops_limit_;
  }

  /// Records one completed op of kind `op` that moved `bytes` in `latency_ns`.
  void record(OpId op, std::uint64_t bytes, std::uint64_t latency_ns) noexcept {
    ops_[op].record(bytes, latency_ns);
    bump_live(bytes);
  }
  /// Counts a failed op of kind `op` (the workload decides whether to go on).
  void record_error(OpId op) noexcept { ++ops_[op].errors; }
  /// Adds `value` to this worker's counter `counter`.
  void add_counter(CounterId counter, std::uint64_t value) noexcept;
  /// Monotonic ns at which the current recording began (warm-up or measurement start, after
  /// the stats were reset), 0 before: an op started earlier is timed from here (OpTimer).
  [[nodiscard]] std::uint64_t recording_start_ns() const noexcept { return recording_start_ns_; }

 private:
  // Single writer per slot: load+store instead of a locked read-modify-write.
  void bump_live(std::uint64_t bytes) noexcept {
    live_bytes_->store(live_bytes_->load(std::memory_order_relaxed) + bytes,
                       std::memory_order_relaxed);
    live_ops_->store(live_ops_->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  bool on_state_change(std::uint32_t state) noexcept;

  std::size_t phase_index_;
  std::size_t worker_index_;
  std::size_t worker_count_;
  std::span<const Target> targets_;
  const Engine& engine_;
  std::uint64_t seed_;
  const std::atomic<std::uint32_t>& state_;
  detail::WorkerSlot& slot_;
  std::span<OpStats> ops_;
  std::atomic<std::uint64_t>* live_bytes_;
  std::atomic<std::uint64_t>* live_ops_;
  std::uint32_t seen_state_;
  std::uint64_t ops_limit_;
  std::uint64_t recording_start_ns_ = 0;
};

/// Times back-to-back ops with one clock read each: the end of op N is the start of op N+1.
/// Usage: `OpTimer t; for (...) { do_io(); t.lap(ctx, kWrite, bs); }`.
class OpTimer {
 public:
  OpTimer() noexcept : last_ns_(monotonic_ns()) {}
  /// Records the time since the previous lap (or construction/restart) as one op; an op that
  /// began before the recording did (warm-up ending inside keep_going()) counts from its start,
  /// so the stats reset done there is not in any op's latency.
  void lap(WorkerContext& ctx, OpId op, std::uint64_t bytes) noexcept {
    const std::uint64_t now = monotonic_ns();
    const std::uint64_t start = std::max(last_ns_, ctx.recording_start_ns());
    ctx.record(op, bytes, now - start);
    last_ns_ = now;
  }
  /// Starts timing afresh (after untimed work between ops).
  void restart() noexcept { last_ns_ = monotonic_ns(); }
  /// Clock value of the last lap, ns.
  [[nodiscard]] std::uint64_t last_ns() const noexcept { return last_ns_; }

 private:
  std::uint64_t last_ns_;
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
  /// `phase`. Throws IoError (setup failed) or ConfigError.
  [[nodiscard]] virtual std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                                 WorkerContext& ctx) = 0;
  /// Untimed, in the runner's process, after all workers of `phase` ended.
  virtual void after_phase(std::size_t /*phase*/, PrepareContext& /*ctx*/) {}
  /// Untimed, once, after the last phase (also after a failure or interruption).
  virtual void finish(PrepareContext& /*ctx*/) {}
};

/// What a workload factory is given.
struct WorkloadSetup {
  const Params& params;
  /// Targets as the user named them; at least one.
  std::span<const std::filesystem::path> targets;
};

/// Builds a workload; throws ConfigError naming the parameter for invalid combinations.
using WorkloadFactory = std::function<std::unique_ptr<Workload>(const WorkloadSetup&)>;

/// A registered workload: name, one-line summary, declared parameters and factory.
struct WorkloadInfo {
  std::string name;     ///< e.g. "disk"
  std::string summary;  ///< one line for `iobench list`
  std::vector<ParamSpec> params;
  WorkloadFactory factory;
  /// true: every target must be a directory (the workload creates files); false: existing files
  /// or block devices are accepted too, for reading.
  bool needs_directory_targets = true;
};

}  // namespace iobench
