#include "plugins/disk/device_safety.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/printable.hpp>
#include <set>
#include <sstream>
#include <string_view>

namespace iobench::plugins::disk {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kZfsUberblocksOffset = 128 * 1024;

struct Magic {
  const char* name;
  std::size_t offset;
  std::string_view bytes;
};

using namespace std::string_view_literals;

// Checked in this order: the file systems first (an MBR's 0x55AA is also in FAT and NTFS boot
// sectors, so it names what is left).
constexpr Magic kMagics[] = {
    {"ext2/3/4", 1080, "\x53\xEF"sv},
    {"XFS", 0, "XFSB"sv},
    {"md RAID member (superblock 1.1)", 0, "\xFC\x4E\x2B\xA9"sv},
    {"md RAID member (superblock 1.2)", 4096, "\xFC\x4E\x2B\xA9"sv},
    {"btrfs", 65600, "_BHRfS_M"sv},
    {"LUKS", 0, "LUKS\xBA\xBE"sv},
    {"LUKS2 (secondary header)", 16384, "SKUL\xBA\xBE"sv},
    {"LVM2 physical volume", 512, "LABELONE"sv},
    {"swap", 4096 - 10, "SWAPSPACE2"sv},
    {"swap", 8192 - 10, "SWAPSPACE2"sv},
    {"swap", 16384 - 10, "SWAPSPACE2"sv},
    {"swap", 65536 - 10, "SWAPSPACE2"sv},
    {"GPT partition table", 512, "EFI PART"sv},
    {"ISO 9660", 32769, "CD001"sv},
    {"MBR partition table or boot sector", 510, "\x55\xAA"sv},
};

std::string hex(std::string_view bytes) {
  std::string out = "0x";
  for (const char c : bytes) out += fmt::format("{:02X}", static_cast<unsigned char>(c));
  return out;
}

std::string read_trimmed(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  std::string value = text.str();
  const auto space = [](unsigned char c) { return std::isspace(c) != 0 || c == 0; };
  while (!value.empty() && space(static_cast<unsigned char>(value.back()))) value.pop_back();
  std::size_t start = 0;
  while (start < value.size() && space(static_cast<unsigned char>(value[start]))) ++start;
  return value.substr(start);
}

// "MAJ:MIN" of a device number.
std::string dev_text(dev_t dev) { return fmt::format("{}:{}", major(dev), minor(dev)); }

// The device's sysfs directory, resolved (/sys/devices/...), or empty.
fs::path sysfs_dir_of(const std::string& dev) {
  std::error_code ec;
  fs::path dir = fs::canonical(fs::path("/sys/dev/block") / dev, ec);
  return ec ? fs::path() : dir;
}

bool is_partition(const fs::path& sysfs_dir) {
  std::error_code ec;
  return fs::exists(sysfs_dir / "partition", ec);
}

// The partitions' sysfs directories of a whole disk.
std::vector<fs::path> partitions_of(const fs::path& disk) {
  std::vector<fs::path> parts;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(disk, ec)) {
    if (is_partition(entry.path())) parts.push_back(entry.path());
  }
  return parts;
}

// The whole disks beneath the device `dev` (itself, or a partition's disk, and recursively
// the disks under its slaves: device mapper, md, ...).
void disks_beneath(const fs::path& dir, std::set<std::string>& disks, int depth = 0) {
  if (dir.empty() || depth > 16) return;
  const fs::path disk = is_partition(dir) ? dir.parent_path() : dir;
  if (!disks.insert(read_trimmed(disk / "dev")).second) return;
  std::error_code ec;
  for (const auto& slave : fs::directory_iterator(disk / "slaves", ec)) {
    disks_beneath(fs::canonical(slave.path(), ec), disks, depth + 1);
  }
}

std::vector<MountEntry> mounts() {
  std::vector<MountEntry> found;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) found.push_back(parse_mountinfo_line(line));
  return found;
}

[[noreturn]] void refuse(const fs::path& device, const std::string& what, const std::string& rule,
                         const std::string& fix) {
  throw ConfigError(fmt::format("disk: {} on block device '{}' refused: {}; {}", what,
                                printable(device.string()), rule, fix));
}

}  // namespace

MountEntry parse_mountinfo_line(const std::string& line) {
  MountEntry entry;
  std::istringstream fields(line);
  std::string id, parent, root;
  fields >> id >> parent >> entry.dev >> root >> entry.mount_point;
  const std::size_t separator = line.find(" - ");
  if (separator != std::string::npos) {
    std::istringstream tail(line.substr(separator + 3));
    std::string type;
    tail >> type >> entry.source;
  }
  return entry;
}

std::vector<std::string> mount_devices(const MountEntry& mount) {
  std::vector<std::string> devs{mount.dev};
  struct stat st {};
  if (mount.source.starts_with("/dev/") && ::stat(mount.source.c_str(), &st) == 0 &&
      S_ISBLK(st.st_mode) && dev_text(st.st_rdev) != mount.dev) {
    devs.push_back(dev_text(st.st_rdev));
  }
  return devs;
}

