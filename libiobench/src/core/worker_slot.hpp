#pragma once

#include <atomic>
#include <cstdint>
#include <iobench/metrics.hpp>
#include <iobench/workload.hpp>

#include "metrics/cpu_reading.hpp"

namespace iobench {

/// How far a worker got; each stage bumps the PhaseShared counter of the same name once. A
/// worker process that dies is brought to kFinished by the runner, which bumps what it missed.
enum WorkerStage : std::uint32_t { kStarted = 0, kReady = 1, kEnded = 2, kFinished = 3 };

namespace detail {

/// A worker's time series on its way to the runner, in the worker's slot. The worker fills
/// `current`; when an op completes past the interval's end it copies `current` into the ring
/// and bumps `published` (release); the runner reads entries below `published` and bumps
/// `consumed`. Single writer each side, no lock; a full ring (a runner stalled for kRing
/// intervals) makes the worker keep adding to `current` (counted in its latest interval), so
/// no op is lost. At the warm-up's end the warm-up's last interval goes to `warmup_tail`, so the
/// two never mix. After the worker finished the runner takes the ring's rest, `warmup_tail` and
/// `current`: every recorded op is in exactly one entry.
struct SeriesSlot {
  static constexpr std::size_t kRing = 8;
  std::uint64_t interval_ns = static_cast<std::uint64_t>(kDefaultSeriesInterval.count());
  /// Start of the warm-up [0] and of the measurement [1], set by the runner before it moves the
  /// phase state there (0 in a testing::WorkerHarness).
  std::atomic<std::uint64_t> origin_ns[2] = {0, 0};
  IntervalStats current{};
  IntervalStats warmup_tail{};
  alignas(64) std::atomic<std::uint64_t> published{0};
  alignas(64) std::atomic<std::uint64_t> consumed{0};
  IntervalStats ring[kRing] = {};
  /// PhaseSpec::per_op_series (else null): kRing + 1 arrays of `op_count` entries in the
  /// phase's shared memory (PhaseMemory). Array r (r < kRing): the worker's per-op totals
  /// (OpStats: ops, bytes, errors, latency count and sum) when it published ring[r], written
  /// before `published` is bumped, for a measured interval only. Array kRing: the runner's
  /// own, the totals it has taken so far (the differences are the intervals' op_points).
  SeriesOpPoint* op_ring = nullptr;
  std::size_t op_count = 0;
};

/// One op kind's totals as SeriesSlot::op_ring keeps them.
inline SeriesOpPoint series_op_totals(const OpStats& stats) noexcept {
  return {.ops = stats.ops,
          .bytes = stats.bytes,
          .errors = stats.errors,
          .latency_samples = stats.latency.count(),
          .latency_sum_ns = stats.latency.sum()};
}

}  // namespace detail

/// What one worker publishes, in shared memory (threads and forked processes alike). The worker
/// is the only writer of everything but nothing here is read by it from others; the runner reads
/// the live counters while it runs and the rest after `finished` was bumped.
struct WorkerContext::Slot {
  std::atomic<std::uint64_t> live_bytes{0};
  std::atomic<std::uint64_t> live_ops{0};
  /// The live display's view (WorkerContext::plan_work(), begin_fsync()); relaxed, read by the
  /// runner only for progress.
  std::atomic<std::uint64_t> planned_ops{0};
  std::atomic<std::uint64_t> planned_bytes{0};
  std::atomic<std::uint32_t> in_fsync{0};
  /// Start of the current recording (warm-up or measurement) as this worker saw it; 0 before.
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;      ///< when run() returned or threw (0: it never ran)
  detail::CpuReading cpu_start;  ///< right after start_ns
  detail::CpuReading cpu_end;    ///< right before end_ns
  /// WorkerContext::time_phase_by_ops(): 1 once the worker called it, with its first op's start
  /// and its last op's end (monotonic ns; both 0: it did no op).
  std::uint32_t ops_span_reported = 0;
  std::uint64_t ops_first_start_ns = 0;
  std::uint64_t ops_last_end_ns = 0;
  /// Measured ops this worker may do (UINT64_MAX: no limit); counted from the measure start.
  std::uint64_t ops_limit = UINT64_MAX;
  /// live_ops when this worker saw the measurement start (UINT64_MAX before): the runner's
  /// view of how many measured ops it has done, for the wear-out.
  std::atomic<std::uint64_t> measure_base_ops{UINT64_MAX};
  /// Wear-out (kWearOut): the measured ops every worker is to reach, set by the runner before it
  /// moves the state there.
  std::atomic<std::uint64_t> wear_out_ops{UINT64_MAX};
  /// 1: the worker waits in the wear-out's hold (kHold), its measured ops final until the
  /// runner sets the target (stored with release after its last op's live_ops).
  std::atomic<std::uint32_t> held{0};
  std::uint64_t counters[kMaxCounters] = {};
  PacingStats pacing;  ///< open-loop phases: how the worker kept to its schedule
  /// 1: the worker is a forked process, so its CPU is its whole process's (set by the runner).
  std::uint32_t whole_process = 0;
  /// 1: the worker runs in a thread the runner started for it, beside other threads of its
  /// process (set by the runner): WorkerContext::own_descriptor_table() unshares there only.
  std::uint32_t worker_thread = 0;
  /// 1: the current recording is the measurement (the warm-up, if any, had ended when it
  /// began). A worker that ends while this is 0 measured nothing.
  std::uint32_t measuring = 0;
  std::atomic<std::uint32_t> stage{kStarted};  ///< WorkerStage
  /// 1: the runner killed this worker process on a second stop request (set by the runner).
  std::uint32_t hurried = 0;
  std::int32_t failed = 0;    ///< 1: the worker's setup or run threw
  char message[1024] = {};    ///< what() of the failure, NUL-terminated
  detail::SeriesSlot series;  ///< the time series (its own protocol, see SeriesSlot)
};

/// The one way to build a WorkerContext (its constructor is private): the phase executor and
/// testing::WorkerHarness.
struct WorkerContextAccess {
  using Slot = WorkerContext::Slot;
  template <typename... Args>
  [[nodiscard]] static WorkerContext make(Args&&... args) {
    return WorkerContext(std::forward<Args>(args)...);
  }
};

namespace detail {

using WorkerSlot = WorkerContextAccess::Slot;

/// Phase states the runner publishes to workers through one shared atomic word. The state only
/// moves forward; kHold (PhaseSpec::wear_out at the time limit) keeps every worker waiting at
/// its next keep_going() while the ranks agree on the wear-out's target; kWearOut goes on
/// measuring past the time limit until each worker has done its slot's wear_out_ops (IOR's
/// wear-out); kStop ends a phase normally (time limit), kAbort abandons it (stop request, a
/// worker failed).
enum PhaseState : std::uint32_t {
  kWaiting = 0,
  kWarmup = 1,
  kMeasure = 2,
  kHold = 3,
  kWearOut = 4,
  kStop = 5,
  kAbort = 6
};

/// State shared by all workers of a phase.
struct PhaseShared {
  std::atomic<std::uint32_t> state{kWaiting};  ///< PhaseState
  std::atomic<std::uint32_t> ready{0};         ///< workers past make_worker()
  std::atomic<std::uint32_t> ended{0};         ///< workers whose run() returned or threw
  std::atomic<std::uint32_t> finished{0};      ///< workers past their untimed tear-down
};

/// At the end of a worker's thread, after its tear-down: if WorkerContext::own_descriptor_table()
/// gave the calling thread a table of its own, closes every descriptor still in it (the copies
/// of the descriptors the process had open when it was made, and any the worker left open), so
/// that none outlives the phase (a thread's table is released only at its exit, which may come
/// after the runner joined it). Nothing otherwise.
void release_own_descriptor_table() noexcept;

}  // namespace detail
}  // namespace iobench
