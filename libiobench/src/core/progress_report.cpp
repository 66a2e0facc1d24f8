#include "core/progress_report.hpp"

#include <iobench/clock.hpp>

#include "util/next_tick.hpp"

namespace iobench::detail {
namespace {

// The live display's per-worker view: the counters the workers keep for progress anyway and
// the series' newest complete point.
void fill_worker_progress(const PhaseMemory& memory, std::size_t first, std::size_t count,
                          const SeriesRecorder& series, ProgressSnapshot& snapshot) {
  const std::optional<SeriesRecorder::LatestFigures> latest = series.latest_figures();
  if (latest) snapshot.interval_latency_ns = latest->total;
  snapshot.worker_progress.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const WorkerSlot& slot = *memory.slot(first + i);
    WorkerProgress worker{.worker = first + i,
                          .bytes = slot.live_bytes.load(std::memory_order_relaxed),
                          .ops = slot.live_ops.load(std::memory_order_relaxed),
                          .ended = slot.stage.load() >= kEnded,
                          .in_fsync = slot.in_fsync.load(std::memory_order_relaxed) != 0};
    if (latest && i < latest->workers.size()) worker.interval_latency_ns = latest->workers[i];
    snapshot.worker_progress.push_back(worker);
  }
}

}  // namespace

GroupReporter::GroupReporter(const PhaseRequest& request, const PhaseMemory& memory,
                             std::size_t first, std::size_t count, const SeriesRecorder& series)
    : request_(request),
      memory_(memory),
      series_(series),
      progress_{.first = first,
                .count = count,
                .workers = request.spec.workers,
                .time_limit_ns = static_cast<std::uint64_t>(request.time_limit.count()),
                .warmup_ns = static_cast<std::uint64_t>(request.warmup.count()),
                .ops_limit = request.ops_limit},
      interval_ns_(static_cast<std::uint64_t>(request.progress_interval.count())) {}

void GroupReporter::begin_set_up() {
  progress_.set_up_start_ns = monotonic_ns();
  next_progress_ns_ = request_.on_progress && interval_ns_ > 0
                          ? progress_.set_up_start_ns + interval_ns_
                          : UINT64_MAX;
}

void GroupReporter::measurement_began(std::uint64_t ns) noexcept {
  progress_.measure_start_ns = ns;
  progress_.ops_at_measure_start =
      memory_.live_sum(progress_.first, progress_.count, &WorkerSlot::live_ops);
}

void GroupReporter::report(bool changed) {
  const std::size_t first = progress_.first;
  const std::size_t count = progress_.count;
  progress_.now_ns = monotonic_ns();
  // Each worker's counters are read once: the totals are their sum, so a snapshot's workers
  // always add up to its totals while the workers run on.
  ProgressSnapshot snapshot;
  fill_worker_progress(memory_, first, count, series_, snapshot);
  progress_.bytes = 0;
  progress_.ops = 0;
  for (const WorkerProgress& w : snapshot.worker_progress) {
    progress_.bytes += w.bytes;
    progress_.ops += w.ops;
  }
  bool all_planned = true;
  for (std::size_t i = first; i < first + count; ++i) {
    const WorkerSlot& slot = *memory_.slot(i);
    all_planned = all_planned && (slot.planned_ops.load(std::memory_order_relaxed) != 0 ||
                                  slot.planned_bytes.load(std::memory_order_relaxed) != 0);
  }
  progress_.planned_ops =
      all_planned ? memory_.live_sum(first, count, &WorkerSlot::planned_ops) : 0;
  progress_.planned_bytes =
      all_planned ? memory_.live_sum(first, count, &WorkerSlot::planned_bytes) : 0;
  fill_progress(progress_, snapshot);
  snapshot.state_changed = changed;
  if (const auto p99 = series_.latest_p99_ns()) last_p99_ = p99;
  snapshot.interval_p99_ns = last_p99_;
  request_.on_progress(snapshot);
}

void GroupReporter::show(ProgressState state) {
  if (!request_.on_progress) return;
  if (state != progress_.state || progress_.now_ns == 0) {
    progress_.state = state;
    report(true);
  }
  if (monotonic_ns() >= next_progress_ns_) {
    report(false);
    next_progress_ns_ = next_tick_after(next_progress_ns_, progress_.now_ns, interval_ns_);
  }
}

ProgressState GroupReporter::running_state() const noexcept {
  const PhaseShared& shared = memory_.shared();
  if (shared.state.load() == kWarmup) return ProgressState::kWarmUp;
  std::size_t running = 0, syncing = 0;
  for (std::size_t i = progress_.first; i < progress_.first + progress_.count; ++i) {
    const WorkerSlot& slot = *memory_.slot(i);
    if (slot.stage.load() >= kEnded) continue;
    ++running;
    syncing += slot.in_fsync.load(std::memory_order_relaxed);
  }
  return running > 0 && syncing == running ? ProgressState::kFsync : ProgressState::kMeasuring;
}

}  // namespace iobench::detail