std::optional<std::string> find_signature(std::span<const std::byte> head) {
  // ZFS: the first label's uberblock array (128 KiB on, 1 KiB slots); a slot is written per
  // transaction group, so any may be the one in use. The magic in either byte order.
  for (std::size_t slot = kZfsUberblocksOffset;
       slot + 8 <= head.size() && slot < 2 * kZfsUberblocksOffset; slot += 1024) {
    std::uint64_t magic = 0;
    std::memcpy(&magic, head.data() + slot, sizeof magic);
    if (magic == 0x00BAB10CULL || magic == 0x0CB1BA0000000000ULL) {
      return fmt::format("ZFS (uberblock magic 0x00BAB10C at byte {})", slot);
    }
  }
  for (const Magic& magic : kMagics) {
    if (head.size() < magic.offset + magic.bytes.size()) continue;
    if (std::memcmp(head.data() + magic.offset, magic.bytes.data(), magic.bytes.size()) == 0) {
      const bool text = std::all_of(magic.bytes.begin(), magic.bytes.end(),
                                    [](char c) { return c >= 0x20 && c < 0x7f; });
      return fmt::format("{} (magic {} at byte {})", magic.name,
                         text ? fmt::format("'{}'", magic.bytes) : hex(magic.bytes), magic.offset);
    }
  }
  return std::nullopt;
}

std::string vpd_pg80_serial(std::string_view page) {
  if (page.size() <= 4) return {};
  const std::size_t length = (static_cast<std::size_t>(static_cast<unsigned char>(page[2])) << 8) |
                             static_cast<unsigned char>(page[3]);
  std::string serial(page.substr(4, length));
  serial.erase(
      std::remove_if(serial.begin(), serial.end(), [](char c) { return c < 0x21 || c > 0x7e; }),
      serial.end());
  return serial;
}

std::vector<DeviceIdentity> device_identities(const fs::path& sysfs_dir) {
  std::vector<DeviceIdentity> ids;
  for (const char* source :
       {"device/serial", "serial", "wwid", "device/wwid", "device/vpd_pg80", "loop/backing_file"}) {
    std::string value;
    if (std::string_view(source) == "device/vpd_pg80") {
      // Binary: read raw (its first byte is often 0x00, which a trim would drop).
      std::ifstream in(sysfs_dir / source, std::ios::binary);
      std::ostringstream page;
      if (in) page << in.rdbuf();
      value = vpd_pg80_serial(page.str());
    } else {
      value = read_trimmed(sysfs_dir / source);
    }
    if (!value.empty()) ids.push_back({source, std::move(value)});
  }
  return ids;
}

std::string block_device_name(const fs::path& device) {
  struct stat st {};
  if (::stat(device.c_str(), &st) == 0) {
    const fs::path dir = sysfs_dir_of(dev_text(st.st_rdev));
    if (!dir.empty()) return dir.filename().string();
  }
  return device.filename().string();
}

