#include "plugins/disk/page_cache_note.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/format.hpp>

namespace iobench::plugins::disk {

std::string repeated_pass_warning(const DiskConfig& config, std::string_view phase,
                                  std::uint64_t most_worker_bytes, std::size_t files,
                                  std::uint64_t ram_bytes) {
  const std::uint64_t file_bytes = config.working_set_bytes();
  if (!config.reads() || config.mode == IoMode::kDirect || config.prime || file_bytes == 0) {
    return "";
  }
  if (most_worker_bytes <= file_bytes) return "";  // one pass at most: from the device
  const std::uint64_t all_files = file_bytes * std::max<std::size_t>(files, 1);
  if (all_files / std::max<std::size_t>(files, 1) != file_bytes || all_files > ram_bytes) {
    return "";  // larger than RAM: a later pass cannot be all in the page cache
  }
  return fmt::format(
      "phase '{}': a worker went over its {} file {:.1f} times with mode={}, and the {} of "
      "files fit in RAM ({}): passes after the first were likely served from the page cache, "
      "not the device; use mode=direct or a size larger than RAM (--drop-caches empties the "
      "cache only before the phase)",
      phase, format_bytes(file_bytes),
      static_cast<double>(most_worker_bytes) / static_cast<double>(file_bytes),
      config.mode == IoMode::kMmap ? "mmap" : "buffered", format_bytes(all_files),
      format_bytes(ram_bytes));
}

}  // namespace iobench::plugins::disk
