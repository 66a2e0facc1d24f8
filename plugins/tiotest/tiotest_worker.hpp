#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/io_driver.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "plugins/tiotest/random_offsets.hpp"
#include "plugins/tiotest/test_hooks.hpp"
#include "plugins/tiotest/tiotest_config.hpp"

namespace iobench::plugins::tiotest {

/// What a worker leaves for the workload's after_phase() (written by the worker's thread, read
/// after the phase by the runner's thread; atomics make that hand-over explicit).
struct WorkerSlot {
  std::atomic<bool> file_created{false};
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
  std::uint64_t generator_seed = 0;  ///< random phases
  /// Write phases: block n's bytes. Read phases with `verify`: what block n must hold (the
  /// same pattern and seed as the writes). Unset otherwise.
  std::optional<PatternBuffer> data;
  bool verify = false;               ///< consistency check: compare every block read with `data`
  const TestHooks* hooks = nullptr;  ///< offsets are logged when it has on_random_offsets
  std::uint32_t iodepth = 1;         ///< requests in flight (asynchronous engines)
  bool async_engine = false;         ///< EngineCaps::async: record slat and clat
  bool registered_buffers = false;   ///< EngineCaps::registered_buffers: writes use slot buffers
  RateLimit rate;                    ///< open loop per thread; inactive: closed loop
};

/// One tiotest thread in one phase: the timed loop of writes or reads (through the engine's
/// queue, IoDriver) of one block per op, sequential (offsets 0, b, 2b, ...) or random
/// (RandomOffsets), then fsync and close inside the timed part, as tiotest times them. Reads are
/// checked against the pattern when the consistency check is on: after its loop, a thread that
/// read any block other than what was written throws Error naming how many, the first bad
/// offset and the file, which fails the phase (exit 1).
///
/// Latency: back-to-back ops share one clock read (IoDriver), so each op's latency is its
/// pread/pwrite plus the loop's few ns of offset generation, data stamping (PatternBuffer::block)
/// and bookkeeping (tiotest reads gettimeofday around the call; two clock reads per op would
/// cost ~25 ns more, 2 % of a 4 KiB page-cache read). Where untimed work sits between ops
/// (verifying a block read, copying a write's data into its request buffer at depth > 1,
/// logging offsets for tests) the clock restarts after it, so that work is not in the latency;
/// it is in the phase's wall time, hence in the rate. With iodepth > 1 (io_uring, libaio) every
/// thread keeps that many requests in flight, each in its own buffer.
class TiotestWorker final : public PhaseWorker {
 public:
  /// Allocates the read buffer (aligned for O_DIRECT) and, in test mode, the offset log.
  explicit TiotestWorker(WorkerSetup setup);
  ~TiotestWorker() override;
  TiotestWorker(const TiotestWorker&) = delete;
  TiotestWorker& operator=(const TiotestWorker&) = delete;

  void run(WorkerContext& ctx) override;

 private:
  friend class TiotestSource;
  void check_block(std::span<const std::byte> block, std::uint64_t offset) noexcept;

  WorkerSetup setup_;
  AlignedBuffer buffers_;
  std::vector<std::uint64_t> offset_log_;
  bool log_offsets_ = false;
  std::uint64_t verified_ = 0;
  std::uint64_t corrupt_ = 0;
  std::uint64_t first_corrupt_offset_ = 0;
  std::optional<RatePacer> pacer_;
  std::unique_ptr<IoQueue> queue_;
  std::optional<IoDriver> driver_;
};

}  // namespace iobench::plugins::tiotest
