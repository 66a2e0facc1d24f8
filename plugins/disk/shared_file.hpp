#pragma once

/// IOR's N-1 for the disk workload (shared_file=regions|interleaved): where a rank's blocks lie
/// in the one file all ranks share, and that file, which rank 0 creates in its run directory and
/// the other ranks open there.

#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <span>
#include <string>
#include <vector>

#include "plugins/disk/disk_config.hpp"

namespace iobench::plugins::disk {

/// Where a worker's block i (0 <= i < blocks) lies in its file: at file block i * stride + first.
struct BlockPlacement {
  std::uint64_t stride = 1;
  std::uint64_t first = 0;

  [[nodiscard]] constexpr std::uint64_t file_block(std::uint64_t block) const noexcept {
    return block * stride + first;
  }
  /// Rank `rank` of `ranks`, each with `blocks` blocks: regions gives it blocks
  /// rank * blocks .. (rank + 1) * blocks - 1, interleaved blocks rank, rank + ranks, ...; off
  /// (a file of its own) blocks 0 .. blocks - 1.
  [[nodiscard]] static BlockPlacement of(SharedFile layout, std::uint64_t blocks, int rank,
                                         int ranks) noexcept;
};

/// Rank 0: creates an empty `file_name` in every target's run directory (O_CREAT | O_EXCL |
/// O_NOFOLLOW), for all ranks to write or fill. Returns the run directories' names
/// (plugins::run_dir_names()), which the other ranks open with plugins::open_rank0_dirs() (the
/// strict decoder mdtest and io500 use too). Throws IoError.
[[nodiscard]] std::string create_shared_files(std::span<const Target> targets,
                                              const std::string& file_name);

}  // namespace iobench::plugins::disk
