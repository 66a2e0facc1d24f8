#pragma once

// A loop device over a file, for the life of the object (root, losetup): the destructive disk
// and pts tests' block device. Without root or a free loop device, refused() says why (the
// test's skip message).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "tests/explain/loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace iobench::test {

class LoopDevice {
 public:
  /// Over a file of `image_bytes` (a whole number of MiB) filled with `fill`, or without one,
  /// sparse: it reads as zeros and nothing is written to make it.
  explicit LoopDevice(std::uint64_t image_bytes, std::optional<char> fill = std::nullopt) {
    if (::geteuid() != 0) {
      refused_ = "loop devices need root";
      return;
    }
    if (fill) {
      std::ofstream out(image(), std::ios::binary);
      const std::string chunk(1 << 20, *fill);
      for (std::uint64_t i = 0; i < image_bytes >> 20; ++i) out << chunk;
    } else {
      { std::ofstream create(image()); }
      std::filesystem::resize_file(image(), image_bytes);
    }
    if (FILE* out =
            ::popen(("losetup -f --show " + image().string() + " 2>/dev/null").c_str(), "r")) {
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
    settle_udev();
  }
  ~LoopDevice() {
    if (!device_.empty()) run_command("losetup -d " + device_);
  }
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;

  [[nodiscard]] const std::string& refused() const noexcept { return refused_; }
  /// "/dev/loopN"; empty when refused.
  [[nodiscard]] const std::string& device() const noexcept { return device_; }
  [[nodiscard]] std::filesystem::path image() const { return dir_.path() / "image"; }
  /// The loop device's stand-in serial: its backing file as sysfs reports it.
  [[nodiscard]] std::string serial() const {
    std::ifstream in("/sys/block/" + device_.substr(5) + "/loop/backing_file");
    std::string line;
    std::getline(in, line);
    return line;
  }

 private:
  TempDir dir_{"loopdev"};
  std::string device_;
  std::string refused_;
};

}  // namespace iobench::test
