#include "loop_fs.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace iobench::test {

int run_command(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return status == -1 ? -1 : WEXITSTATUS(status);
}

LoopFs::LoopFs(std::uint64_t image_bytes, Journal journal) {
  if (::geteuid() != 0) {
    refused_ = "a loop device and a mount need root";
    return;
  }
  std::filesystem::create_directory(mount_point());
  { std::ofstream(image()).close(); }
  std::filesystem::resize_file(image(), image_bytes);
  // losetup picks and binds a free device atomically (other processes use loop devices too).
  const std::string command = "losetup -f --show " + image().string() + " 2>/dev/null";
  if (FILE* out = ::popen(command.c_str(), "r")) {
    char line[64] = {};
    if (std::fgets(line, sizeof line, out) != nullptr) device_ = line;
    ::pclose(out);
  }
  while (!device_.empty() && device_.back() == '\n') device_.pop_back();
  if (!device_.starts_with("/dev/loop")) {
    refused_ = "losetup -f --show refused (no free loop device or no permission)";
    device_.clear();
    return;
  }
  if (run_command(std::string("mkfs.ext4 -q -F ") +
                  (journal == Journal::kWith ? "" : "-O ^has_journal ") +
                  "-E lazy_itable_init=0,lazy_journal_init=0 " + device_) != 0) {
    refused_ = "mkfs.ext4 on " + device_ + " failed";
    return;
  }
  if (run_command("mount -t ext4 -o noatime " + device_ + " " + mount_point().string()) != 0) {
    refused_ = "mount of " + device_ + " refused";
    return;
  }
  mounted_ = true;
  // udev probes a new or changed block device (blkid reads its first blocks): wait for those
  // events here, so that its reads do not land inside a test's measured window.
  settle_udev();
}

void settle_udev() {
  if (run_command("command -v udevadm") == 0) run_command("udevadm settle --timeout=10");
}

LoopFs::~LoopFs() {
  if (mounted_) run_command("umount " + mount_point().string());
  if (!device_.empty()) run_command("losetup -d " + device_);
}

std::string LoopFs::device_number() const {
  struct stat st {};
  if (::stat(device_.c_str(), &st) != 0) return {};
  return std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
}

}  // namespace iobench::test
