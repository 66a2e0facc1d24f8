#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iobench/engine.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "plugins/tiotest/block_pattern.hpp"
#include "plugins/tiotest/random_offsets.hpp"
#include "plugins/tiotest/test_hooks.hpp"
#include "plugins/tiotest/tiotest_config.hpp"

namespace iobench::plugins::tiotest {

/// What a worker leaves for the workload's after_phase() (written by the worker's thread, read
/// after the phase by the runner's thread; atomics make that hand-over explicit).
struct WorkerSlot {
  std::atomic<bool> file_created{false};
  std::atomic<std::uint64_t> verified_blocks{0};
  std::atomic<std::uint64_t> corrupt_blocks{0};
  std::atomic<std::uint64_t> first_corrupt_offset{0};
};

/// Counter ids of the read phases when the consistency check is on.
inline constexpr CounterId kVerifiedBlocksCounter = 0;
inline constexpr CounterId kCorruptBlocksCounter = 1;

/// Everything one worker of one phase needs, prepared untimed by make_worker().
struct WorkerSetup {
  PhaseKind kind = PhaseKind::kWrite;
  std::size_t phase_index = 0;
  std::size_t worker_index = 0;
  std::unique_ptr<IoFile> file;
  std::uint64_t base_offset = 0;  ///< raw region start; 0 for own files
  std::uint64_t blocks = 0;
  std::uint64_t block_size = 0;
  std::uint64_t random_ops = 0;
  std::uint64_t generator_seed = 0;     ///< random phases
  std::optional<BlockPattern> pattern;  ///< consistency check on
  WorkerSlot* slot = nullptr;
  const TestHooks* hooks = nullptr;  ///< offsets are logged when it has on_random_offsets
};

/// One tiotest thread in one phase: the timed loop of pwrite/pread (through the engine) of one
/// block per op, sequential (offsets 0, b, 2b, ...) or random (RandomOffsets), then fsync and
/// close inside the timed part, as tiotest times them. Reads are checked against the pattern
/// when the consistency check is on.
///
/// Latency: each op is timed around its single pread/pwrite (two clock reads), as tiotest times
/// it with gettimeofday and fio with its clat: offset generation, stamping, verification and any
/// preemption between two calls are not in it (they are in the phase's wall time, hence in the
/// rate). This costs one clock read more per op than back-to-back timing (about 20 ns).
class TiotestWorker final : public PhaseWorker {
 public:
  /// Allocates the block buffer (aligned for O_DIRECT) and, in test mode, the offset log.
  explicit TiotestWorker(WorkerSetup setup);
  ~TiotestWorker() override;
  TiotestWorker(const TiotestWorker&) = delete;
  TiotestWorker& operator=(const TiotestWorker&) = delete;

  void run(WorkerContext& ctx) override;

 private:
  void sequential_write(WorkerContext& ctx);
  void random_write(WorkerContext& ctx);
  void sequential_read(WorkerContext& ctx);
  void random_read(WorkerContext& ctx);
  void check_block(std::uint64_t offset) noexcept;

  WorkerSetup setup_;
  AlignedBuffer buffer_;
  std::span<std::byte> block_;
  std::vector<std::uint64_t> offset_log_;
  bool log_offsets_ = false;
  std::uint64_t verified_ = 0;
  std::uint64_t corrupt_ = 0;
  std::uint64_t first_corrupt_offset_ = 0;
};

}  // namespace iobench::plugins::tiotest
