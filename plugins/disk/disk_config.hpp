#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/params.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/steady_state.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "plugins/disk/block_distribution.hpp"
#include "plugins/disk/block_size_split.hpp"
#include "plugins/disk/device_purge.hpp"
#include "plugins/disk/disk_curve.hpp"

namespace iobench::plugins::disk {

/// kTrim: fio's rw=trim / randtrim (holes punched in a filled file).
enum class Operation { kRead, kWrite, kMixed, kTrim };
enum class IoMode { kBuffered, kDirect, kMmap };
enum class SeekPattern { kSequential, kRandom };
/// Across the ranks of an MPI run: a file per rank (IOR's file-per-process), or one file per
/// target that every rank works on (IOR's N-1), each rank in its own region of `blocks`
/// consecutive blocks or in interleaved blocks (rank r has the file's blocks r, r + N, ...).
enum class SharedFile { kOff, kRegions, kInterleaved };

/// Block size of precondition=wipc's sequential writes (SNIA PTS 2.0: 128 KiB).
inline constexpr std::uint64_t kPreconditionBlockBytes = 128 << 10;
/// Passes of precondition=wipc over the device (PTS: twice the user capacity).
inline constexpr std::uint64_t kPreconditionPasses = 2;

/// The disk workload's settings, validated: the seeds' test_disk_performance options.
struct DiskConfig {
  Operation operation = Operation::kWrite;
  IoMode mode = IoMode::kBuffered;
  SeekPattern seek = SeekPattern::kSequential;
  BlockDistribution distribution;  ///< random_order, with seek=random
  /// operation=mixed: percentage of ops that are reads (fio's rwmixread); the rest are writes.
  std::uint32_t read_percent = 50;
  /// operation=mixed: percentage of ops that are trims (rwmixtrim); writes get the rest.
  std::uint32_t trim_percent = 0;
  std::uint32_t numjobs = 1;  ///< fio's numjobs: workers per target, each with its own files
  std::uint32_t nrfiles = 1;  ///< fio's nrfiles: files per worker, served round-robin
  /// fio's bssplit; empty: every op is block_size_bytes (then the largest size of the split).
  BlockSizeSplit bssplit;
  /// fio's thinktime: pause after every thinktime_blocks ops, the first thinktime_spin of it
  /// busy-spinning.
  std::chrono::nanoseconds thinktime{0};
  std::chrono::nanoseconds thinktime_spin{0};
  std::uint64_t thinktime_blocks = 1;
  SharedFile shared_file = SharedFile::kOff;
  std::uint32_t iodepth = 1;  ///< requests in flight per worker
  bool verify = false;        ///< stamp every written block, check every read one
  RateLimit rate;             ///< per worker; inactive: closed loop
  /// Time and record the latency of 1 op in this many (IoDriverOptions::latency_sample); 1: all.
  std::uint32_t latency_sample = 1;
  std::uint64_t block_size_bytes = 0;
  std::uint64_t blocks = 0;  ///< per target: the working set is blocks * block_size_bytes
  std::uint64_t iterations = 1;
  /// fio's time_based: the main phase loops over its file until the time (or op) limit.
  bool time_based = false;
  bool prime = false;  ///< read the working set untimed first (page-cache reads)
  bool fsync = true;   ///< writes: fsync before close, timed as op "fsync"
  std::string sync;    ///< "none", "sync" (O_SYNC) or "dsync" (O_DSYNC)
  std::string file_name;
  /// What writes (and the untimed creation of a file to read) put in the file.
  DataPattern data;
  /// steady_state= (with ss_dur, ss_ramp, ss_interval): the main phase stops once steady.
  std::optional<SteadyStateConfig> steady_state;
  /// curve= / latency_target=: open-loop phases scaled from the closed-loop read phase's IOPS.
  CurveConfig curve;
  /// Targets that name an existing file or block device (read in place).
  std::vector<bool> existing_file_target;
  /// --destructive=SERIAL (param destructive): writes, trims and mixed phases on block device
  /// targets whose serial or WWN is this (check_destructive_device); empty: none.
  std::string destructive;
  /// --force-signature: a destructive run may overwrite a device holding a signature.
  bool force_signature = false;
  /// purge=: purge every block device target in prepare(), from this method on (purge=auto:
  /// kNvmeFormat); nullopt: no purge. Needs destructive.
  std::optional<PurgeMethod> purge;
  /// precondition=wipc: SNIA PTS's workload-independent preconditioning, an unmeasured phase
  /// before the others writing each block device target twice over (kPreconditionBlockBytes
  /// sequential writes, O_DIRECT). Needs destructive and only block device targets.
  bool precondition = false;
  /// Per target: a destructive block device's capacity in bytes (0 for other targets).
  std::vector<std::uint64_t> device_bytes;
  /// Per target: the identity --destructive matched ("wwid '...'"); empty for other targets.
  std::vector<std::string> destructive_identity;
  /// Per target: the device number (st_rdev) check_destructive_device checked; every later
  /// open for writing must find it again (require_checked_device). 0 for other targets.
  std::vector<std::uint64_t> device_rdev;

