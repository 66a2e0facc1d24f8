// describe_storage(): the mount under a target (util/mountinfo.hpp), the chain of block devices
// below it through /sys/dev/block, and this process's cgroup I/O limits on them.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <iobench/explain.hpp>
#include <system_error>

#include "explain/read_file.hpp"
#include "explain/text_fields.hpp"
#include "util/mountinfo.hpp"

namespace iobench::explain {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 8;  // loop over a file on a loop over ...: far deeper than real setups

// The nearest existing path at or above `path`, canonical.
fs::path existing_canonical(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return {};
  while (!p.empty()) {
    fs::path resolved = fs::canonical(p, ec);
    if (!ec) return resolved;
    if (p == p.root_path()) break;
    p = p.parent_path();
  }
  return {};
}

// Why a file system without a block device has none, by its type.
std::string no_device_reason(const std::string& fs_type) {
  if (fs_type == "tmpfs" || fs_type == "ramfs" || fs_type == "devtmpfs") {
    return fs_type + ": no block device: page cache only";
  }
  if (fs_type == "fuse" || fs_type.starts_with("fuse.") || fs_type == "fuseblk") {
    return "FUSE (" + fs_type + "): no block device: data goes to the FUSE daemon";
  }
  static constexpr std::string_view kNetwork[] = {"nfs",  "nfs4",      "cifs",   "smb3",    "9p",
                                                  "ceph", "glusterfs", "lustre", "virtiofs"};
  for (std::string_view net : kNetwork) {
    if (fs_type == net) return "network file system (" + fs_type + "): no block device";
  }
  return fs_type + ": no block device";
}

struct ChainBuilder {
  StorageChain& chain;

  bool has(const std::string& device) const {
    return std::any_of(chain.devices.begin(), chain.devices.end(),
                       [&](const BlockDevice& d) { return d.device == device; });
  }

  // Fills a device's attributes from sysfs; `queue_dir` is its whole disk's (partitions have no
  // queue of their own).
  static void read_attributes(BlockDevice& d, const std::string& disk) {
    const std::string base = "/sys/block/" + disk;
    d.model = read_attribute(base + "/device/model");
    const std::string rotational = read_attribute(base + "/queue/rotational");
    if (rotational == "0" || rotational == "1") d.rotational = rotational == "1";
    std::uint64_t value = 0;
    if (to_u64(read_attribute(base + "/queue/logical_block_size"), value)) {
      d.logical_block_size = value;
    }
    if (to_u64(read_attribute(base + "/queue/physical_block_size"), value)) {
      d.physical_block_size = value;
    }
    if (to_u64(read_attribute(base + "/queue/nr_requests"), value)) d.nr_requests = value;
    d.write_cache = read_attribute(base + "/queue/write_cache");
    // "none [mq-deadline] kyber": the bracketed one is active; a single name is too.
    const std::string scheduler = read_attribute(base + "/queue/scheduler");
    const std::size_t open = scheduler.find('[');
    const std::size_t close = scheduler.find(']', open == std::string::npos ? 0 : open);
    d.scheduler = open != std::string::npos && close != std::string::npos
                      ? scheduler.substr(open + 1, close - open - 1)
                      : scheduler;
  }

  void add(const std::string& device, const std::string& role, int depth) {
    if (depth > kMaxDepth || has(device)) return;
    std::error_code ec;
    const fs::path sys = fs::canonical("/sys/dev/block/" + device, ec);
    if (ec) return;
    BlockDevice d;
    d.name = sys.filename().string();
    d.device = device;
    d.role = role;
    const bool partition = fs::exists(sys / "partition", ec);
    const std::string disk = partition ? sys.parent_path().filename().string() : d.name;
    read_attributes(d, disk);
    d.backing_file = read_attribute("/sys/block/" + d.name + "/loop/backing_file");
    chain.devices.push_back(d);

    if (partition)
      add(read_attribute(sys.parent_path().string() + "/dev"), "whole disk", depth + 1);
    if (!d.backing_file.empty()) {
      // The loop device's data lands in a file: on whatever is under that file.
      struct stat st {};
      if (::stat(d.backing_file.c_str(), &st) == 0) {
        add(std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev)),
            "loop backing", depth + 1);
      }
    }
    for (const fs::directory_entry& slave : fs::directory_iterator(sys / "slaves", ec)) {
      add(read_attribute((slave.path() / "dev").string()), "slave", depth + 1);
    }
  }
};

