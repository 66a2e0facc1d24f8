#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/result.hpp>
#include <span>
#include <string>
#include <string_view>

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

/// Step attribute (int, bytes) "cache_left_buffers_bytes.<PHASE>": /proc/meminfo's Buffers read
/// right after the page cache drop before phase PHASE (block device pages, mostly file system
/// metadata; a journalling file system such as ext4 keeps the metadata blocks written since its
/// last checkpoint, which sync does not make, so the drop cannot free them). The whole machine's
/// figure (as /proc/meminfo shows it), not the target file system's alone; under mpirun, rank
/// 0's.
inline constexpr std::string_view kCacheLeftBuffersAttribute = "cache_left_buffers_bytes";
/// Step attribute (int, bytes) "cache_left_cached_bytes.<PHASE>": /proc/meminfo's Cached read
/// with kCacheLeftBuffersAttribute's (page cache pages: tmpfs, shared memory and pages in use,
/// which no drop frees, count here). Machine-wide, as that one.
inline constexpr std::string_view kCacheLeftCachedAttribute = "cache_left_cached_bytes";

/// drop_page_cache() before phase `phase`; when it dropped, /proc/meminfo read at once, each of
/// its Buffers and Cached figures handed to `record` as the step attribute
/// (kCacheLeftBuffersAttribute or kCacheLeftCachedAttribute + "." + `phase`, bytes); a figure
/// /proc/meminfo lacks (or an unreadable /proc/meminfo: then nothing is recorded and the report
/// has no note, though the drop happened) is not recorded. Returns drop_page_cache()'s result,
/// `why` as it sets it.
/// The runner's --drop-caches (and PhaseSpec::drop_caches_before) and io500's cache_proof call it.
[[nodiscard]] bool drop_page_cache_before(
    std::string_view phase, std::string& why,
    const std::function<void(const std::string& key, std::int64_t bytes)>& record);

}  // namespace iobench