  [[nodiscard]] std::uint64_t working_set_bytes() const noexcept {
    return blocks * block_size_bytes;
  }
  /// The step changes a device's data: its phase writes or trims, or a purge comes first.
  [[nodiscard]] bool destroys() const noexcept {
    return writes() || purge.has_value() || precondition;
  }
  /// The phase changes the file(s): writes or trims.
  [[nodiscard]] bool writes() const noexcept { return operation != Operation::kRead; }
  [[nodiscard]] bool reads() const noexcept {
    return operation == Operation::kRead || operation == Operation::kMixed;
  }
  /// The main phase trims (operation=trim, or mixed with rwmixtrim).
  [[nodiscard]] bool trims() const noexcept {
    return operation == Operation::kTrim || (operation == Operation::kMixed && trim_percent > 0);
  }
  /// Blocks of each of the worker's files.
  [[nodiscard]] std::uint64_t blocks_per_file() const noexcept { return blocks / nrfiles; }
  /// Bytes of each of the worker's files.
  [[nodiscard]] std::uint64_t file_bytes() const noexcept {
    return blocks_per_file() * block_size_bytes;
  }
};

/// The parameters the disk workload declares (names as in the seeds' tool).
[[nodiscard]] std::vector<ParamSpec> disk_param_specs();

/// Builds and cross-checks the config. Throws ConfigError naming the parameter: time_based with
/// iterations, both blocks and
/// size given, a working set that is not a whole number of blocks, direct I/O with a block size
/// that is not a multiple of 4096, a write to an existing file target, a read of an existing file
/// target smaller than the working set, a write, trim or mixed phase on an existing file, or on
/// a block device without destructive= or against its safety rules (check_destructive_device),
/// destructive= without a block device target, rwmix with operation read or write, both rate_iops
/// and rate_bytes, a bad random_order, a shared file in an existing file target, curve= or
/// latency_target= with an operation other than read, a rate or latency_sample.
[[nodiscard]] DiskConfig make_disk_config(const Params& params,
                                          std::span<const std::filesystem::path> targets);

/// Checks what `engine` (the step's, resolved) can do with `config`: a shared file mapped by every
/// rank (an engine with EngineCaps::needs_map_size, mmap) needs whole pages per block, as a
/// mapping writes back whole pages and a page holding another rank's bytes would overwrite them
/// on another host. Throws ConfigError naming bs and the page size.
void check_disk_engine(const DiskConfig& config, const Engine& engine, const Params& params);

/// time_based=true loops until a limit, so the step must have one: throws ConfigError naming
/// time_based and --time when `time_limit` and `ops_limit` (the step's) are both 0, or when
/// `time_limit` is 0 and `engine` may refuse requests with EAGAIN (EngineCaps::
/// may_refuse_to_block: refused requests are no ops, so an op limit might never be reached).
void check_disk_limits(const DiskConfig& config, const Engine& engine,
                       std::chrono::nanoseconds time_limit, std::uint64_t ops_limit);

/// The engine disk's params imply (WorkloadInfo::implied_engine): mode=mmap maps the file.
[[nodiscard]] std::string disk_implied_engine(const Params& params);

}  // namespace iobench::plugins::disk
