#include "plugins/tiotest/tiotest_worker.hpp"

#include <utility>

namespace iobench::plugins::tiotest {

namespace {
constexpr OpId kOp = 0;  // each tiotest phase records one op kind: "write" or "read"
}  // namespace

TiotestWorker::TiotestWorker(WorkerSetup setup)
    : setup_(std::move(setup)), buffer_(static_cast<std::size_t>(setup_.block_size)) {
  block_ = buffer_.span().first(static_cast<std::size_t>(setup_.block_size));
  if (setup_.pattern && is_write(setup_.kind)) setup_.pattern->fill(block_, setup_.base_offset);
  log_offsets_ = is_random(setup_.kind) && setup_.hooks != nullptr &&
                 static_cast<bool>(setup_.hooks->on_random_offsets);
  if (log_offsets_) offset_log_.reserve(static_cast<std::size_t>(setup_.random_ops));
}

TiotestWorker::~TiotestWorker() {
  if (!log_offsets_) return;
  RandomOffsetLog log;
  log.phase_index = setup_.phase_index;
  log.worker_index = setup_.worker_index;
  log.kind = setup_.kind;
  log.generator_seed = setup_.generator_seed;
  log.base_offset = setup_.base_offset;
  log.blocks = setup_.blocks;
  log.block_size = setup_.block_size;
  log.offsets = offset_log_;
  setup_.hooks->on_random_offsets(log);
}

void TiotestWorker::run(WorkerContext& ctx) {
  switch (setup_.kind) {
    case PhaseKind::kWrite:
      sequential_write(ctx);
      break;
    case PhaseKind::kRandomWrite:
      random_write(ctx);
      break;
    case PhaseKind::kRead:
      sequential_read(ctx);
      break;
    case PhaseKind::kRandomRead:
      random_read(ctx);
      break;
  }
  // tiotest times fsync and close as part of each phase.
  setup_.file->sync();
  setup_.file->close();
  if (setup_.pattern && !is_write(setup_.kind)) {
    ctx.add_counter(kVerifiedBlocksCounter, verified_);
    ctx.add_counter(kCorruptBlocksCounter, corrupt_);
    if (setup_.slot != nullptr) {
      setup_.slot->verified_blocks.store(verified_, std::memory_order_relaxed);
      setup_.slot->first_corrupt_offset.store(first_corrupt_offset_, std::memory_order_relaxed);
      setup_.slot->corrupt_blocks.store(corrupt_, std::memory_order_release);
    }
  }
}

// Latency: one clock read per op, shared by the end of one op and the start of the next (so an
// op's latency includes the loop's few ns of bookkeeping), except where untimed work sits
// between ops (stamping or checking the consistency pattern, logging offsets for tests): then
// the clock restarts after it, so that only the read or write itself is timed.
void TiotestWorker::sequential_write(WorkerContext& ctx) {
  const std::uint64_t bs = setup_.block_size;
  const BlockPattern* pattern = setup_.pattern ? &*setup_.pattern : nullptr;
  OpTimer timer;
  for (std::uint64_t i = 0; i < setup_.blocks && ctx.keep_going(); ++i) {
    const std::uint64_t offset = setup_.base_offset + i * bs;
    if (pattern != nullptr) {
      pattern->stamp(block_, offset);
      timer.restart();
    }
    setup_.file->write_at(block_, offset);
    timer.lap(ctx, kOp, bs);
  }
}

void TiotestWorker::random_write(WorkerContext& ctx) {
  const std::uint64_t bs = setup_.block_size;
  const BlockPattern* pattern = setup_.pattern ? &*setup_.pattern : nullptr;
  RandomOffsets offsets(setup_.generator_seed, setup_.blocks, bs, setup_.base_offset);
  const bool untimed_between = pattern != nullptr || log_offsets_;
  OpTimer timer;
  for (std::uint64_t i = 0; i < setup_.random_ops && ctx.keep_going(); ++i) {
    const std::uint64_t offset = offsets.next();
    if (untimed_between) {
      if (log_offsets_) offset_log_.push_back(offset);
      if (pattern != nullptr) pattern->stamp(block_, offset);
      timer.restart();
    }
    setup_.file->write_at(block_, offset);
    timer.lap(ctx, kOp, bs);
  }
}

void TiotestWorker::sequential_read(WorkerContext& ctx) {
  const std::uint64_t bs = setup_.block_size;
  const bool verify = setup_.pattern.has_value();
  OpTimer timer;
  for (std::uint64_t i = 0; i < setup_.blocks && ctx.keep_going(); ++i) {
    const std::uint64_t offset = setup_.base_offset + i * bs;
    setup_.file->read_at(block_, offset);
    timer.lap(ctx, kOp, bs);
    if (verify) {
      check_block(offset);
      timer.restart();
    }
  }
}

void TiotestWorker::random_read(WorkerContext& ctx) {
  const std::uint64_t bs = setup_.block_size;
  const bool verify = setup_.pattern.has_value();
  RandomOffsets offsets(setup_.generator_seed, setup_.blocks, bs, setup_.base_offset);
  OpTimer timer;
  for (std::uint64_t i = 0; i < setup_.random_ops && ctx.keep_going(); ++i) {
    const std::uint64_t offset = offsets.next();
    if (log_offsets_) {
      offset_log_.push_back(offset);
      timer.restart();
    }
    setup_.file->read_at(block_, offset);
    timer.lap(ctx, kOp, bs);
    if (verify) {
      check_block(offset);
      timer.restart();
    }
  }
}

void TiotestWorker::check_block(std::uint64_t offset) noexcept {
  ++verified_;
  if (setup_.pattern->matches(block_, offset)) return;
  if (corrupt_ == 0) first_corrupt_offset_ = offset;
  ++corrupt_;
}

}  // namespace iobench::plugins::tiotest