// The limits of blkio (v1) or io (v2) in `dir` and every cgroup above it up to `root`.
void add_limits(const std::string& root, std::string path, bool v1,
                std::vector<CgroupIoLimit>& out) {
  while (true) {
    const std::string dir = root + (path == "/" ? "" : path);
    if (v1) {
      std::map<std::string, CgroupIoLimit> by_device;
      const auto read = [&](const char* file, std::uint64_t CgroupIoLimit::*field) {
        for (const auto& [device, value] :
             parse_blkio_throttle(read_kernel_file(dir + "/blkio.throttle." + file))) {
          CgroupIoLimit& limit = by_device[device];
          limit.device = device;
          limit.*field = value;
        }
      };
      read("read_bps_device", &CgroupIoLimit::read_bytes_per_s);
      read("write_bps_device", &CgroupIoLimit::write_bytes_per_s);
      read("read_iops_device", &CgroupIoLimit::read_iops);
      read("write_iops_device", &CgroupIoLimit::write_iops);
      for (auto& [device, limit] : by_device) {
        limit.cgroup = dir;
        limit.source = "blkio.throttle";
        out.push_back(limit);
      }
    } else {
      for (CgroupIoLimit limit : parse_io_max(read_kernel_file(dir + "/io.max"))) {
        limit.cgroup = dir;
        limit.source = "io.max";
        out.push_back(limit);
      }
    }
    if (path == "/" || path.empty()) break;
    const std::size_t slash = path.rfind('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
}

std::vector<CgroupIoLimit> cgroup_limits() {
  std::vector<CgroupIoLimit> limits;
  std::error_code ec;
  for (const CgroupMembership& m : parse_proc_cgroup(read_kernel_file("/proc/self/cgroup"))) {
    bool blkio = false;
    std::size_t start = 0;
    while (start <= m.controllers.size()) {
      const std::size_t end = std::min(m.controllers.find(',', start), m.controllers.size());
      blkio = blkio || m.controllers.substr(start, end - start) == "blkio";
      start = end + 1;
    }
    if (blkio) {
      add_limits("/sys/fs/cgroup/blkio", m.path, true, limits);
    } else if (m.controllers.empty()) {
      // cgroup v2: mounted at /sys/fs/cgroup/unified beside v1 (hybrid), else at /sys/fs/cgroup.
      const bool hybrid = fs::exists("/sys/fs/cgroup/unified/cgroup.controllers", ec);
      add_limits(hybrid ? "/sys/fs/cgroup/unified" : "/sys/fs/cgroup", m.path, false, limits);
    }
  }
  return limits;
}

// The block device "major:minor" of a mount, "" if it has none: an anonymous st_dev (major 0:
// tmpfs, FUSE, NFS, overlay, btrfs) is a block device only if the source is one (btrfs shows
// /dev/sdX there).
std::string block_device_of(const detail::MountEntry& mount) {
  if (!mount.device_number.starts_with("0:")) return mount.device_number;
  struct stat st {};
  if (!mount.source.empty() && ::stat(mount.source.c_str(), &st) == 0 && S_ISBLK(st.st_mode))
    return std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
  return {};
}

// The directories of an overlay's "lowerdir=a:b" ("\:" escapes a colon in a name; "::" sets
// off data-only layers, Linux 6.7): top one first.
std::vector<std::string> split_lowerdirs(std::string_view value) {
  std::vector<std::string> dirs(1);
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size() && value[i + 1] == ':') {
      dirs.back() += ':';
      ++i;
    } else if (value[i] == ':') {
      dirs.emplace_back();
    } else {
      dirs.back() += value[i];
    }
  }
  std::erase_if(dirs, [](const std::string& d) { return d.empty(); });
  return dirs;
}

