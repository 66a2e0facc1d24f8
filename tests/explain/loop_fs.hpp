#pragma once

// An ext4 file system on a loop device over a file, mounted on a fresh directory, for the life
// of the object (root only). No lazy initialisation and, unless asked for, no journal: nothing
// but the test's own I/O reaches the device while it runs.
#include <filesystem>
#include <string>

#include "tests/support/test_support.hpp"

namespace iobench::test {

class LoopFs {
 public:
  /// Journal::kWith: ext4's default journal (for tests of what the journal holds).
  enum class Journal { kWithout, kWith };
  explicit LoopFs(std::uint64_t image_bytes, Journal journal = Journal::kWithout);
  ~LoopFs();
  LoopFs(const LoopFs&) = delete;
  LoopFs& operator=(const LoopFs&) = delete;
  /// Empty when set up; else why not (a command refused), for the skip message.
  [[nodiscard]] const std::string& refused() const noexcept { return refused_; }
  [[nodiscard]] std::filesystem::path mount_point() const { return dir_.path() / "mnt"; }
  [[nodiscard]] std::filesystem::path image() const { return dir_.path() / "image"; }
  /// "/dev/loopN"
  [[nodiscard]] const std::string& device() const noexcept { return device_; }
  /// "loopN"
  [[nodiscard]] std::string name() const { return device_.substr(5); }
  /// "7:N"
  [[nodiscard]] std::string device_number() const;

 private:
  TempDir dir_{"loopfs"};
  std::string device_;
  bool mounted_ = false;
  std::string refused_;
};

/// Runs a shell command; its exit status.
int run_command(const std::string& command);

/// Waits (up to 10 s) for udev's queued events (`udevadm settle`), if udevadm is installed:
/// udev's blkid probe of a new loop device or file system reads it after losetup/mkfs/mount.
void settle_udev();

}  // namespace iobench::test
