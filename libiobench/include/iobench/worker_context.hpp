#pragma once

/// What a workload's workers see: their target (Target), the per-worker recording view
/// (WorkerContext) and its op timer (OpTimer). Part of <iobench/workload.hpp>, which includes it.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <iobench/clock.hpp>
#include <iobench/confined_dir.hpp>
#include <iobench/engine.hpp>
#include <iobench/metrics.hpp>
#include <iobench/time_series.hpp>
#include <span>

namespace iobench {

namespace detail {
/// A worker thread's `--explain=ops` state (explain_bpf/session.cpp): its slot in the BPF
/// program's map and its per-op split so far. Opaque here.
struct ExplainOps;
/// The op that ended at `end_ns` (monotonic ns) after `latency_ns`, of kind `op`: its layers
/// (the BPF program's, in the slot) go to the worker's split, and the next op begins at `end_ns`.
void explain_op_end(ExplainOps& e, std::uint16_t op, std::uint64_t latency_ns,
                    std::uint64_t end_ns) noexcept;
/// The worker's next op begins at `start_ns` (monotonic ns), not where the previous one ended.
void explain_op_begin(ExplainOps& e, std::uint64_t start_ns) noexcept;
/// The worker keeps several ops in flight: none of its ops is split from here on (the phase's
/// explain_bpf says why).
void explain_ops_overlap(ExplainOps& e) noexcept;
}  // namespace detail

/// Where a worker does its I/O: what the user named (-d) and the run's own directory in it.
struct Target {
  /// As the user gave it.
  std::filesystem::path user_path{};
  /// The fresh directory `iobench.<pid>.<random>` the run created inside `user_path` and removes at
  /// the end, as a descriptor opened once when it was made (threads and forked workers share it;
  /// run_dir.path() is its path, for messages only). Workloads create, open, list and remove
  /// every file through it, so the kernel resolves all their names beneath it (ConfinedDir).
  /// Empty (false) when `is_existing_file`.
  ConfinedDir run_dir{};
  /// `user_path` is an existing regular file or block device: workloads may read it, never write.
  bool is_existing_file = false;
};

/// One op's latency and, where the phase records them (PhaseSpec::latency_parts), its parts, all
/// in ns (see OpLatencyParts for what each part spans).
struct OpTimes {
  std::uint64_t latency_ns = 0;     ///< total: issue (or, open loop, intended issue) to completion
  std::uint64_t submission_ns = 0;  ///< slat
  std::uint64_t completion_ns = 0;  ///< clat
  std::uint64_t service_ns = 0;     ///< open loop: actual issue to completion
};

using CounterId = std::uint16_t;
inline constexpr std::size_t kMaxCounters = 16;

/// The index of the target worker `worker_index` of a phase works in, among `target_count`
/// targets (at least 1): workers are spread over the targets in turn, worker i in target
/// i % target_count, as the seeds' test runs one worker per disk. WorkerContext::target_index()
/// and WorkerResult::target_index follow this rule; use it where a workload plans per target
/// (planned_bytes(), prepare()) without a WorkerContext.
[[nodiscard]] constexpr std::size_t target_index_of(std::size_t worker_index,
                                                    std::size_t target_count) noexcept {
  return target_count == 0 ? 0 : worker_index % target_count;
}

/// Per-worker view handed to a workload's workers. Owned by the runner; lives in the worker's
/// thread (or process). record() and keep_going() are inline and allocation-free: one relaxed
/// atomic load and a few adds per op.
///
/// Only the runner builds one; to unit-test a workload's workers without the runner, use
/// testing::WorkerHarness (<iobench/testing.hpp>).
class WorkerContext final {
 public:
  [[nodiscard]] std::size_t phase_index() const noexcept { return phase_index_; }
  [[nodiscard]] std::size_t worker_index() const noexcept { return worker_index_; }
  [[nodiscard]] std::size_t worker_count() const noexcept { return worker_count_; }
  /// All targets of the step, in the order the user gave them.
  [[nodiscard]] std::span<const Target> targets() const noexcept { return targets_; }
  /// Index of this worker's target in targets(): target_index_of(worker_index(), targets().size()).
  [[nodiscard]] std::size_t target_index() const noexcept {
    return target_index_of(worker_index_, targets_.size());
  }
  /// This worker's target: targets()[target_index()]. REQUIRES: targets() is not empty.
  [[nodiscard]] const Target& target() const noexcept { return targets_[target_index()]; }
  [[nodiscard]] const Engine& engine() const noexcept { return engine_; }
  /// Seed for this worker's random generator: the step seed mixed with the worker index (and
  /// reported in results, so a run can be repeated).
  [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

  /// False once the phase must end: time limit reached, op limit reached, or stop requested
  /// (SIGINT/SIGTERM, the run's stop token, another worker failed). Also ends the warm-up
  /// (resetting stats) when due.
  /// Call it at least once per op in loops whose length is not fixed.
  [[nodiscard]] bool keep_going() noexcept {
    const std::uint32_t state = state_.load(std::memory_order_relaxed);
    if (state != seen_state_) [[unlikely]]
      return on_state_change(state);
    return live_ops_->load(std::memory_order_relaxed) < ops_limit_;
  }
  /// keep_going() for a worker with `pending_ops` issued and not yet recorded (a queue's
  /// requests in flight): they count against the op limit, so it is not overshot.
  [[nodiscard]] bool keep_going(std::uint64_t pending_ops) noexcept {
    const std::uint32_t state = state_.load(std::memory_order_relaxed);
    if (state != seen_state_) [[unlikely]] {
      if (!on_state_change(state)) return false;
    }
    return live_ops_->load(std::memory_order_relaxed) + pending_ops < ops_limit_;
  }

  /// True once the phase is being abandoned: a stop was requested (SIGINT/SIGTERM/SIGHUP) or
  /// another worker failed; not at a normal end such as the time limit. For long untimed loops
  /// in make_worker() (e.g. creating the file a read phase reads), which should then stop and
  /// return nullptr (the worker does not run), and for work after the loop that only makes the
  /// result complete (a closing fsync) and may be skipped on the way out. Works in worker
  /// threads and worker processes; costs an atomic load and a call, so check it per chunk of
  /// work (a MiB written, a directory made), not per byte. run() loops use keep_going().
  [[nodiscard]] bool stop_requested() const noexcept;
  /// True once the runner has ended the phase (its time limit, a stop request, another worker
  /// failed), as opposed to this worker reaching its op limit or its last op. An open-loop
  /// worker that ran out of ops waits out its last op's interval unless this turns true
  /// (IoDriver, wait_out_interval()).
  [[nodiscard]] bool phase_ended() const noexcept;
  /// True once the runner has begun the phase's wear-out (PhaseSpec::wear_out, --wear-out): the
  /// time limit passed and keep_going() stays true until this worker has done the ops the
  /// runner set (the most any worker had done). mdtest's stonewall counts each worker's items
  /// up to here. One relaxed atomic load.
  [[nodiscard]] bool wearing_out() const noexcept;

  /// Records one completed op of kind `op` that moved `bytes` in `latency_ns` and completed at
  /// `end_ns` (monotonic_ns()); the phase's time series counts it in the interval holding
  /// `end_ns`. No allocation, lock or system call: a compare per op, and a hand-over of the
  /// finished interval to the runner when `end_ns` passes the interval's end.
  /// In a phase that records latency parts (PhaseSpec::latency_parts), an op recorded without
  /// them (a closing fsync, a synchronous call) has no queue and no schedule: its whole latency
  /// counts as its completion latency and service time (submission 0), so every part holds one
  /// sample per op.
  void record(OpId op, std::uint64_t bytes, std::uint64_t latency_ns,
              std::uint64_t end_ns) noexcept {
    record_latency(op, bytes, latency_ns, end_ns);
    if (parts_kind_.submission_completion) [[unlikely]] {
      parts_[op].submission.record(0);
      parts_[op].completion.record(latency_ns);
    }
    if (parts_kind_.service) [[unlikely]]
      parts_[op].service.record(latency_ns);
  }
  /// record() of an op that completed just now (reads the clock: pass `end_ns` where the caller
  /// has it).
  void record(OpId op, std::uint64_t bytes, std::uint64_t latency_ns) noexcept {
    record(op, bytes, latency_ns, monotonic_ns());
  }
  /// Records one completed op with its latency parts (OpTimes), completed at `end_ns`; the parts
  /// the phase does not record (PhaseSpec::latency_parts) are ignored. As cheap as record()
  /// plus one histogram update per recorded part.
  void record(OpId op, std::uint64_t bytes, const OpTimes& times, std::uint64_t end_ns) noexcept {
    record_latency(op, bytes, times.latency_ns, end_ns);
    if (parts_kind_.submission_completion) {
      parts_[op].submission.record(times.submission_ns);
      parts_[op].completion.record(times.completion_ns);
    }
    if (parts_kind_.service) parts_[op].service.record(times.service_ns);
  }
  /// record(op, bytes, times, end_ns) of an op that completed just now (reads the clock).
  void record(OpId op, std::uint64_t bytes, const OpTimes& times) noexcept {
    record(op, bytes, times, monotonic_ns());
  }
  /// Counts one completed op of kind `op` that moved `bytes` without its latency (an op that
  /// latency sampling left untimed, IoDriverOptions::latency_sample): its ops and bytes count
  /// exactly (also for the op limit and the live display); the latency histograms, the latency
  /// parts and the slow-op counts hold only the ops recorded with record(). No clock read: the
  /// time series counts it in the current interval, that of the worker's latest record()ed
  /// op, so with 1 op in N timed (one at a random position in each N) it lands at most 2N - 2
  /// ops' time early, only ever in an interval before its own.
  void record_unsampled(OpId op, std::uint64_t bytes) noexcept {
    ops_[op].count_unsampled(bytes);
    bump_live(bytes);
    IntervalStats& current = *interval_;
    ++current.ops;
    current.bytes += bytes;
  }
  /// Counts a failed op of kind `op` (the workload decides whether to go on); the time series
  /// counts it in the interval of the worker's latest recorded op.
  void record_error(OpId op) noexcept {
    ++ops_[op].errors;
    ++interval_->errors;
  }
  /// Tells the live display the work this worker does in this phase, warm-up included: `ops`
  /// ops moving `bytes` bytes (0: not known). Only for its % done and ETA (ProgressSnapshot);
  /// it limits nothing. Call it once, before the loop: two relaxed atomic stores.
  void plan_work(std::uint64_t ops, std::uint64_t bytes) noexcept;
  /// Announces the worker's closing fsync (after its last op): while every worker still running
  /// has announced it, the phase's state is ProgressState::kFsync. A relaxed atomic store.
  void begin_fsync() noexcept;
  /// Open loop: an op was issued `lag_ns` after its intended time (0 if on time).
  void record_issue_lag(std::uint64_t lag_ns) noexcept;
  /// Open loop: when the worker stops, `ops` were due and never issued.
  void record_backlog(std::uint64_t ops) noexcept;
  /// Adds `value` to this worker's counter `counter`.
  void add_counter(CounterId counter, std::uint64_t value) noexcept;
  /// Times the phase by its workers' ops, as mdtest times its phases: this worker's measured
  /// work ran from `first_op_start_ns`, when its first op began, to `last_op_end_ns`, when its
  /// last op ended (or work after it the phase times: mdtest -Y's sync(2) after the phase),
  /// both monotonic_ns(); a worker that did no op passes 0, 0. Call it once, at the end of
  /// run(), and also before an exception leaves run(), so that a failed worker's ops count.
  ///
  /// Once any worker of a phase (of a serial phase's group: each group is timed apart) calls
  /// it, the phase's (group's) measured window (PhaseResult::wall_ns,
  /// stonewall_ns and, under mpirun, the rank's window in the aggregate) runs from the earliest
  /// `first_op_start_ns` to the latest `last_op_end_ns` of the workers that passed a span
  /// (stonewall_ns: to the earliest `last_op_end_ns`), not from the runner's release of the
  /// workers, whose start-up (a thread's wake-up, ~0.1-0.3 ms) would otherwise count in a short
  /// phase's rate. Workers that passed 0, 0 or never called it count in no window; a phase (of
  /// this rank) none of whose workers passed a span has wall_ns 0 and no rank window. A start
  /// before the measurement began (a warm-up's op) counts from the measurement's start. This
  /// worker's WorkerResult::elapsed_ns is then its own span so counted (0 for 0, 0), and its
  /// CPU time is min(its run()'s CPU time from the measurement's start, its span): an upper bound
  /// of the CPU it used inside its span, not a measurement of it. The time series keeps its origin
  /// at the measurement's start. Not inline and no member added: plugins of this ABI that never
  /// call it are timed as before.
  void time_phase_by_ops(std::uint64_t first_op_start_ns, std::uint64_t last_op_end_ns) noexcept;
  /// `--explain=ops` (RunOptions::explain): the next op begins at `start_ns` (monotonic_ns()).
  /// By default an op begins where the previous one ended (back-to-back ops, OpTimer); a loop
  /// with untimed work between ops calls this where the op's clock starts, so that the BPF
  /// program's layers (block requests, time off CPU) are taken over the op's own span. One
  /// predictable branch when --explain is off.
  void op_begins(std::uint64_t start_ns) noexcept {
    if (explain_ != nullptr) [[unlikely]]
      detail::explain_op_begin(*explain_, start_ns);
  }
  /// `--explain=ops`: this worker keeps several ops in flight (queue depth > 1, an asynchronous
  /// engine), so one span of its time is no one op's: its ops are not split, and the phase's
  /// explain_bpf says so (--explain=syscalls splits their system calls instead).
  void ops_overlap() noexcept {
    ops_overlap_ = true;  // also for a measurement that starts later (after a warm-up)
    if (explain_ != nullptr) [[unlikely]] {
      detail::explain_ops_overlap(*explain_);
      explain_ = nullptr;
    }
  }
  /// Monotonic ns at which the current recording began (warm-up or measurement start, after
  /// the stats were reset), 0 before: an op started earlier is timed from here (OpTimer).
  [[nodiscard]] std::uint64_t recording_start_ns() const noexcept { return recording_start_ns_; }

  /// Gives the calling worker thread a descriptor table of its own (unshare(2) CLONE_FILES), as
  /// each of fio's process workers has. Why: while a thread's table is shared with another
  /// thread, the kernel takes and drops a reference on the open file at every system call on a
  /// descriptor (fdget()/fdput(): two atomic operations on the file's shared counter), which
  /// costs ~2-3 % of a 4 KiB page-cache pread; a thread alone in its table skips them, as a
  /// single-threaded program does. Call it in make_worker() before opening the worker's files,
  /// in a worker that opens, uses and closes its descriptors alone (disk's workers do).
  ///
  /// What changes for the worker thread, until it exits:
  /// - its table is a copy of the process's at the moment of the call: descriptors open then
  ///   (the run directory's, Target::run_dir) stay usable under the same numbers;
  /// - descriptors it opens afterwards exist in its table only: no other thread (the runner,
  ///   another worker) can use them, and the worker closes them itself (in run() or in its
  ///   destructor, both called in its thread); descriptors other threads open afterwards are
  ///   not in it;
  /// - every descriptor open elsewhere in the process at the moment of the call stays open, its
  ///   file referenced, until the worker's thread exits, even after its owner closed it (a
  ///   pipe's reader sees no end of file, a file system stays busy, an unlinked file keeps its
  ///   space). The runner closes what the table still holds when the worker's tear-down is
  ///   done, before it counts the worker finished, so nothing outlives the phase;
  /// - /proc/self/fd names the process's (its main thread's) table, not this one: the worker
  ///   names its own descriptors through /proc/thread-self/fd (ConfinedDir does).
  ///
  /// Done only in a worker thread the runner started (the runner's threads, and the threads of a
  /// worker process that holds several workers). Not done (returns false, the table stays
  /// shared) where the worker runs in its process's only worker thread, the main one (a worker
  /// process of one worker: its table is its own already, since fork), in testing::WorkerHarness,
  /// in a ThreadSanitizer build (by design: TSan's interceptors keep one record per descriptor
  /// number for the whole process, which two tables reusing the numbers would confuse), and
  /// where the kernel refuses the call (a seccomp filter: EPERM or ENOSYS; ENOMEM): the worker
  /// then goes on with the shared table, only slower. Returns true when the calling thread has
  /// a table of its own (by this call or an earlier one in the same thread). A system call that
  /// copies the table (O(descriptors open)): untimed set-up only.
  bool own_descriptor_table() noexcept;

 private:
  friend struct WorkerContextAccess;  // the runner's (and testing::WorkerHarness's) constructor
  /// The runner's record of this worker in memory shared with worker processes (opaque here).
  struct Slot;
  /// `state` is the phase's shared state word; `slot` this worker's shared slot; `ops` its
  /// OpStats (one per op name); `ops_limit` 0 for none; `parts` one OpLatencyParts per op name
  /// when `parts_kind.any()` (else empty).
  WorkerContext(std::size_t phase_index, std::size_t worker_index, std::size_t worker_count,
                std::span<const Target> targets, const Engine& engine, std::uint64_t seed,
                const std::atomic<std::uint32_t>& state, Slot& slot, std::span<OpStats> ops,
                std::uint64_t ops_limit, std::span<OpLatencyParts> parts = {},
                LatencyPartsKind parts_kind = {});

  void record_latency(OpId op, std::uint64_t bytes, std::uint64_t latency_ns,
                      std::uint64_t end_ns) noexcept {
    // The interval first: a roll hands over the per-op totals (PhaseSpec::per_op_series),
    // which must not hold this op yet.
    record_interval(bytes, latency_ns, end_ns);
    ops_[op].record(bytes, latency_ns);
    bump_live(bytes);
    if (explain_ != nullptr) [[unlikely]]
      detail::explain_op_end(*explain_, op, latency_ns, end_ns);
  }
  // Single writer per slot: load+store instead of a locked read-modify-write.
  void bump_live(std::uint64_t bytes) noexcept {
    live_bytes_->store(live_bytes_->load(std::memory_order_relaxed) + bytes,
                       std::memory_order_relaxed);
    live_ops_->store(live_ops_->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  bool on_state_change(std::uint32_t state) noexcept;
  // The time series: one compare per op; the rare hand-over is out of line.
  void record_interval(std::uint64_t bytes, std::uint64_t latency_ns,
                       std::uint64_t end_ns) noexcept {
    if (end_ns >= next_boundary_ns_) [[unlikely]]
      roll_interval(end_ns);
    IntervalStats& current = *interval_;
    ++current.ops;
    current.bytes += bytes;
    current.latency.record(latency_ns);
  }
  void roll_interval(std::uint64_t end_ns) noexcept;
  void restart_series(bool warmup) noexcept;

  std::size_t phase_index_;
  std::size_t worker_index_;
  std::size_t worker_count_;
  std::span<const Target> targets_;
  const Engine& engine_;
  std::uint64_t seed_;
  const std::atomic<std::uint32_t>& state_;
  Slot& slot_;
  std::span<OpStats> ops_;
  std::span<OpLatencyParts> parts_;
  LatencyPartsKind parts_kind_;
  std::atomic<std::uint64_t>* live_bytes_;
  std::atomic<std::uint64_t>* live_ops_;
  std::uint32_t seen_state_;
  std::uint64_t ops_limit_;
  std::uint64_t recording_start_ns_ = 0;
  IntervalStats* interval_;  // the slot's current interval
  /// Op completions from here on belong to the next interval (UINT64_MAX: not recording yet).
  std::uint64_t next_boundary_ns_ = UINT64_MAX;
  std::uint64_t interval_origin_ns_ = 0;  // start of the current part (warm-up, measurement)
  /// --explain=ops while measuring: this thread's split (null: off, the common case). Last, so
  /// that the offsets of the members above are those plugins of ABI 4 were built with.
  detail::ExplainOps* explain_ = nullptr;
  bool ops_overlap_ = false;  // ops_overlap() was called
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
    ctx.record(op, bytes, now - start, now);
    last_ns_ = now;
  }
  /// Starts timing afresh (after untimed work between ops).
  void restart() noexcept { last_ns_ = monotonic_ns(); }
  /// Clock value of the last lap, ns.
  [[nodiscard]] std::uint64_t last_ns() const noexcept { return last_ns_; }

 private:
  std::uint64_t last_ns_;
};

}  // namespace iobench
