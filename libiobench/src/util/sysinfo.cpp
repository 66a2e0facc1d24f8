#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <iobench/clock.hpp>
#include <iobench/sysinfo.hpp>
#include <iobench/version.hpp>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "explain/text_fields.hpp"
#include "util/cpuinfo.hpp"
#include "util/mountinfo.hpp"

namespace iobench {
namespace {

namespace fs = std::filesystem;

// Whole contents of a /proc or /sys file; empty if it cannot be read.
std::string read_text_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

// The absolute path with symlinks resolved as far as it exists (a target that does not exist yet
// still gets the mount of its nearest existing parent).
fs::path resolved_path(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : resolved;
}

// `path` itself if it exists, else its nearest existing parent (for statvfs).
fs::path nearest_existing(fs::path path) {
  std::error_code ec;
  while (!fs::exists(path, ec) && path.has_relative_path()) path = path.parent_path();
  return path;
}

// Size of a block device in bytes: sysfs's count of 512-byte sectors (readable without opening
// the device, which a container's device policy may forbid even to root), else BLKGETSIZE64;
// 0 if neither works.
std::uint64_t block_device_bytes(const fs::path& device, dev_t rdev) {
  const std::string sysfs_size = fmt::format("/sys/dev/block/{}:{}/size", major(rdev), minor(rdev));
  const std::string sectors = read_text_file(sysfs_size.c_str());
  if (!sectors.empty() && sectors.front() >= '0' && sectors.front() <= '9') {
    std::uint64_t count = 0;
    for (char c : sectors) {
      if (c < '0' || c > '9') break;
      count = count * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return count * 512;
  }
  const int fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::uint64_t bytes = 0;
  if (::ioctl(fd, BLKGETSIZE64, &bytes) != 0) bytes = 0;
  ::close(fd);
  return bytes;
}

TargetInfo describe_with(const fs::path& path, const std::vector<detail::MountEntry>& mounts) {
  TargetInfo info;
  info.path = path.string();
  const fs::path resolved = resolved_path(path);

  struct stat st {};
  if (::stat(resolved.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
    // A raw block device: report the device itself and, if it is mounted somewhere, that
    // mount's filesystem (the path's own mount would be /dev's devtmpfs, which says nothing).
    info.device = resolved.string();
    info.size_bytes = block_device_bytes(resolved, st.st_rdev);
    // A filesystem on a block device has the device's number as its st_dev; the source path is
    // compared too (after resolving links such as /dev/disk/by-id/...) for the rare filesystem
    // that shows another number.
    const std::string device_number = fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
    for (const detail::MountEntry& entry : mounts) {
      const bool same_source = !entry.source.empty() && entry.source.front() == '/' &&
                               resolved_path(entry.source) == resolved;
      if (entry.device_number != device_number && !same_source) continue;
      info.fs_type = entry.fs_type;
      info.mount_point = entry.mount_point;
      info.mount_options = detail::combined_mount_options(entry);
    }
    return info;
  }

  if (const detail::MountEntry* entry = detail::find_mount(mounts, resolved.string())) {
    info.fs_type = entry->fs_type;
    info.mount_point = entry->mount_point;
    info.mount_options = detail::combined_mount_options(*entry);
    info.device = entry->source;
  }
  struct statvfs vfs {};
  if (::statvfs(nearest_existing(resolved).c_str(), &vfs) == 0) {
    info.size_bytes = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    info.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  }
  return info;
}

std::vector<detail::MountEntry> current_mounts() {
  return detail::parse_mountinfo(read_text_file("/proc/self/mountinfo"));
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  if (::gmtime_r(&now, &utc) == nullptr) return {};
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(text, length);
}

}  // namespace

Environment collect_environment(std::span<const fs::path> targets) {
  Environment env;
  struct utsname names {};
  if (::uname(&names) == 0) {
    env.hostname = names.nodename;
    env.kernel = fmt::format("{} {} {}", names.sysname, names.release, names.version);
    env.arch = names.machine;
  }
  env.cpu_model = detail::cpu_model_from_cpuinfo(read_text_file("/proc/cpuinfo"));
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  env.cpu_count = cpus > 0 ? static_cast<unsigned>(cpus) : 0;
  env.memory_bytes = physical_memory_bytes();
  env.iobench_version = IOBENCH_VERSION;
  env.start_time_utc = utc_now_iso8601();
  env.clock = run_clock_description();
  const std::vector<detail::MountEntry> mounts = current_mounts();
  env.targets.reserve(targets.size());
  for (const fs::path& target : targets) env.targets.push_back(describe_with(target, mounts));
  return env;
}

TargetInfo describe_target(const fs::path& path) { return describe_with(path, current_mounts()); }

std::uint64_t physical_memory_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

bool drop_page_cache(std::string& why) {
  static constexpr const char* kPath = "/proc/sys/vm/drop_caches";
  // Dirty pages cannot be dropped, so write them back first.
  ::sync();
  const int fd = ::open(kPath, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    why = fmt::format("cannot open {} for writing: {}{}", kPath, errno_text(err),
                      err == EACCES || err == EPERM || err == EROFS
                          ? " (dropping the page cache needs root)"
                          : "");
    return false;
  }
  const ssize_t written = ::write(fd, "3", 1);
  const int write_err = errno;
  ::close(fd);
  if (written != 1) {
    why = fmt::format("cannot write 3 to {}: {}", kPath,
                      written < 0 ? errno_text(write_err) : std::string("short write"));
    return false;
  }
  why.clear();
  return true;
}

bool drop_page_cache_before(
    std::string_view phase, std::string& why,
    const std::function<void(const std::string& key, std::int64_t bytes)>& record) {
  if (!drop_page_cache(why)) return false;
  const std::string meminfo = read_text_file("/proc/meminfo");
  for (const auto& [name, line] : {std::pair{kCacheLeftBuffersAttribute, "Buffers:"},
                                   std::pair{kCacheLeftCachedAttribute, "Cached:"}}) {
    if (const std::optional<std::uint64_t> bytes = explain::meminfo_bytes(meminfo, line)) {
      // An int attribute: a figure past INT64_MAX (no machine has one) is held at it.
      const std::uint64_t held = std::min<std::uint64_t>(*bytes, INT64_MAX);
      record(fmt::format("{}.{}", name, phase), static_cast<std::int64_t>(held));
    }
  }
  return true;
}

}  // namespace iobench
