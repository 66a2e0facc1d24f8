#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/result.hpp>
#include <span>
#include <string>

namespace iobench {

/// Host, kernel, CPU, memory, version and start time, plus TargetInfo for each target.
[[nodiscard]] Environment collect_environment(std::span<const std::filesystem::path> targets);
/// Filesystem type, mount point, options and device of the mount holding `path`
/// (from /proc/self/mountinfo), and its size and free space (statvfs). A path that does not exist
/// yet is described by its nearest existing parent. For a block device: the device itself, its
/// size (from /sys/dev/block, else BLKGETSIZE64) and, if it is mounted, that mount's filesystem.
/// Fields that cannot be read stay empty or 0; never throws for a missing or unreadable path.
[[nodiscard]] TargetInfo describe_target(const std::filesystem::path& path);
/// Physical memory in bytes (sysconf).
[[nodiscard]] std::uint64_t physical_memory_bytes() noexcept;
/// sync(2), then writes 3 to /proc/sys/vm/drop_caches. Returns false with `why` set if that is
/// not permitted (not root, read-only /proc).
[[nodiscard]] bool drop_page_cache(std::string& why);

}  // namespace iobench
