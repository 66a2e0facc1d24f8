#include "tests/faults/fault_fixtures.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace iobench::test {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string device_mapper_missing_reason() {
  const CommandResult version = run_command("dmsetup version");
  if (version.status == 0) return {};
  const std::string first_line = version.out.substr(0, version.out.find('\n'));
  return "device-mapper is not available (dmsetup version: " + first_line + ")";
}

LoopFs::LoopFs(std::uint64_t size_mib, const std::string& mount_options, bool journal)
    : size_mib_(size_mib) {
  if (::geteuid() != 0) {
    skip_reason_ = "loop devices and mount need root";
    return;
  }
  image_ = dir_.path() / "image";
  mount_point_ = dir_.path() / "mnt";
  std::filesystem::create_directory(mount_point_);
  { std::ofstream(image_).flush(); }
  std::filesystem::resize_file(image_, size_mib << 20);
  const CommandResult loop = run_command("losetup -f --show " + image_.string());
  if (loop.status != 0) {
    skip_reason_ = "no loop device: " + trimmed(loop.out);
    return;
  }
  loop_device_ = trimmed(loop.out);
  device_ = loop_device_;
  if (device_mapper_missing_reason().empty()) {
    const std::string name = "iobench-test-" + std::to_string(::getpid()) + "-" +
                             std::filesystem::path(loop_device_).filename().string();
    const std::string table =
        "0 " + std::to_string(size_mib << 11) + " linear " + loop_device_ + " 0";
    if (run_command("dmsetup create " + name + " --table '" + table + "'").status == 0) {
      dm_name_ = name;
      device_ = "/dev/mapper/" + name;
    }
  }
  const CommandResult mkfs =
      run_command(std::string("mkfs.ext4 -q -F ") + (journal ? "" : "-O ^has_journal ") + device_);
  if (mkfs.status != 0) {
    skip_reason_ = "mkfs.ext4 failed: " + trimmed(mkfs.out);
    return;
  }
  const std::string options = mount_options.empty() ? "" : " -o " + mount_options;
  const CommandResult mount =
      run_command("mount" + options + " " + device_ + " " + mount_point_.string());
  if (mount.status != 0) {
    skip_reason_ = "mount failed: " + trimmed(mount.out);
    return;
  }
  mounted_ = true;
}

LoopFs::~LoopFs() {
  if (shrunk_) {
    std::filesystem::resize_file(image_, size_mib_ << 20);
    (void)run_command("losetup -c " + loop_device_);
  }
  if (mounted_) (void)run_command("umount " + mount_point_.string());
  if (!dm_name_.empty()) (void)run_command("dmsetup remove " + dm_name_);
  if (!loop_device_.empty()) (void)run_command("losetup -d " + loop_device_);
}

std::string LoopFs::inject_eio() {
  if (!dm_name_.empty()) {
    // wipe_table loads the "error" target: every later bio fails with EIO.
    const CommandResult r = run_command("dmsetup wipe_table " + dm_name_);
    if (r.status != 0) throw std::runtime_error("dmsetup wipe_table: " + r.out);
    return "device-mapper error target";
  }
  // A loop write in flight when the image is cut can extend it again before `losetup -c` reads
  // its size: repeat until the device really is 1 MiB.
  shrunk_ = true;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::filesystem::resize_file(image_, 1 << 20);
    const CommandResult r = run_command("losetup -c " + loop_device_);
    if (r.status != 0) throw std::runtime_error("losetup -c: " + r.out);
    if (trimmed(run_command("blockdev --getsize64 " + loop_device_).out) != "1048576") continue;
    // And the device itself agrees: a read past 1 MiB finds the end of the device.
    const int fd = ::open(loop_device_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    void* page = std::aligned_alloc(4096, 4096);
    const ssize_t n = fd >= 0 && page != nullptr ? ::pread(fd, page, 4096, 16 << 20) : -2;
    std::free(page);
    if (fd >= 0) ::close(fd);
    if (n == 0 || (n < 0 && errno == EIO)) {
      return "loop device shrunk to 1 MiB (" + device_mapper_missing_reason() + ")";
    }
  }
  throw std::runtime_error("the loop device does not shrink");
}

void LoopFs::make_read_only() {
  const std::string device_name =
      std::filesystem::canonical(device_).filename().string();  // loopN or dm-N
  std::ofstream hook("/sys/fs/ext4/" + device_name + "/trigger_fs_error");
  hook << "iobench fault test\n";
  hook.flush();
  if (!hook) throw std::runtime_error("cannot write /sys/fs/ext4/" + device_name + "/trigger");
}

std::filesystem::path wait_for_run_dir(const std::filesystem::path& target, const std::string& file,
                                       std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(target, ec)) {
      if (entry.path().filename().string().rfind("iobench.", 0) != 0) continue;
      if (file.empty()) return entry.path();
      if (std::filesystem::exists(entry.path() / file, ec)) return entry.path();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return {};
}

CliProcess::CliProcess(const std::vector<std::string>& args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, (dir_.path() / "out").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir_.path() / "err").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> argv_text{IOBENCH_CLI_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("CliProcess: posix_spawn failed");
}

CliProcess::~CliProcess() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

bool CliProcess::stop() {
  ::kill(pid_, SIGSTOP);
  int status = 0;
  if (::waitpid(pid_, &status, WUNTRACED) != pid_) return false;
  if (WIFSTOPPED(status)) return true;
  exit_status_ = status;
  reaped_ = true;
  return false;
}

void CliProcess::resume() { ::kill(pid_, SIGCONT); }

CliResult CliProcess::wait() {
  int status = exit_status_;
  if (!reaped_) ::waitpid(pid_, &status, 0);
  reaped_ = true;
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(dir_.path() / "out");
  result.err = read_file(dir_.path() / "err");
  return result;
}

std::uint64_t free_bytes(const std::filesystem::path& path) {
  struct statvfs vfs {};
  if (::statvfs(path.c_str(), &vfs) != 0) return 0;
  return static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
}

std::uint64_t fill_filesystem(const std::filesystem::path& dir, const std::string& name) {
  const auto path = dir / name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("fill_filesystem: cannot create " + path.string());
  std::uint64_t size = 0;
  for (std::uint64_t piece = std::uint64_t{1} << 40; piece >= 4096;) {
    if (::fallocate(fd, 0, static_cast<off_t>(size), static_cast<off_t>(piece)) == 0) {
      size += piece;
    } else {
      piece /= 2;
    }
  }
  ::fsync(fd);
  ::close(fd);
  return size;
}

std::vector<std::string> snapshot_tree(const std::filesystem::path& dir, bool with_content) {
  std::vector<std::string> entries;
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const auto& entry = *it;
    const std::string rel = std::filesystem::relative(entry.path(), dir).string();
    if (!with_content) {
      entries.push_back(rel);
    } else if (entry.is_regular_file()) {
      const std::string content = read_file(entry.path());
      entries.push_back(rel + " " + std::to_string(content.size()) + " " +
                        std::to_string(std::hash<std::string>{}(content)));
    } else {
      entries.push_back(rel + "/");
    }
  }
  // A failing filesystem may not even list its directories: that is a difference too.
  if (ec) entries.push_back("<unreadable: " + ec.message() + ">");
  std::sort(entries.begin(), entries.end());
  return entries;
}

}  // namespace iobench::test
