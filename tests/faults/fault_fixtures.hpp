#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace iobench::test {

/// The file a fault test plants in the target before a run: it must survive every run.
inline constexpr const char* kPrecious = "precious";

/// Output of a shell command run with popen(3): its exit status and stdout.
struct CommandResult {
  int status = -1;
  std::string out;
};
/// Runs `command` under /bin/sh, stderr to stdout.
[[nodiscard]] CommandResult run_command(const std::string& command);

/// A small ext4 filesystem on a loop device over a sparse image in a TempDir, mounted for the
/// life of the object; root only. Where device-mapper works, the filesystem sits on a dm
/// "linear" target over the loop device, so that inject_eio() can swap in the "error" target;
/// without device-mapper inject_eio() shrinks the loop device instead (every block past 1 MiB
/// then fails with EIO: "attempt to access beyond end of device").
class LoopFs {
 public:
  /// `mount_options` e.g. "errors=remount-ro". Without a journal a device error reaches the
  /// writer as EIO (fsync, O_DIRECT writes); with one, ext4 aborts the journal at the first
  /// failed metadata write and later calls see EROFS, or nothing at all.
  explicit LoopFs(std::uint64_t size_mib, const std::string& mount_options = "",
                  bool journal = true);
  ~LoopFs();
  LoopFs(const LoopFs&) = delete;
  LoopFs& operator=(const LoopFs&) = delete;

  /// False where loop devices, mkfs.ext4 or mount are missing or refused; skip_reason() says why.
  [[nodiscard]] bool ready() const noexcept { return mounted_; }
  [[nodiscard]] const std::string& skip_reason() const noexcept { return skip_reason_; }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return mount_point_; }
  /// True when the filesystem is on device-mapper.
  [[nodiscard]] bool on_device_mapper() const noexcept { return !dm_name_.empty(); }

  /// From now on I/O to the device fails with EIO. Returns how it was done, for the test log.
  std::string inject_eio();
  /// ext4's error hook (/sys/fs/ext4/<dev>/trigger_fs_error): with errors=remount-ro the
  /// filesystem turns read-only at once, also under files open for writing.
  void make_read_only();

 private:
  TempDir dir_{"loopfs"};
  std::filesystem::path image_;
  std::filesystem::path mount_point_;
  std::string loop_device_;
  std::string dm_name_;
  std::string device_;  ///< what is mounted: the loop or the dm device
  std::uint64_t size_mib_;
  bool mounted_ = false;
  bool shrunk_ = false;
  std::string skip_reason_;
};

/// Why device-mapper cannot be used here ("" when it can).
[[nodiscard]] std::string device_mapper_missing_reason();

/// The run directory `iobench.*` in `target` once it holds an entry named `file` (any entry
/// when `file` is empty); empty when none appeared within `timeout`.
[[nodiscard]] std::filesystem::path wait_for_run_dir(
    const std::filesystem::path& target, const std::string& file = "",
    std::chrono::milliseconds timeout = std::chrono::milliseconds(20000));

/// The iobench CLI started in the background (stdout and stderr to files).
class CliProcess {
 public:
  explicit CliProcess(const std::vector<std::string>& args);
  ~CliProcess();
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// SIGSTOP, returning once the process is stopped (false if it exited first).
  bool stop();
  /// SIGCONT.
  void resume();
  /// Waits for the exit; exit_code is 128+signal when killed.
  CliResult wait();

 private:
  TempDir dir_{"cli"};
  pid_t pid_ = -1;
  bool reaped_ = false;
  int exit_status_ = 0;
};

/// Bytes free for an unprivileged writer on the filesystem holding `path` (statvfs f_bavail).
[[nodiscard]] std::uint64_t free_bytes(const std::filesystem::path& path);

/// Fills the filesystem holding `dir` to the last block with a file `dir`/`name` (fallocate,
/// then writes of smaller and smaller pieces until ENOSPC). Returns the bytes it took.
std::uint64_t fill_filesystem(const std::filesystem::path& dir, const std::string& name);

/// Every regular file and directory under `dir`, as relative paths with their size (files) and
/// content hash, sorted: equal snapshots mean the tree is as before. A directory that cannot
/// be listed adds an entry "<unreadable: reason>".
/// `with_content` false: names only (a failing device may not give the data back).
[[nodiscard]] std::vector<std::string> snapshot_tree(const std::filesystem::path& dir,
                                                     bool with_content = true);

}  // namespace iobench::test
