// FlowopThread's rate limits (eventlimit, opslimit, iopslimit, bwlimit: filebench's
// flowoplib_*limit, taking events from the run's EventGenerator), semblock/sempost, block/wakeup
// and hog.
#include <iobench/clock.hpp>

#include "plugins/filebench/flowop_thread.hpp"

namespace iobench::plugins::filebench {

namespace {
constexpr std::uint64_t kMiB = 1 << 20;  // filebench's MB: the bytes one bwlimit event pays for
}  // namespace

bool FlowopThread::other_step(WorkerContext& ctx, std::size_t index) {
  const FlowopKind kind = def_.flowops[index].kind;
  if (flowop_is_limit(kind)) {
    limit_step(ctx, index);
  } else if (kind == FlowopKind::kSemBlock || kind == FlowopKind::kSemPost) {
    semaphore_step(ctx, index);
  } else if (kind == FlowopKind::kBlock || kind == FlowopKind::kWakeup) {
    block_step(ctx, index);
  } else if (kind == FlowopKind::kHog) {
    hog(ctx, index);
  } else {
    return false;
  }
  return true;
}

void FlowopThread::record_other(WorkerContext& ctx, std::size_t index, std::uint64_t start) {
  const std::uint64_t end = monotonic_ns();
  ctx.record(op_ids_[index], 0, end - start, end);
  ++ops_done_[index];
}

std::uint64_t FlowopThread::limit_count(const FlowopDef& f) const {
  const bool bytes = f.kind == FlowopKind::kBwLimit;
  if (f.target != kNoTarget) return bytes ? bytes_done_[f.target] : ops_done_[f.target];
  switch (f.kind) {
    case FlowopKind::kIopsLimit:
      return totals_.rw_ops.load(std::memory_order_relaxed);
    case FlowopKind::kBwLimit:
      return totals_.rw_bytes.load(std::memory_order_relaxed);
    default:
      return totals_.io_ops.load(std::memory_order_relaxed);
  }
}

void FlowopThread::limit_step(WorkerContext& ctx, std::size_t index) {
  if (events_ == nullptr) return;  // no eventgen: filebench's limits return at once
  const FlowopDef& f = def_.flowops[index];
  const auto keep_waiting = [this] { return running(); };
  const std::uint64_t start = monotonic_ns();
  if (f.kind == FlowopKind::kEventLimit) {
    if (events_->take(1, keep_waiting)) record_other(ctx, index, start);
    return;
  }
  LimitState& state = limit_state_[index];
  const std::uint64_t count = limit_count(f);
  if (state.last == 0) {  // the first call (or none counted yet) only notes the count
    state.last = count;
    return;
  }
  state.bucket -= static_cast<std::int64_t>(count - state.last);
  state.last = count;
  if (state.bucket < 0) {
    const auto owed = static_cast<std::uint64_t>(-state.bucket);
    // bwlimit pays in MiB, one event more than the whole MiB owed (filebench's bytes / MB + 1).
    const bool bw = f.kind == FlowopKind::kBwLimit;
    const std::uint64_t events = bw ? owed / kMiB + 1 : owed;
    if (!events_->take(events, keep_waiting)) return;  // the run ended while it waited
    state.bucket += static_cast<std::int64_t>(bw ? events * kMiB : events);
  }
  record_other(ctx, index, start);
}

void FlowopThread::semaphore_step(WorkerContext& ctx, std::size_t index) {
  const FlowopDef& f = def_.flowops[index];
  const auto keep_waiting = [this] { return running(); };
  const std::uint64_t start = monotonic_ns();
  if (f.kind == FlowopKind::kSemBlock) {
    if (semaphores_.own[index]->block(f.limit, keep_waiting)) record_other(ctx, index, start);
    return;
  }
  for (FlowopSemaphore* target : semaphores_.posts[index]) {
    if (!target->post(f.limit, f.blocking, keep_waiting)) return;  // the run ended meanwhile
  }
  record_other(ctx, index, start);
}

void FlowopThread::block_step(WorkerContext& ctx, std::size_t index) {
  if (def_.flowops[index].kind == FlowopKind::kBlock) {
    const std::uint64_t start = monotonic_ns();
    if (semaphores_.blocks[index]->block([this] { return running(); }))
      record_other(ctx, index, start);
    return;
  }
  // filebench's wakeup broadcasts to each target in turn, one op per target.
  for (FlowopBlock* target : semaphores_.wakes[index]) {
    const std::uint64_t start = monotonic_ns();
    const std::uint64_t released = target->wake();
    record_other(ctx, index, start);
    if (released > 0) ctx.add_counter(kWokenCounter, released);
  }
}

void FlowopThread::hog(WorkerContext& ctx, std::size_t index) {
  const std::uint64_t start = monotonic_ns();
  // A store each iteration, through volatile so that the loop is not folded away.
  volatile char* mem = buffer_.data();
  for (std::uint64_t i = 0; i < def_.flowops[index].limit; ++i) *mem = 1;
  record_other(ctx, index, start);
}

}  // namespace iobench::plugins::filebench
