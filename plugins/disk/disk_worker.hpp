#pragma once

// The timed worker of the disk workload's phases (DiskWorker) and how its files are opened.

#include <cstdint>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/io_driver.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <optional>

#include "plugins/disk/disk_config.hpp"
#include "plugins/disk/disk_source.hpp"
#include "plugins/disk/verify_pattern.hpp"

namespace iobench::plugins::disk {

/// The OpenOptions of `config` (mode=direct: O_DIRECT; sync=sync|dsync: O_SYNC|O_DSYNC);
/// `file_bytes`: the whole file's size (a shared file holds every rank's blocks), for engines
/// that map the file.
[[nodiscard]] OpenOptions open_options(const DiskConfig& config, bool read, bool write, bool create,
                                       std::uint64_t file_bytes);

/// engine.open(), with a clearer message for the classic O_DIRECT failure (tmpfs and others say
/// EINVAL). Throws IoError.
[[nodiscard]] std::unique_ptr<IoFile> open_file(const Engine& engine, const FileLocation& location,
                                                const OpenOptions& options);

/// The timed part of one worker: the driver's loop over `file` at `iodepth` (paced when `rate`
/// is active), then for writes with `fsync_at_end` a timed fsync (op `fsync_op`) and close.
/// With `pattern`, written blocks carry it and read ones are checked against it; otherwise
/// writes carry `data` (seeded by `seed`). An open loop (curve= points, latency_target=
/// probes) may first stay idle for `idle_ns` (latency_ramp's first half: a throttle's time
/// slice lapses and a backlog left by the phase before drains) before its schedule starts, and
/// may keep each op's lateness in `lateness` (owned by the caller, outliving run()).
class DiskWorker final : public PhaseWorker {
 public:
  DiskWorker(const PhasePlan& plan, std::unique_ptr<IoFile> file, std::uint32_t iodepth,
             const EngineCaps& caps, const RateLimit& rate, std::uint64_t seed,
             std::optional<VerifyPattern> pattern, const DataPattern& data, bool fsync_at_end,
             OpId fsync_op, LatenessTrend* lateness = nullptr, std::uint64_t idle_ns = 0);

  void run(WorkerContext& ctx) override;

 private:
  PhasePlan plan_;
  std::unique_ptr<IoFile> file_;
  AlignedBuffer buffers_;
  std::optional<VerifyPattern> pattern_;
  std::optional<PatternBuffer> data_;
  std::optional<RatePacer> pacer_;
  std::unique_ptr<IoQueue> queue_;
  std::optional<IoDriver> driver_;
  bool fsync_at_end_;
  OpId fsync_op_;
  std::uint64_t seed_;
  std::uint32_t iodepth_;
  std::uint64_t idle_ns_;
};

}  // namespace iobench::plugins::disk
