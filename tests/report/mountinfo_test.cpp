#include "util/mountinfo.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "util/cpuinfo.hpp"

namespace iobench::detail {
namespace {

constexpr const char* kMountinfo =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "27 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
    "40 27 8:17 / /mnt/a rw,noatime shared:20 master:3 - xfs /dev/sdb1 rw,attr2,inode64,noquota\n"
    "41 27 8:33 / /mnt/ab rw,relatime - ext4 /dev/sdc1 rw\n"
    "42 27 0:50 / /mnt/my\\040disk rw,nosuid - tmpfs tmpfs rw,size=1024k\n"
    "43 40 0:51 /sub /mnt/a/inner rw - fuse.sshfs user@host:/x\\134y rw,user_id=0\n"
    "44 40 0:52 / /mnt/a/inner rw,nodev - overlay  rw,lowerdir=/l\n"
    "this line is not a mount\n";

TEST_CASE("mountinfo lines parse into their fields", "[report]") {
  const auto entry = parse_mountinfo_line(
      "40 27 8:17 / /mnt/a rw,noatime shared:20 master:3 - xfs /dev/sdb1 rw,attr2,inode64");
  REQUIRE(entry.has_value());
  CHECK(entry->mount_id == 40);
  CHECK(entry->parent_id == 27);
  CHECK(entry->device_number == "8:17");
  CHECK(entry->root == "/");
  CHECK(entry->mount_point == "/mnt/a");
  CHECK(entry->mount_options == "rw,noatime");
  CHECK(entry->fs_type == "xfs");
  CHECK(entry->source == "/dev/sdb1");
  CHECK(entry->super_options == "rw,attr2,inode64");
}

TEST_CASE("mountinfo lines without optional fields parse", "[report]") {
  const auto entry = parse_mountinfo_line("22 27 0:21 / /proc rw,relatime - proc proc rw\n");
  REQUIRE(entry.has_value());
  CHECK(entry->mount_point == "/proc");
  CHECK(entry->fs_type == "proc");
  CHECK(entry->source == "proc");
  CHECK(entry->super_options == "rw");
}

TEST_CASE("mountinfo octal escapes are decoded", "[report]") {
  CHECK(unescape_mountinfo_field("/mnt/my\\040disk") == "/mnt/my disk");
  CHECK(unescape_mountinfo_field("a\\011b\\012c\\134d") == "a\tb\nc\\d");
  CHECK(unescape_mountinfo_field("\\040\\040") == "  ");
  // Not an escape: kept as written.
  CHECK(unescape_mountinfo_field("end\\04") == "end\\04");
  CHECK(unescape_mountinfo_field("x\\089") == "x\\089");
  CHECK(unescape_mountinfo_field("x\\777") == "x\\777");
  const auto entry = parse_mountinfo_line("42 27 0:50 / /mnt/my\\040disk rw - tmpfs tmp\\040fs rw");
  REQUIRE(entry.has_value());
  CHECK(entry->mount_point == "/mnt/my disk");
  CHECK(entry->source == "tmp fs");
}

TEST_CASE("mountinfo keeps an empty mount source", "[report]") {
  const auto entry = parse_mountinfo_line("44 40 0:52 / /mnt/o rw - overlay  rw,lowerdir=/l");
  REQUIRE(entry.has_value());
  CHECK(entry->fs_type == "overlay");
  CHECK(entry->source.empty());
  CHECK(entry->super_options == "rw,lowerdir=/l");
}

TEST_CASE("malformed mountinfo lines are rejected", "[report]") {
  CHECK_FALSE(parse_mountinfo_line("").has_value());
  CHECK_FALSE(parse_mountinfo_line("this line is not a mount").has_value());
  // No "-" separator.
  CHECK_FALSE(parse_mountinfo_line("22 27 0:21 / /proc rw,relatime proc proc rw").has_value());
  // Too few fields after the separator.
  CHECK_FALSE(parse_mountinfo_line("22 27 0:21 / /proc rw,relatime - proc proc").has_value());
  // Non-numeric ids, bad device number, relative mount point.
  CHECK_FALSE(parse_mountinfo_line("x 27 0:21 / /proc rw - proc proc rw").has_value());
  CHECK_FALSE(parse_mountinfo_line("22 27 021 / /proc rw - proc proc rw").has_value());
  CHECK_FALSE(parse_mountinfo_line("22 27 0:21 / proc rw - proc proc rw").has_value());
}

TEST_CASE("a whole mountinfo text parses in order skipping bad lines", "[report]") {
  const auto mounts = parse_mountinfo(kMountinfo);
  REQUIRE(mounts.size() == 7);
  CHECK(mounts[0].mount_point == "/proc");
  CHECK(mounts[4].mount_point == "/mnt/my disk");
  CHECK(mounts[5].source == "user@host:/x\\y");
  CHECK(mounts[5].root == "/sub");
  CHECK(parse_mountinfo("").empty());
}

TEST_CASE("mount points contain paths by whole components", "[report]") {
  CHECK(mount_point_contains("/", "/"));
  CHECK(mount_point_contains("/", "/anything/at/all"));
  CHECK(mount_point_contains("/mnt/a", "/mnt/a"));
  CHECK(mount_point_contains("/mnt/a", "/mnt/a/x/y"));
  CHECK_FALSE(mount_point_contains("/mnt/a", "/mnt/ab"));
  CHECK_FALSE(mount_point_contains("/mnt/a", "/mnt"));
  CHECK_FALSE(mount_point_contains("/mnt/a", "relative/mnt/a"));
}

TEST_CASE("the mount of a path is the longest containing mount point", "[report]") {
  const auto mounts = parse_mountinfo(kMountinfo);
  const MountEntry* root = find_mount(mounts, "/home/user/data");
  REQUIRE(root != nullptr);
  CHECK(root->fs_type == "ext4");
  CHECK(root->source == "/dev/sda1");

  const MountEntry* a = find_mount(mounts, "/mnt/a/run/file");
  REQUIRE(a != nullptr);
  CHECK(a->fs_type == "xfs");

  const MountEntry* ab = find_mount(mounts, "/mnt/ab");
  REQUIRE(ab != nullptr);
  CHECK(ab->source == "/dev/sdc1");

  const MountEntry* spaced = find_mount(mounts, "/mnt/my disk/f");
  REQUIRE(spaced != nullptr);
  CHECK(spaced->fs_type == "tmpfs");

  // Two mounts on /mnt/a/inner: the later one hides the earlier.
  const MountEntry* inner = find_mount(mounts, "/mnt/a/inner/deep");
  REQUIRE(inner != nullptr);
  CHECK(inner->fs_type == "overlay");

  CHECK(find_mount({}, "/x") == nullptr);
  CHECK(find_mount(parse_mountinfo("40 27 8:17 / /mnt/a rw - xfs /dev/sdb1 rw\n"), "/srv") ==
        nullptr);
}

TEST_CASE("mount options combine per-mount and superblock options once each", "[report]") {
  MountEntry entry;
  entry.mount_options = "rw,relatime";
  entry.super_options = "rw,errors=remount-ro";
  CHECK(combined_mount_options(entry) == "rw,relatime,errors=remount-ro");
  entry.mount_options = "ro";
  entry.super_options = "";
  CHECK(combined_mount_options(entry) == "ro");
  entry.mount_options = "";
  entry.super_options = "rw,size=1024k";
  CHECK(combined_mount_options(entry) == "rw,size=1024k");
}

TEST_CASE("cpu model comes from the first model name line", "[report]") {
  constexpr const char* kX86 =
      "processor\t: 0\n"
      "vendor_id\t: GenuineIntel\n"
      "model\t\t: 79\n"
      "model name\t: Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz\n"
      "processor\t: 1\n"
      "model name\t: Something Else\n";
  CHECK(cpu_model_from_cpuinfo(kX86) == "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz");
  constexpr const char* kOldArm =
      "Processor\t: ARMv7 Processor rev 4 (v7l)\n"
      "processor\t: 0\n"
      "BogoMIPS\t: 38.40\n";
  CHECK(cpu_model_from_cpuinfo(kOldArm) == "ARMv7 Processor rev 4 (v7l)");
  constexpr const char* kPower = "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n";
  CHECK(cpu_model_from_cpuinfo(kPower) == "POWER9 (raw), altivec supported");
  CHECK(cpu_model_from_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n").empty());
  CHECK(cpu_model_from_cpuinfo("").empty());
}

}  // namespace
}  // namespace iobench::detail
