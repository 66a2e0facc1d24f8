#pragma once

// The safety rules of destructive runs on block devices (writes, trims, mixed phases, purge):
// what a whole block device must satisfy before iobench writes a byte to it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::disk {

/// Bytes of a device's start that find_signature() reads (ZFS's first label, whose uberblock
/// array spans 128 to 256 KiB).
inline constexpr std::size_t kSignatureProbeBytes = 256 * 1024;

/// The first known file system, partition table or volume signature in `head` (a device's
/// first bytes, from offset 0; a shorter span is searched as far as it goes), as "ext2/3/4
/// (magic 0xEF53 at byte 1080)"; nullopt when none. The table: ext2/3/4, XFS, btrfs, swap
/// (page sizes 4 to 64 KiB), LUKS, LVM2, md RAID superblocks 1.1 (byte 0) and 1.2 (byte 4096;
/// magic 0xa92b4efc little-endian), ZFS (uberblock magic 0x00bab10c in any 1 KiB slot from
/// 128 KiB on, either byte order), GPT, ISO 9660, and an MBR or boot sector (0x55AA at byte 510:
/// FAT and NTFS too).
[[nodiscard]] std::optional<std::string> find_signature(std::span<const std::byte> head);

/// One identity the kernel reports for a block device: the sysfs file (relative to the
/// device's sysfs directory, e.g. "device/serial", "wwid", "loop/backing_file") and its text,
/// trimmed of surrounding white space.
struct DeviceIdentity {
  std::string source;
  std::string value;
};

/// The unit serial number in a raw SCSI VPD page 0x80 (`page`: 4 header bytes, bytes 2-3 the
/// big-endian length, then the serial as ASCII), without padding or unprintable bytes.
[[nodiscard]] std::string vpd_pg80_serial(std::string_view page);

/// The identities in `sysfs_dir` (/sys/dev/block/MAJ:MIN, resolved), in order: device/serial,
/// serial, wwid, device/wwid, device/vpd_pg80 (printable part), and for a loop device
/// loop/backing_file (the stand-in serial: loop devices have none). Empty ones are left out.
[[nodiscard]] std::vector<DeviceIdentity> device_identities(const std::filesystem::path& sysfs_dir);

/// One line of /proc/self/mountinfo: the mount's device number as the kernel lists it
/// ("MAJ:MIN"; 0:NN for btrfs, ZFS, bcachefs and others with an anonymous device), its mount
/// point and its source (the field after " - " and the file system type, e.g. "/dev/sdb1").
struct MountEntry {
  std::string dev;
  std::string mount_point;
  std::string source;
};

/// Parses one mountinfo line (proc(5)); fields missing are left empty.
[[nodiscard]] MountEntry parse_mountinfo_line(const std::string& line);

/// The block devices ("MAJ:MIN") `mount` is on: its listed MAJ:MIN, and the device number of
/// its source when that is an absolute /dev path naming a block device (stat), which is how a
/// btrfs, ZFS or bcachefs mount listed as 0:NN is tied to its device.
[[nodiscard]] std::vector<std::string> mount_devices(const MountEntry& mount);

/// Checks that `device` (a block device path) may be written by a destructive phase
/// (`what`, e.g. "operation=write") given --destructive=`serial` and --force-signature.
/// Rules, in this order: a whole device, not a partition; not the root file system's device
/// nor beneath it (device mapper, md: the slaves of the root's device); `serial` equals one of
/// device_identities(); neither it nor a partition of it mounted or used as swap; no holders
/// (/sys/.../holders); not opened exclusively by anyone (open O_EXCL: EBUSY); no signature
/// (find_signature) unless `force_signature`. Reads only. Throws ConfigError naming the rule,
/// the device and the fix. Every rule is taken from the device number (st_rdev) of one opened
/// descriptor of `device`, which is returned so that later opens can be compared with it.
struct CheckedDevice {
  /// The identity --destructive matched ("loop/backing_file '/tmp/img'").
  std::string identity;
  /// The checked device's number (st_rdev from fstat of the descriptor the checks read).
  std::uint64_t rdev = 0;
};
CheckedDevice check_destructive_device(const std::filesystem::path& device,
                                       const std::string& serial, bool force_signature,
                                       const std::string& what);

/// Refuses a descriptor `fd` opened on `device` for writing (`what`, e.g. "open for the purge")
/// unless fstat shows the block device `rdev` that check_destructive_device() checked: the path
/// may have been made to name another device since (a symlink or device node swapped). Throws
/// IoError (ENXIO) naming both device numbers, or IoError for a failed fstat.
void require_checked_device(int fd, const std::filesystem::path& device, std::uint64_t rdev,
                            const std::string& what);

/// The kernel's name of block device `device` ("loop3", "nvme0n1"; from /sys/dev/block), or
/// its file name when sysfs has no entry.
[[nodiscard]] std::string block_device_name(const std::filesystem::path& device);

/// The device's size in bytes (BLKGETSIZE64 on a read-only descriptor). Throws IoError.
[[nodiscard]] std::uint64_t block_device_bytes(const std::filesystem::path& device);

}  // namespace iobench::plugins::disk
