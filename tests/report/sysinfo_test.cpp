#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/sysinfo.hpp>
#include <iobench/version.hpp>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "util/mountinfo.hpp"

namespace iobench {
namespace {

namespace fs = std::filesystem;

TEST_CASE("describe_target finds the filesystem of the build directory", "[report]") {
  const fs::path build_dir = IOBENCH_REPORT_BUILD_DIR;
  const TargetInfo info = describe_target(build_dir);
  CHECK(info.path == build_dir.string());
  CHECK_FALSE(info.fs_type.empty());
  CHECK_FALSE(info.mount_options.empty());
  REQUIRE_FALSE(info.mount_point.empty());
  CHECK(detail::mount_point_contains(info.mount_point, fs::canonical(build_dir).string()));
  CHECK(info.size_bytes > 0);
  CHECK(info.free_bytes <= info.size_bytes);
}

TEST_CASE("describe_target of a path not yet created uses its parent's mount", "[report]") {
  const fs::path build_dir = IOBENCH_REPORT_BUILD_DIR;
  const TargetInfo parent = describe_target(build_dir);
  const TargetInfo missing = describe_target(build_dir / "no-such-dir" / "deeper");
  CHECK(missing.fs_type == parent.fs_type);
  CHECK(missing.mount_point == parent.mount_point);
  CHECK(missing.device == parent.device);
  CHECK(missing.size_bytes == parent.size_bytes);
}

TEST_CASE("describe_target of proc reports the proc filesystem", "[report]") {
  const TargetInfo info = describe_target("/proc/self");
  CHECK(info.fs_type == "proc");
  CHECK(info.mount_point == "/proc");
}

TEST_CASE("describe_target of a mounted block device reports its filesystem", "[report]") {
  // Find a filesystem mounted from a block device on this machine.
  std::ifstream in("/proc/self/mountinfo");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const detail::MountEntry* mounted = nullptr;
  const auto mounts = detail::parse_mountinfo(text);
  for (const detail::MountEntry& entry : mounts) {
    struct stat st {};
    if (entry.source.empty() || ::stat(entry.source.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
      continue;
    }
    mounted = &entry;
  }
  if (mounted == nullptr) {
    WARN("no filesystem here is mounted from a block device; nothing to check");
    return;
  }
  INFO("device " << mounted->source << " mounted at " << mounted->mount_point);
  const TargetInfo info = describe_target(mounted->source);
  CHECK(info.device == fs::canonical(mounted->source).string());
  CHECK(info.fs_type == mounted->fs_type);
  CHECK_FALSE(info.mount_point.empty());
  struct stat st {};
  REQUIRE(::stat(mounted->source.c_str(), &st) == 0);
  std::ifstream sectors("/sys/dev/block/" + std::to_string(major(st.st_rdev)) + ":" +
                        std::to_string(minor(st.st_rdev)) + "/size");
  std::uint64_t count = 0;
  if (sectors >> count) {
    CHECK(info.size_bytes == count * 512);
  } else {
    WARN("no sysfs size for " << mounted->source << "; size_bytes is " << info.size_bytes);
  }
}

TEST_CASE("collect_environment describes this machine", "[report]") {
  const std::vector<fs::path> targets = {IOBENCH_REPORT_BUILD_DIR, "/proc"};
  const Environment env = collect_environment(targets);
  struct utsname names {};
  REQUIRE(::uname(&names) == 0);
  CHECK(env.hostname == names.nodename);
  CHECK(env.arch == names.machine);
  CHECK(env.kernel.find(names.release) != std::string::npos);
  CHECK(env.cpu_count == static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN)));
  CHECK(env.memory_bytes == physical_memory_bytes());
  CHECK(env.memory_bytes > 0);
  CHECK(env.iobench_version == IOBENCH_VERSION);
  CHECK(
      std::regex_match(env.start_time_utc, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")));
  REQUIRE(env.targets.size() == 2);
  CHECK(env.targets[0].path == std::string(IOBENCH_REPORT_BUILD_DIR));
  CHECK(env.targets[0].fs_type == describe_target(IOBENCH_REPORT_BUILD_DIR).fs_type);
  CHECK(env.targets[1].fs_type == "proc");
}

TEST_CASE("physical memory matches sysconf", "[report]") {
  const auto pages = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES));
  const auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  CHECK(physical_memory_bytes() == pages * page_size);
}

TEST_CASE("drop_page_cache works as root and explains itself otherwise", "[report]") {
  std::string why = "stale";
  const bool dropped = drop_page_cache(why);
  if (::geteuid() == 0) {
    CHECK(dropped);
    CHECK(why.empty());
  } else {
    CHECK_FALSE(dropped);
    CHECK(why.find("/proc/sys/vm/drop_caches") != std::string::npos);
  }
}

}  // namespace
}  // namespace iobench
