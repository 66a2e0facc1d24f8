#pragma once

// I/O throttles for the tests that need a device of known speed: a read IOPS ceiling on a
// process's own I/O (a cgroup of its own), and a write bandwidth ceiling on a device's writeback
// with a small dirty-page limit on it (a page cache that fills, then runs at the device's speed).
// Both are undone when the object goes; where the kernel refuses them, refused() says why (the
// test's skip message). Root only.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iobench/explain.hpp>
#include <iterator>
#include <optional>
#include <string>

namespace iobench::test {

inline bool write_to(const std::string& file, const std::string& text) {
  std::ofstream out(file);
  out << text << '\n';
  out.flush();
  return static_cast<bool>(out);
}

inline std::string read_text(const std::string& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// This process's cgroup path in the hierarchy with `controller` ("" for cgroup v2), or nullopt.
inline std::optional<std::string> cgroup_of(const std::string& controller) {
  for (const explain::CgroupMembership& m :
       explain::parse_proc_cgroup(read_text("/proc/self/cgroup"))) {
    if (controller.empty()
            ? m.controllers.empty()
            : ("," + m.controllers + ",").find("," + controller + ",") != std::string::npos) {
      return m.path;
    }
  }
  return std::nullopt;
}

// This process, moved into a fresh cgroup whose read IOPS on `device` ("MAJ:MIN") are limited to
// `riops` for the life of the object, then moved back to the cgroup it started in.
class ReadIopsCeiling {
 public:
  ReadIopsCeiling(const std::string& device, double riops) {
    const std::string limit = std::to_string(static_cast<long long>(riops));
    if (::access("/sys/fs/cgroup/cgroup.controllers", R_OK) == 0 &&
        read_text("/sys/fs/cgroup/cgroup.controllers").find("io") != std::string::npos) {
      setup("/sys/fs/cgroup", "", "io.max", device + " riops=" + limit);
    } else if (::access("/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device", W_OK) == 0) {
      setup("/sys/fs/cgroup/blkio", "blkio", "blkio.throttle.read_iops_device",
            device + " " + limit);
    } else {
      refused_ =
          "neither cgroup v2 io.max (/sys/fs/cgroup/cgroup.controllers without \"io\") nor a "
          "writable cgroup v1 blkio hierarchy (/sys/fs/cgroup/blkio)";
    }
  }
  ~ReadIopsCeiling() {
    if (!moved_) {
      if (!group_.empty()) ::rmdir(group_.c_str());
      return;
    }
    const std::string back = (started_in_ == "/" ? root_ : root_ + started_in_) + "/cgroup.procs";
    write_to(back, std::to_string(::getpid()));
    ::rmdir(group_.c_str());
  }
  ReadIopsCeiling(const ReadIopsCeiling&) = delete;
  ReadIopsCeiling& operator=(const ReadIopsCeiling&) = delete;
  [[nodiscard]] const std::string& refused() const noexcept { return refused_; }

 private:
  void setup(const std::string& root, const std::string& controller, const std::string& file,
             const std::string& limit) {
    root_ = root;
    const std::optional<std::string> started_in = cgroup_of(controller);
    if (!started_in) {
      refused_ = "/proc/self/cgroup has no line for " + root;
      return;
    }
    started_in_ = *started_in;
    if (controller.empty()) write_to(root + "/cgroup.subtree_control", "+io");
    group_ = root + "/iobench-throttle-" + std::to_string(::getpid());
    if (::mkdir(group_.c_str(), 0755) != 0) {
      refused_ = "mkdir " + group_ + " refused";
      group_.clear();
      return;
    }
    if (!write_to(group_ + "/" + file, limit)) {
      refused_ = "the kernel refused '" + limit + "' in " + group_ + "/" + file;
      return;
    }
    moved_ = write_to(group_ + "/cgroup.procs", std::to_string(::getpid()));
    if (!moved_) refused_ = "moving the test into " + group_ + " was refused";
  }

  std::string root_;
  std::string started_in_;
  std::string group_;
  bool moved_ = false;
  std::string refused_;
};

// Writes to the block device `device` ("MAJ:MIN") limited to `write_bps` bytes per second, and
// its dirty pages to about `dirty_bytes` (the device's bdi: strict_limit, max_bytes), for the
// life of the object. The write limit is set on the cgroup v1 blkio root: writeback is issued by
// the kernel's flusher threads, which run there, so a limit on the test's own cgroup would not
// reach it. cgroup v2 charges writeback to the dirtying cgroup only with the memory controller
// enabled below the root: not set up here, refused.
class WritebackThrottle {
 public:
  WritebackThrottle(const std::string& device, std::uint64_t write_bps, std::uint64_t dirty_bytes)
      : device_(device), bdi_("/sys/class/bdi/" + device) {
    if (::access(kRootLimit, W_OK) != 0) {
      refused_ = std::string("no writable cgroup v1 blkio root (") + kRootLimit + ")";
      return;
    }
    if (::access((bdi_ + "/strict_limit").c_str(), W_OK) != 0 ||
        ::access((bdi_ + "/max_bytes").c_str(), W_OK) != 0) {
      refused_ = bdi_ + " has no writable strict_limit and max_bytes (Linux 6.2 or later)";
      return;
    }
    // Without the newline sysfs printed: the kernel's parser takes one, write_to() adds it.
    old_strict_ = trimmed(read_text(bdi_ + "/strict_limit"));
    old_max_ratio_fine_ = trimmed(read_text(bdi_ + "/max_ratio_fine"));
    if (!write_to(kRootLimit, device + " " + std::to_string(write_bps))) {
      refused_ =
          "the kernel refused '" + device + " " + std::to_string(write_bps) + "' in " + kRootLimit;
      return;
    }
    limited_ = true;
    bdi_set_ = true;
    if (!write_to(bdi_ + "/strict_limit", "1") ||
        !write_to(bdi_ + "/max_bytes", std::to_string(dirty_bytes))) {
      refused_ = "the kernel refused strict_limit=1 or max_bytes=" + std::to_string(dirty_bytes) +
                 " in " + bdi_;
    }
  }
  ~WritebackThrottle() {
    // The limit goes first: what is still dirty then reaches the device at its own speed.
    lift();
    if (bdi_set_) {
      // A loop device's bdi outlives losetup -d: leave it as it was for the next user.
      const std::string ratio = old_max_ratio_fine_.empty() ? "1000000" : old_max_ratio_fine_;
      const std::string strict = old_strict_.empty() ? "0" : old_strict_;
      if (!write_to(bdi_ + "/max_ratio_fine", ratio) || !write_to(bdi_ + "/strict_limit", strict))
        std::fprintf(stderr, "could not restore %s: max_ratio_fine=%s strict_limit=%s\n",
                     bdi_.c_str(), ratio.c_str(), strict.c_str());
    }
  }
  /// Ends the write limit now (the dirty limit stays): the writeback queued behind it goes at
  /// the device's own speed. Deleting a file waits for its pages under writeback, tens of MiB
  /// at the limited rate would take many seconds.
  void lift() {
    if (limited_) write_to(kRootLimit, device_ + " 0");
    limited_ = false;
  }
  WritebackThrottle(const WritebackThrottle&) = delete;
  WritebackThrottle& operator=(const WritebackThrottle&) = delete;
  [[nodiscard]] const std::string& refused() const noexcept { return refused_; }

 private:
  static std::string trimmed(std::string text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
  }
  static constexpr const char* kRootLimit = "/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device";
  std::string device_;
  std::string bdi_;
  std::string old_strict_;
  std::string old_max_ratio_fine_;
  bool limited_ = false;
  bool bdi_set_ = false;
  std::string refused_;
};

}  // namespace iobench::test
