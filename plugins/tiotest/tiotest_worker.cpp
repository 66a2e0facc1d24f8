#include "plugins/tiotest/tiotest_worker.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iobench/error.hpp>
#include <utility>

namespace iobench::plugins::tiotest {

namespace {
constexpr OpId kOp = 0;  // each tiotest phase records one op kind: "write" or "read"
}  // namespace

/// The ops of one thread's phase, for the IoDriver: sequential or random offsets, each write's
/// bytes from the thread's PatternBuffer, reads checked against it with the consistency check,
/// offsets logged for tests.
///
/// A write at depth 1 without registered buffers points its request at the PatternBuffer's
/// block itself (no copy: the request completes before the next block() rewrites it); deeper
/// queues or registered buffers copy the block into the request's own slot buffer, since
/// PatternBuffer reuses its memory from block to block.
class TiotestSource {
 public:
  explicit TiotestSource(TiotestWorker& worker)
      : worker_(worker),
        setup_(worker.setup_),
        random_(setup_.generator_seed, setup_.blocks, setup_.block_size, setup_.base_offset),
        ops_(is_random(setup_.kind) ? setup_.random_ops : setup_.blocks),
        write_(is_write(setup_.kind)),
        copy_writes_(setup_.iodepth > 1 || setup_.registered_buffers) {}

  [[nodiscard]] bool copies_writes() const noexcept { return copy_writes_ && write_; }

  [[gnu::hot]] bool next(IoRequest& request, OpId& op) {
    if (done_ == ops_) return false;
    const std::uint64_t block = is_random(setup_.kind) ? random_.next_block() : done_;
    const std::uint64_t offset = setup_.base_offset + block * setup_.block_size;
    ++done_;
    request.direction = write_ ? IoDirection::kWrite : IoDirection::kRead;
    request.length = static_cast<std::uint32_t>(setup_.block_size);
    request.offset = offset;
    op = kOp;
    if (worker_.log_offsets_) worker_.offset_log_.push_back(offset);
    if (write_) {
      const std::span<const std::byte> bytes = setup_.data->block(block);
      if (copy_writes_) {
        std::memcpy(request.buffer, bytes.data(), bytes.size());
      } else {
        // Engines only read a write's buffer; IoRequest has one pointer type for both ways.
        request.buffer = const_cast<std::byte*>(bytes.data());
      }
    }
    return true;
  }

  [[gnu::hot]] void completed(const IoRequest& request, OpId /*op*/) noexcept {
    if (!write_ && setup_.verify) {
      worker_.check_block({request.buffer, request.length}, request.offset);
    }
  }

 private:
  TiotestWorker& worker_;
  WorkerSetup& setup_;
  RandomOffsets random_;
  std::uint64_t ops_;
  std::uint64_t done_ = 0;
  bool write_;
  bool copy_writes_;
};

TiotestWorker::TiotestWorker(WorkerSetup setup)
    : setup_(std::move(setup)),
      buffers_(static_cast<std::size_t>(setup_.block_size) * setup_.iodepth) {
  const auto bs = static_cast<std::size_t>(setup_.block_size);
  log_offsets_ = is_random(setup_.kind) && setup_.hooks != nullptr &&
                 static_cast<bool>(setup_.hooks->on_random_offsets);
  if (log_offsets_) offset_log_.reserve(static_cast<std::size_t>(setup_.random_ops));
  if (setup_.rate.active()) pacer_.emplace(setup_.rate, setup_.generator_seed ^ 0x72617465ULL);
  const bool copies = is_write(setup_.kind) && (setup_.iodepth > 1 || setup_.registered_buffers);
  queue_ = setup_.file->make_queue(
      QueueOptions{.depth = setup_.iodepth, .buffers = buffers_.span(), .buffer_bytes = bs});
  driver_.emplace(
      *setup_.file, *queue_, buffers_.span(), bs,
      IoDriverOptions{.depth = setup_.iodepth,
                      .async = setup_.async_engine,
                      .untimed_work_between_ops = setup_.verify || log_offsets_ || copies,
                      .pacer = pacer_ ? &*pacer_ : nullptr});
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
  TiotestSource source(*this);
  const std::uint64_t ops = is_random(setup_.kind) ? setup_.random_ops : setup_.blocks;
  ctx.plan_work(ops, ops * setup_.block_size);
  driver_->run(ctx, source);
  // tiotest times fsync and close as part of each phase; a phase being abandoned (the run is
  // stopped) skips the fsync, which could hold the stop up for seconds of writeback.
  if (!ctx.stop_requested()) {
    ctx.begin_fsync();
    setup_.file->sync();
  }
  setup_.file->close();
  if (setup_.verify && !is_write(setup_.kind)) {
    ctx.add_counter(kVerifiedBlocksCounter, verified_);
    ctx.add_counter(kCorruptBlocksCounter, corrupt_);
  }
  if (corrupt_ > 0) {
    // Not an errno: the reads succeeded and returned other bytes than were written. The runner
    // fails the phase with this message, prefixed by the worker (thread) index.
    throw Error(fmt::format(
        "consistency check: {} of {} blocks read differ from what was written (first at offset "
        "{} of '{}')",
        corrupt_, verified_, first_corrupt_offset_, setup_.file->path().string()));
  }
}

// The block must hold exactly what the writes put there: its random bytes, and the stamps of
// its own block number and thread (a block from another offset or file does not match).
void TiotestWorker::check_block(std::span<const std::byte> block, std::uint64_t offset) noexcept {
  ++verified_;
  const std::uint64_t n = (offset - setup_.base_offset) / setup_.block_size;
  const auto expected = setup_.data->block(n);
  if (expected.size() == block.size() &&
      std::memcmp(block.data(), expected.data(), expected.size()) == 0) {
    return;
  }
  if (corrupt_ == 0) first_corrupt_offset_ = offset;
  ++corrupt_;
}

}  // namespace iobench::plugins::tiotest
