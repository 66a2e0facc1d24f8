#pragma once

// The untimed creation of the file a read or mixed phase of the disk workload works on.

#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <string>

#include "plugins/disk/disk_config.hpp"
#include "plugins/disk/shared_file.hpp"
#include "plugins/disk/verify_pattern.hpp"

namespace iobench::plugins::disk {

// Fills the file a read or mixed phase works on, untimed: the worker's `blocks` blocks, where
// `placement` puts them (the whole file, or this rank's part of a shared one), with what a write
// phase with the same block size, data pattern and seed writes, or with verify the pattern reads
// check. A file of the worker's own is created here; a shared one exists already (rank 0 made it
// in prepare()).
// Returns false if the run is stopped meanwhile, with no file of its own left (a shared one is
// rank 0's, removed with its run directory): that is checked every chunk (1 MiB or one block),
// and writeback is kept at most 16 chunks behind (each chunk's writeback starts as it is
// written; the one 16 chunks back is waited for), so neither the loop nor the closing fsync can
// hold a stop up for long, however large the file. The file's data is on the device at the end.
[[nodiscard]] bool fill_read_file(const ConfinedDir& dir, const FileLocation& location,
                                  const std::string& name, bool shared, BlockPlacement placement,
                                  std::uint64_t blocks, const DiskConfig& config,
                                  VerifyPattern* pattern, std::uint64_t seed,
                                  const WorkerContext& ctx);

}  // namespace iobench::plugins::disk
