#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plugins/disk/disk_config.hpp"

namespace iobench::plugins::disk {

/// The step warning for a measured disk phase whose later passes over its file were likely
/// served from the page cache rather than the device, or "" if there is no reason to think so.
/// Warns when the phase reads (operation read or mixed) through the page cache (mode buffered
/// or mmap) without prime=true (which asks for cached reads), some worker moved more than one
/// working set (`most_worker_bytes` > blocks x bs: a second pass began, from iterations or
/// time_based) and the `files` files of the working set fit in `ram_bytes` of RAM together.
/// The first pass reads from the device: the file a read creates is flushed and evicted first.
[[nodiscard]] std::string repeated_pass_warning(const DiskConfig& config, std::string_view phase,
                                                std::uint64_t most_worker_bytes, std::size_t files,
                                                std::uint64_t ram_bytes);

}  // namespace iobench::plugins::disk
