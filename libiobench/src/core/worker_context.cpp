#include <algorithm>
#include <iobench/workload.hpp>

#include "core/worker_slot.hpp"

namespace iobench {

WorkerContext::WorkerContext(std::size_t phase_index, std::size_t worker_index,
                             std::size_t worker_count, std::span<const Target> targets,
                             const Engine& engine, std::uint64_t seed,
                             const std::atomic<std::uint32_t>& state, detail::WorkerSlot& slot,
                             std::span<OpStats> ops, std::uint64_t ops_limit)
    : phase_index_(phase_index),
      worker_index_(worker_index),
      worker_count_(worker_count),
      targets_(targets),
      engine_(engine),
      seed_(seed),
      state_(state),
      slot_(slot),
      ops_(ops),
      live_bytes_(&slot.live_bytes),
      live_ops_(&slot.live_ops),
      seen_state_(detail::kWaiting),
      ops_limit_(ops_limit == 0 ? UINT64_MAX : ops_limit) {}

bool WorkerContext::on_state_change(std::uint32_t state) noexcept {
  const std::uint32_t previous = seen_state_;
  seen_state_ = state;
  if (state == detail::kStop) {
    ops_limit_ = 0;  // the inline fast path now answers false too
    return false;
  }
  const bool measurement_starts =
      (state == detail::kWarmup && previous == detail::kWaiting) || state == detail::kMeasure;
  if (measurement_starts) {
    // Entering warm-up or measurement: whatever was recorded before is discarded, and the clock
    // and CPU baseline restart here.
    for (OpStats& stats : ops_) stats = OpStats{};
    std::fill(std::begin(slot_.counters), std::end(slot_.counters), 0);
    slot_.start_ns = monotonic_ns();
    slot_.cpu_start = thread_cpu_times();
    const std::uint64_t done = live_ops_->load(std::memory_order_relaxed);
    const std::uint64_t limit =
        ops_limit_ == UINT64_MAX ? UINT64_MAX : ops_limit_ - slot_.ops_limit_base;
    slot_.ops_limit_base = done;
    ops_limit_ = limit == UINT64_MAX ? UINT64_MAX : done + limit;
    recording_start_ns_ = monotonic_ns();
  }
  return live_ops_->load(std::memory_order_relaxed) < ops_limit_;
}

void WorkerContext::add_counter(CounterId counter, std::uint64_t value) noexcept {
  if (counter < kMaxCounters) slot_.counters[counter] += value;
}

}  // namespace iobench