std::uint64_t block_device_bytes(const fs::path& device) {
  UniqueFd fd(::open(device.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw IoError(errno, "open", device.string());
  std::uint64_t bytes = 0;
  if (::ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0) {
    throw IoError(errno, "ioctl(BLKGETSIZE64)", device.string());
  }
  return bytes;
}

void require_checked_device(int fd, const fs::path& device, std::uint64_t rdev,
                            const std::string& what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw IoError(errno, "fstat (" + what + ")", device.string());
  if (!S_ISBLK(st.st_mode) || st.st_rdev != static_cast<dev_t>(rdev)) {
    throw IoError(ENXIO,
                  fmt::format("{} refused: the path now names {} (device {}), not the block "
                              "device {} checked for --destructive; check what changed it",
                              what, S_ISBLK(st.st_mode) ? "block device" : "no block device",
                              dev_text(st.st_rdev), dev_text(static_cast<dev_t>(rdev))),
                  device.string());
  }
}

CheckedDevice check_destructive_device(const fs::path& device, const std::string& serial,
                                       bool force_signature, const std::string& what) {
  // One descriptor's device number is what every rule below reads: a second stat() or open of
  // the path could meet another device. O_PATH opens no device (the root's may be closed to us).
  UniqueFd probe(::open(device.c_str(), O_PATH | O_CLOEXEC));
  if (!probe) throw IoError(errno, "open", device.string());
  struct stat st {};
  if (::fstat(probe.get(), &st) != 0) throw IoError(errno, "fstat", device.string());
  if (!S_ISBLK(st.st_mode)) {
    refuse(device, what, "it is not a block device", "give a whole block device");
  }
  const std::string dev = dev_text(st.st_rdev);
  const fs::path dir = sysfs_dir_of(dev);
  if (dir.empty()) {
    refuse(device, what, fmt::format("sysfs has no entry /sys/dev/block/{}", dev),
           "destructive runs need a block device the kernel describes in /sys");
  }
  const std::string name = dir.filename().string();
  if (is_partition(dir)) {
    refuse(device, what,
           fmt::format("it is partition {} of {}; destructive runs take a whole device", name,
                       dir.parent_path().filename().string()),
           fmt::format("give /dev/{} (all of it is then overwritten), or a directory on a file "
                       "system in the partition",
                       dir.parent_path().filename().string()));
  }
  // The device and its partitions: what must be neither mounted, swap, held nor the root's.
  std::set<std::string> devs{dev};
  std::vector<fs::path> parts = partitions_of(dir);
  for (const fs::path& part : parts) devs.insert(read_trimmed(part / "dev"));
  const std::vector<MountEntry> mounted = mounts();
  for (const MountEntry& mount : mounted) {
    if (mount.mount_point != "/") continue;
    for (const std::string& root_dev : mount_devices(mount)) {
      std::set<std::string> beneath_root;
      disks_beneath(sysfs_dir_of(root_dev), beneath_root);
      if (beneath_root.contains(dev)) {
        refuse(device, what,
               fmt::format("{} holds the root file system (/ is on {})", name, root_dev),
               "iobench never writes the root device; give another device");
      }
    }
  }
  const std::vector<DeviceIdentity> ids = device_identities(dir);
  const auto match = std::find_if(ids.begin(), ids.end(),
                                  [&](const DeviceIdentity& id) { return id.value == serial; });
  if (match == ids.end()) {
    std::string reported;
    for (const DeviceIdentity& id : ids) {
      reported +=
          fmt::format("{}{} '{}'", reported.empty() ? "" : ", ", id.source, printable(id.value));
    }
    refuse(device, what,
           ids.empty()
               ? fmt::format("--destructive={} cannot be matched: the kernel reports no serial or "
                             "WWN for {} (device/serial, serial, wwid, device/wwid, "
                             "device/vpd_pg80, loop/backing_file in {})",
                             printable(serial), name, dir.string())
               : fmt::format("--destructive={} does not match {}: the kernel reports {}",
                             printable(serial), name, reported),
           "give --destructive=SERIAL with the serial or WWN of the device you mean to overwrite "
           "(for a loop device: its backing file's path, /sys/block/loopN/loop/backing_file)");
  }
  for (const MountEntry& mount : mounted) {
    for (const std::string& mount_dev : mount_devices(mount)) {
      if (devs.contains(mount_dev)) {
        refuse(device, what,
               fmt::format("{} (device {}) is mounted on {}", name, mount_dev,
                           printable(mount.mount_point)),
               "unmount it (and every partition of it) first");
      }
    }
  }
  {
    std::ifstream swaps("/proc/swaps");
    std::string line;
    std::getline(swaps, line);  // the header
    while (std::getline(swaps, line)) {
      const std::string path = line.substr(0, line.find_first_of(" \t"));
      struct stat swap {};
      if (::stat(path.c_str(), &swap) == 0 && S_ISBLK(swap.st_mode) &&
          devs.contains(dev_text(swap.st_rdev))) {
        refuse(device, what, fmt::format("{} is in use as swap", printable(path)),
               fmt::format("swapoff {} first", printable(path)));
      }
    }
  }
  std::vector<fs::path> dirs = parts;
  dirs.insert(dirs.begin(), dir);
  for (const fs::path& d : dirs) {
    std::error_code ec;
    for (const auto& holder : fs::directory_iterator(d / "holders", ec)) {
      refuse(device, what,
             fmt::format("{} is held by {} (device mapper, md or similar)", d.filename().string(),
                         holder.path().filename().string()),
             "stop what holds it (dmsetup remove, mdadm --stop, ...) first");
    }
  }
  UniqueFd fd(::open(device.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
  if (!fd) {
    if (errno == EBUSY) {
      refuse(device, what, fmt::format("{} is in use: another program opened it exclusively", name),
             "end what uses it (a file system, RAID, device mapper, another benchmark) first");
    }
    throw IoError(errno, "open O_EXCL", device.string());
  }
  require_checked_device(fd.get(), device, st.st_rdev, "open O_EXCL");
  for (const fs::path& part : parts) {
    // A partition in use (a mount the tables above missed, a RAID member) refuses O_EXCL.
    const fs::path node = fs::path("/dev") / part.filename();
    UniqueFd part_fd(::open(node.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
    if (!part_fd && errno == EBUSY) {
      refuse(device, what,
             fmt::format("its partition {} is in use: another program opened it exclusively",
                         node.string()),
             fmt::format("end what uses {} (a file system, RAID, device mapper) first",
                         node.string()));
    }
    if (part_fd) part_fd.close(node);
  }
  if (!force_signature) {
    std::vector<std::byte> head(kSignatureProbeBytes);
    const ssize_t got = ::pread(fd.get(), head.data(), head.size(), 0);
    if (got < 0) throw IoError(errno, "pread", device.string());
    head.resize(static_cast<std::size_t>(got));
    if (const auto found = find_signature(head)) {
      refuse(device, what, fmt::format("{} holds a {} signature", name, *found),
             "add --force-signature to overwrite it anyway (wipefs shows what is there)");
    }
  }
  fd.close(device);
  probe.close(device);
  return {.identity = fmt::format("{} '{}'", match->source, printable(match->value)),
          .rdev = static_cast<std::uint64_t>(st.st_rdev)};
}

}  // namespace iobench::plugins::disk
