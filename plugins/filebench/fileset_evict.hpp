#pragma once

/// `cached=false` of a fileset: after the fileset is made, its preallocated files leave the page
/// cache, so that the run's first reads of them go to the device.

#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <string>

#include "plugins/filebench/fileset.hpp"

namespace iobench::plugins::filebench {

/// What evict_fileset did.
struct EvictResult {
  std::uint64_t files = 0;     ///< preallocated files it flushed and dropped
  std::uint64_t pages = 0;     ///< their pages (file size rounded up to the page size)
  std::uint64_t resident = 0;  ///< of those, pages still in the page cache afterwards
  std::string error;  ///< the first failing call with strerror's text of its errno ("DIR/FILE
                      ///< fdatasync: TEXT", or "open DIR/FILE: TEXT"); empty when none failed
};

/// For each preallocated file of `layout` under `run_dir`: fdatasync(2) (dirty pages cannot be
/// dropped), posix_fadvise(POSIX_FADV_DONTNEED) over the whole file, then mincore(2) of a
/// read-only mapping of it counts the pages still resident. No privilege is needed; pages stay
/// where the filesystem keeps files in memory (tmpfs, ramfs) or another process maps them,
/// which `resident` then shows. A failing call ends the walk, named in `error`; never throws
/// for a file's calls (throws std::bad_alloc only).
[[nodiscard]] EvictResult evict_fileset(const FilesetLayout& layout, const ConfinedDir& run_dir);

}  // namespace iobench::plugins::filebench
