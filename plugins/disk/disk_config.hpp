#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/params.hpp>
#include <span>
#include <string>
#include <vector>

namespace iobench::plugins::disk {

enum class Operation { kRead, kWrite };
enum class IoMode { kBuffered, kDirect, kMmap };
enum class SeekPattern { kSequential, kRandom };
enum class RandomOrder { kPermutation, kUniform };

/// The disk workload's settings, validated: the seeds' test_disk_performance options.
struct DiskConfig {
  Operation operation = Operation::kWrite;
  IoMode mode = IoMode::kBuffered;
  SeekPattern seek = SeekPattern::kSequential;
  RandomOrder random_order = RandomOrder::kPermutation;
  std::uint64_t block_size_bytes = 0;
  std::uint64_t blocks = 0;  ///< per target: the working set is blocks * block_size_bytes
  std::uint64_t iterations = 1;
  bool prime = false;  ///< read the working set untimed first (page-cache reads)
  bool fsync = true;   ///< writes: fsync before close, timed as op "fsync"
  std::string sync;    ///< "none", "sync" (O_SYNC) or "dsync" (O_DSYNC)
  std::string file_name;
  /// Targets that name an existing file or block device (read in place).
  std::vector<bool> existing_file_target;

  [[nodiscard]] std::uint64_t working_set_bytes() const noexcept {
    return blocks * block_size_bytes;
  }
};

/// The parameters the disk workload declares (names as in the seeds' tool).
[[nodiscard]] std::vector<ParamSpec> disk_param_specs();

/// Builds and cross-checks the config. Throws ConfigError naming the parameter: both blocks and
/// size given, a working set that is not a whole number of blocks, direct I/O with a block size
/// that is not a multiple of 4096, a write to an existing file target, a read of an existing file
/// target smaller than the working set.
[[nodiscard]] DiskConfig make_disk_config(const Params& params,
                                          std::span<const std::filesystem::path> targets);

}  // namespace iobench::plugins::disk
