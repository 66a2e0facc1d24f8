#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iobench/runner.hpp>
#include <iobench/workload.hpp>
#include <iterator>

#include "core/futex.hpp"
#include "core/worker_slot.hpp"
#include "explain_bpf/session.hpp"

// ThreadSanitizer keeps one record per descriptor number for the whole process: a worker thread
// keeps the process's table there (WorkerContext::own_descriptor_table()).
#if defined(__SANITIZE_THREAD__)
#define IOBENCH_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IOBENCH_UNDER_TSAN 1
#endif
#endif
#ifndef IOBENCH_UNDER_TSAN
#define IOBENCH_UNDER_TSAN 0
#endif

namespace iobench {

namespace {
// The calling thread's descriptor table is its own: own_descriptor_table() unshared it.
thread_local bool t_own_table = false;
}  // namespace

WorkerContext::WorkerContext(std::size_t phase_index, std::size_t worker_index,
                             std::size_t worker_count, std::span<const Target> targets,
                             const Engine& engine, std::uint64_t seed,
                             const std::atomic<std::uint32_t>& state, Slot& slot,
                             std::span<OpStats> ops, std::uint64_t ops_limit,
                             std::span<OpLatencyParts> parts, LatencyPartsKind parts_kind)
    : phase_index_(phase_index),
      worker_index_(worker_index),
      worker_count_(worker_count),
      targets_(targets),
      engine_(engine),
      seed_(seed),
      state_(state),
      slot_(slot),
      ops_(ops),
      parts_(parts),
      parts_kind_(parts.size() >= ops.size() ? parts_kind : LatencyPartsKind{}),
      live_bytes_(&slot.live_bytes),
      live_ops_(&slot.live_ops),
      seen_state_(detail::kWaiting),
      ops_limit_(ops_limit == 0 ? UINT64_MAX : ops_limit),
      interval_(&slot.series.current) {
  slot_.ops_limit = ops_limit_;
}

bool WorkerContext::on_state_change(std::uint32_t state) noexcept {
  const std::uint32_t previous = seen_state_;
  seen_state_ = state;
  if (state >= detail::kStop) {
    ops_limit_ = 0;  // the inline fast path now answers false too
    return false;
  }
  // A worker that looks late may see the wear-out without having seen the measurement start.
  const bool measurement_starts = (state == detail::kWarmup && previous == detail::kWaiting) ||
                                  (state >= detail::kMeasure && previous < detail::kMeasure);
  if (measurement_starts) {
    // --explain: this thread's system calls are split from its measurement's start (a warm-up's
    // are not, as its ops are not), until the worker's run ends (group_workers.cpp).
    if (state >= detail::kMeasure) {
      explain_ = detail::explain_bpf_worker_begin(ops_.size());
      if (ops_overlap_) ops_overlap();
    }
    // Entering warm-up or measurement: whatever was recorded before is discarded, and the clock
    // and CPU baseline restart here.
    for (OpStats& stats : ops_) stats.reset();
    for (OpLatencyParts& parts : parts_) parts.reset();
    slot_.pacing = PacingStats{.paced = slot_.pacing.paced};
    std::fill(std::begin(slot_.counters), std::end(slot_.counters), 0);
    slot_.measuring = state >= detail::kMeasure ? 1 : 0;
    // Clock first, CPU second: the CPU window then lies inside the wall window.
    slot_.start_ns = monotonic_ns();
    slot_.cpu_start =
        slot_.whole_process != 0 ? detail::read_process_cpu() : detail::read_thread_cpu();
    // The op limit counts measured ops only: a warm-up runs for its time, unlimited.
    const std::uint64_t done = live_ops_->load(std::memory_order_relaxed);
    const std::uint64_t limit = slot_.ops_limit;
    ops_limit_ = state == detail::kWarmup || limit == UINT64_MAX ? UINT64_MAX : done + limit;
    recording_start_ns_ = slot_.start_ns;
    // --explain=ops: the first op's span starts with its latency's.
    if (explain_ != nullptr) detail::explain_op_begin(*explain_, recording_start_ns_);
    restart_series(state == detail::kWarmup);
    if (state >= detail::kMeasure) slot_.measure_base_ops.store(done, std::memory_order_relaxed);
  }
  if (state == detail::kHold) {
    // The wear-out's hold: this worker's count is final until the runner sets the target (every
    // op it recorded is in live_ops, released with `held`), as mdtest's and IOR's ranks wait in
    // their MPI_Allreduce at the stonewall; then the state it moved to applies.
    slot_.held.store(1, std::memory_order_release);
    std::uint32_t next = detail::kHold;
    while ((next = state_.load(std::memory_order_acquire)) == detail::kHold) {
      detail::futex_wait(state_, detail::kHold, std::chrono::milliseconds(20));
    }
    return on_state_change(next);
  }
  if (state == detail::kWearOut) {
    // The runner stored the target before it moved the state (see restart_series()).
    (void)state_.load(std::memory_order_acquire);
    const std::uint64_t target = slot_.wear_out_ops.load(std::memory_order_relaxed);
    const std::uint64_t base = slot_.measure_base_ops.load(std::memory_order_relaxed);
    if (target != UINT64_MAX) ops_limit_ = std::min(ops_limit_, base + target);
  }
  return live_ops_->load(std::memory_order_relaxed) < ops_limit_;
}

void WorkerContext::restart_series(bool warmup) noexcept {
  detail::SeriesSlot& series = slot_.series;
  // Acquire the state word again: the runner stored the origin before it moved the state (its
  // CAS releases it), and keep_going() read the state relaxed. A load, not a fence: ThreadSanitizer
  // does not model fences (GCC refuses them under -fsanitize=thread).
  (void)state_.load(std::memory_order_acquire);
  if (series.current.warmup != 0 && !warmup) {
    series.warmup_tail = series.current;  // the warm-up's last interval, never mixed with ops
  }
  series.current = IntervalStats{};
  series.current.warmup = warmup ? 1 : 0;
  interval_origin_ns_ = series.origin_ns[warmup ? 0 : 1].load(std::memory_order_relaxed);
  next_boundary_ns_ = 0;  // the first op sets the interval
}

void WorkerContext::roll_interval(std::uint64_t end_ns) noexcept {
  detail::SeriesSlot& series = slot_.series;
  IntervalStats& current = series.current;
  if (next_boundary_ns_ == UINT64_MAX) return;  // before the recording began: discarded later
  const std::uint64_t index =
      end_ns > interval_origin_ns_ ? (end_ns - interval_origin_ns_) / series.interval_ns : 0;
  if (current.ops != 0 || current.errors != 0) {
    const std::uint64_t published = series.published.load(std::memory_order_relaxed);
    if (published - series.consumed.load(std::memory_order_acquire) < detail::SeriesSlot::kRing) {
      series.ring[published % detail::SeriesSlot::kRing] = current;
      if (series.op_ring != nullptr && current.warmup == 0) [[unlikely]] {
        // PhaseSpec::per_op_series: the per-op totals so far, which hold exactly the ops of
        // this part's intervals up to this one (record_latency() counts the op that rolled
        // the interval in ops_ only after this).
        SeriesOpPoint* totals =
            series.op_ring + (published % detail::SeriesSlot::kRing) * series.op_count;
        for (std::size_t k = 0; k < series.op_count && k < ops_.size(); ++k)
          totals[k] = detail::series_op_totals(ops_[k]);
      }
      series.published.store(published + 1, std::memory_order_release);
      const std::uint32_t warmup = current.warmup;
      current = IntervalStats{};
      current.warmup = warmup;
    }
  }
  current.index = std::max(current.index, index);
  next_boundary_ns_ = interval_origin_ns_ + (current.index + 1) * series.interval_ns;
}

void WorkerContext::record_issue_lag(std::uint64_t lag_ns) noexcept {
  PacingStats& pacing = slot_.pacing;
  pacing.paced = true;
  pacing.late_ops += lag_ns > PacingStats::kLateThresholdNs;
  pacing.max_lag_ns = std::max(pacing.max_lag_ns, lag_ns);
}

void WorkerContext::record_backlog(std::uint64_t ops) noexcept {
  slot_.pacing.paced = true;
  slot_.pacing.backlog_ops += ops;
}
void WorkerContext::plan_work(std::uint64_t ops, std::uint64_t bytes) noexcept {
  slot_.planned_ops.store(ops, std::memory_order_relaxed);
  slot_.planned_bytes.store(bytes, std::memory_order_relaxed);
}

void WorkerContext::begin_fsync() noexcept { slot_.in_fsync.store(1, std::memory_order_relaxed); }

void WorkerContext::time_phase_by_ops(std::uint64_t first_op_start_ns,
                                      std::uint64_t last_op_end_ns) noexcept {
  // Read by the runner after the worker's stage passed kEnded (as end_ns).
  slot_.ops_span_reported = 1;
  slot_.ops_first_start_ns = first_op_start_ns;
  slot_.ops_last_end_ns = last_op_end_ns;
}

bool WorkerContext::stop_requested() const noexcept {
  // In a worker process the stop signals are ignored: the runner turns them into kAbort.
  return state_.load(std::memory_order_relaxed) == detail::kAbort || iobench::stop_requested();
}

bool WorkerContext::phase_ended() const noexcept {
  return state_.load(std::memory_order_relaxed) >= detail::kStop || iobench::stop_requested();
}

bool WorkerContext::wearing_out() const noexcept {
  return state_.load(std::memory_order_relaxed) == detail::kWearOut;
}

bool PrepareContext::stop_requested() const noexcept { return iobench::stop_requested(); }

bool WorkloadSetup::stop_requested() const noexcept {
  return iobench::stop_requested() || run_stop.stop_requested();
}

const RankIdentity& PrepareContext::rank_identity() const {
  static const RankIdentity alone{};
  return alone;
}

std::string PrepareContext::from_rank0(const std::function<std::string()>& produce) {
  return produce();
}

std::vector<std::string> PrepareContext::all_ranks(const std::string& mine) { return {mine}; }

void WorkerContext::add_counter(CounterId counter, std::uint64_t value) noexcept {
  if (counter < kMaxCounters) slot_.counters[counter] += value;
}

bool WorkerContext::own_descriptor_table() noexcept {
  if (t_own_table) return true;
  if (IOBENCH_UNDER_TSAN || slot_.worker_thread == 0) return false;
  // Never the main thread: the process's other threads would keep the old table.
  if (::gettid() == ::getpid()) return false;
  t_own_table = ::unshare(CLONE_FILES) == 0;
  return t_own_table;
}

namespace detail {

void release_own_descriptor_table() noexcept {
  if (!t_own_table) return;
#if defined(SYS_close_range)
  if (::syscall(SYS_close_range, 0U, ~0U, 0U) == 0) return;
#endif
  // Before Linux 5.9 (no close_range): the numbers the table holds, read from its listing (but
  // the listing's own descriptor), closed a batch at a time.
  DIR* dir = ::opendir("/proc/thread-self/fd");
  if (dir == nullptr) return;
  int fds[256];
  std::size_t count = 0;
  bool more = true;
  while (more) {
    more = false;
    count = 0;
    ::rewinddir(dir);
    while (const dirent* entry = ::readdir(dir)) {
      const int fd = std::atoi(entry->d_name);
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || fd == ::dirfd(dir)) continue;
      if (count == std::size(fds)) {
        more = true;  // the rest in the next round, once these are closed
        break;
      }
      fds[count++] = fd;
    }
    for (std::size_t i = 0; i < count; ++i) ::close(fds[i]);
  }
  ::closedir(dir);
}

}  // namespace detail

}  // namespace iobench