// overlayfs: its layers from the superblock options ("upperdir=", "lowerdir=", and the
// "lowerdir+=" / "datadir+=" of the new mount API), each with the file system under it, and
// their block devices into the chain.
void add_overlay(StorageChain& chain, const detail::MountEntry& mount,
                 const std::vector<detail::MountEntry>& mounts) {
  const auto add_layer = [&](const std::string& role, const std::string& dir) {
    OverlayLayer layer{.role = role, .dir = dir, .mount_point = {}, .fs_type = {}, .device = {}};
    const fs::path resolved = existing_canonical(dir);
    const detail::MountEntry* under =
        resolved.empty() ? nullptr : detail::find_mount(mounts, resolved.string());
    if (under != nullptr) {
      layer.mount_point = under->mount_point;
      layer.fs_type = under->fs_type;
      layer.device = block_device_of(*under);
      if (!layer.device.empty()) ChainBuilder{chain}.add(layer.device, "overlay " + role, 1);
    }
    chain.overlay.push_back(std::move(layer));
  };
  std::vector<std::string> lower;
  std::string upper;
  std::size_t start = 0;
  const std::string& options = mount.super_options;
  while (start <= options.size()) {
    const std::size_t end = std::min(options.find(',', start), options.size());
    const std::string_view option = std::string_view(options).substr(start, end - start);
    if (option.starts_with("upperdir=")) {
      upper = option.substr(9);
    } else if (option.starts_with("lowerdir=")) {
      for (std::string& dir : split_lowerdirs(option.substr(9))) lower.push_back(std::move(dir));
    } else if (option.starts_with("lowerdir+=") || option.starts_with("datadir+=")) {
      lower.emplace_back(option.substr(option.find('=') + 1));
    }
    start = end + 1;
  }
  if (!upper.empty()) add_layer("upper", upper);
  for (const std::string& dir : lower) add_layer("lower", dir);
}

// The cgroup limits on the devices of `chain`.
void add_matching_limits(StorageChain& chain) {
  for (CgroupIoLimit& limit : cgroup_limits()) {
    const bool on_chain =
        std::any_of(chain.devices.begin(), chain.devices.end(),
                    [&](const BlockDevice& d) { return d.device == limit.device; });
    if (on_chain) chain.limits.push_back(std::move(limit));
  }
}

}  // namespace

StorageChain describe_storage(const fs::path& path) {
  StorageChain chain;
  chain.path = path.string();
  const fs::path resolved = existing_canonical(path);
  if (resolved.empty()) return chain;
  // A block device as the target (read in place): its own chain, whatever /dev is mounted as.
  if (struct stat st{}; ::stat(resolved.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
    ChainBuilder{chain}.add(
        std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev)), "target", 0);
    add_matching_limits(chain);
    return chain;
  }
  const std::vector<detail::MountEntry> mounts =
      detail::parse_mountinfo(read_kernel_file("/proc/self/mountinfo"));
  const detail::MountEntry* mount = detail::find_mount(mounts, resolved.string());
  if (mount == nullptr) return chain;
  chain.mount_point = mount->mount_point;
  chain.fs_type = mount->fs_type;
  chain.mount_options = detail::combined_mount_options(*mount);
  chain.source = mount->source;

  if (chain.fs_type == "overlay") {
    // No device of its own: its layers' file systems have them (or not: tmpfs layers).
    add_overlay(chain, *mount, mounts);
    if (chain.devices.empty()) {
      chain.no_block_device = "overlay: no block device under its layers";
      return chain;
    }
    add_matching_limits(chain);
    return chain;
  }
  const std::string device = block_device_of(*mount);
  if (device.empty()) {
    chain.no_block_device = no_device_reason(chain.fs_type);
    return chain;
  }
  ChainBuilder{chain}.add(device, "filesystem", 0);
  if (chain.devices.empty()) {
    chain.no_block_device = no_device_reason(chain.fs_type);
    return chain;
  }
  add_matching_limits(chain);
  return chain;
}

std::vector<std::string> chain_device_names(std::span<const StorageChain> chains) {
  std::vector<std::string> names;
  for (const StorageChain& chain : chains) {
    for (const BlockDevice& d : chain.devices) {
      if (std::find(names.begin(), names.end(), d.name) == names.end()) names.push_back(d.name);
    }
  }
  return names;
}

}  // namespace iobench::explain
