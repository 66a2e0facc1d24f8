// Snapshots, deltas and findings around real I/O on ext4 over a loop device: O_DIRECT writes
// reach the device byte for byte, buffered writes stay in the page cache, cached reads never
// reach the device, and a blkio-throttled cgroup is named with its limit.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iobench/explain.hpp>
#include <iterator>
#include <memory>
#include <vector>

#include "loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace {

using namespace iobench::explain;
namespace test = iobench::test;
constexpr std::size_t kBlock = 4096;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Writes (or reads) `bytes` in 4 KiB blocks from offset 0, opened with `flags`.
void block_io(const std::filesystem::path& path, int flags, std::uint64_t bytes, bool write) {
  Fd f{::open(path.c_str(), flags | O_CLOEXEC, 0644)};
  REQUIRE(f.fd >= 0);
  void* raw = nullptr;
  REQUIRE(::posix_memalign(&raw, kBlock, kBlock) == 0);
  const std::unique_ptr<void, decltype(&std::free)> buf(raw, &std::free);
  std::memset(raw, 0x5a, kBlock);
  for (std::uint64_t off = 0; off < bytes; off += kBlock) {
    const ssize_t n = write ? ::pwrite(f.fd, raw, kBlock, static_cast<off_t>(off))
                            : ::pread(f.fd, raw, kBlock, static_cast<off_t>(off));
    REQUIRE(n == static_cast<ssize_t>(kBlock));
  }
}

// A file of `bytes` on the loop fs, written and synced before the measured part, so overwrites
// change no block allocation.
std::filesystem::path laid_out(const test::LoopFs& loop, std::uint64_t bytes) {
  const auto path = loop.mount_point() / "file";
  block_io(path, O_WRONLY | O_CREAT, bytes, true);
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  REQUIRE(::fsync(f.fd) == 0);
  return path;
}

template <class Fn>
PhaseExplanation measured(const test::LoopFs& loop, const ApplicationFigures& app, Fn&& io) {
  std::vector<StorageChain> chains{describe_storage(loop.mount_point())};
  const std::vector<std::string> devices = chain_device_names(chains);
  const SystemSnapshot start = take_snapshot(devices);
  io();
  const SystemSnapshot end = take_snapshot(devices);
  return explain_phase(std::move(chains), start, end, app);
}

const Finding* finding(const PhaseExplanation& e, std::string_view name) {
  for (const Finding& f : e.findings) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const DeviceDelta& delta(const PhaseExplanation& e, const std::string& name) {
  for (const DeviceDelta& d : e.devices) {
    if (d.name == name) return d;
  }
  FAIL("no delta for " << name);
  return e.devices.front();
}

std::string all_findings(const PhaseExplanation& e) { return findings_text(e); }

// This process's cgroup v1 blkio path from /proc/self/cgroup ("/" for the root), "" if none.
std::string blkio_cgroup() {
  std::ifstream in("/proc/self/cgroup");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  for (const CgroupMembership& m : parse_proc_cgroup(text)) {
    std::string_view controllers = m.controllers;
    while (!controllers.empty()) {
      const std::size_t comma = controllers.find(',');
      if (controllers.substr(0, comma) == "blkio") return m.path;
      if (comma == std::string_view::npos) break;
      controllers.remove_prefix(comma + 1);
    }
  }
  return {};
}

// Why `bytes` more dirty pages would start background writeback (machine-wide Dirty plus
// Writeback within `bytes` of vmstat's nr_dirty_background_threshold), or "" if they would not.
std::string dirty_pressure(const SystemSnapshot& s, std::uint64_t bytes) {
  const auto it = s.vmstat.find("nr_dirty_background_threshold");
  if (it == s.vmstat.end() || !s.meminfo.valid) return {};
  const std::uint64_t background = it->second * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t dirty = s.meminfo.dirty_bytes + s.meminfo.writeback_bytes;
  if (dirty + bytes < background) return {};
  return "machine-wide Dirty " + std::to_string(s.meminfo.dirty_bytes) + " B + Writeback " +
         std::to_string(s.meminfo.writeback_bytes) + " B is within " + std::to_string(bytes) +
         " B of the background writeback threshold " + std::to_string(background) + " B";
}

}  // namespace

TEST_CASE("O_DIRECT 4 KiB writes on a loop fs reach the device byte for byte",
          "[explain][kernel]") {
  const test::LoopFs loop(32 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  constexpr std::uint64_t kBytes = 4 * test::kMiB;
  const auto path = laid_out(loop, kBytes);
  const PhaseExplanation e = measured(loop, {.write_bytes = kBytes},
                                      [&] { block_io(path, O_WRONLY | O_DIRECT, kBytes, true); });
  INFO(all_findings(e));
  const DeviceDelta& d = delta(e, loop.name());
  CHECK(d.write_bytes >= kBytes);
  CHECK(d.write_bytes <= kBytes + kBytes / 100);
  CHECK(d.writes >= 1);
  CHECK(e.device_write_bytes == d.write_bytes);
  REQUIRE(e.write_amplification.has_value());
  CHECK(*e.write_amplification == Approx(1.0).epsilon(0.01));
  REQUIRE(finding(e, "writes_reached_device") != nullptr);
  // Within 1 %: the file system may add a block of its own (the inode's times).
  CHECK_THAT(finding(e, "writes_reached_device")->text,
             Catch::StartsWith("the device wrote what the application wrote: 4.0") &&
                 Catch::Contains(" MiB for 4.00 MiB (x1.00"));
  CHECK(d.targets == std::vector<std::size_t>{0});

  // Read back with O_DIRECT: every byte comes from the device.
  const PhaseExplanation r = measured(loop, {.read_bytes = kBytes},
                                      [&] { block_io(path, O_RDONLY | O_DIRECT, kBytes, false); });
  INFO(all_findings(r));
  CHECK(delta(r, loop.name()).read_bytes == kBytes);
  REQUIRE(r.page_cache_read_percent.has_value());
  CHECK(*r.page_cache_read_percent == Approx(0.0).margin(1e-9));
  CHECK(finding(r, "device_reads") != nullptr);
}

TEST_CASE("buffered writes without fsync are absorbed by the page cache and reads come from it",
          "[explain][kernel]") {
  const test::LoopFs loop(32 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  constexpr std::uint64_t kBytes = 8 * test::kMiB;
  const auto path = loop.mount_point() / "buffered";
  // Dirty is machine-wide: once it passes the background threshold the flusher starts writeback
  // at once, of these pages too. Other processes' dirty pages are no failure of the figures.
  const std::string pressure = dirty_pressure(take_snapshot({}), kBytes);
  if (!pressure.empty()) {
    WARN("skipped: " << pressure);
    return;
  }
  const PhaseExplanation w = measured(loop, {.write_bytes = kBytes},
                                      [&] { block_io(path, O_WRONLY | O_CREAT, kBytes, true); });
  INFO(all_findings(w));
  if (w.device_write_bytes >= kBytes / 2) {
    const std::string late = dirty_pressure(take_snapshot({}), kBytes);
    if (!late.empty()) {
      WARN("skipped: writeback started during the writes: " << late);
      return;
    }
  }
  CHECK(w.device_write_bytes < kBytes / 2);
  REQUIRE(finding(w, "writes_absorbed_by_page_cache") != nullptr);
  CHECK_THAT(finding(w, "writes_absorbed_by_page_cache")->text,
             Catch::StartsWith("writes were absorbed by the page cache: the application wrote "
                               "8.00 MiB, the device wrote") &&
                 Catch::Contains("Dirty went from"));
  CHECK(w.meminfo_end.valid);

  // The pages just written are cached: reading them back does not touch the device.
  const PhaseExplanation r =
      measured(loop, {.read_bytes = kBytes}, [&] { block_io(path, O_RDONLY, kBytes, false); });
  INFO(all_findings(r));
  CHECK(delta(r, loop.name()).read_bytes == 0);
  REQUIRE(finding(r, "page_cache_reads") != nullptr);
  CHECK_THAT(finding(r, "page_cache_reads")->text,
             Catch::Equals("100.0 % of reads came from the page cache, the device read 0 B of "
                           "the application's 8.00 MiB"));
}

TEST_CASE("writes in a blkio-throttled cgroup are named as throttled with the limit",
          "[explain][kernel]") {
  const test::LoopFs loop(16 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const std::string root = "/sys/fs/cgroup/blkio";
  // The cgroup the test started in, to go back to: not the root (a CI job runs in its own).
  const std::string started_in = blkio_cgroup();
  if (started_in.empty()) {
    WARN("skipped: /proc/self/cgroup has no cgroup v1 blkio line");
    return;
  }
  const std::string group = root + "/iobench-explain-" + std::to_string(::getpid());
  if (::access((root + "/blkio.throttle.write_bps_device").c_str(), W_OK) != 0 ||
      ::mkdir(group.c_str(), 0755) != 0) {
    WARN("skipped: no writable cgroup v1 blkio hierarchy at " << root);
    return;
  }
  constexpr std::uint64_t kBytes = 2 * test::kMiB;
  const auto path = laid_out(loop, kBytes);
  const auto write_to = [](const std::string& file, const std::string& text) {
    std::ofstream out(file);
    out << text << '\n';
    out.flush();
    return static_cast<bool>(out);
  };
  const bool limited =
      write_to(group + "/blkio.throttle.write_bps_device", loop.device_number() + " 1048576") &&
      write_to(group + "/cgroup.procs", std::to_string(::getpid()));
  PhaseExplanation e;
  if (limited) {
    e = measured(loop, {.write_bytes = kBytes},
                 [&] { block_io(path, O_WRONLY | O_DIRECT, kBytes, true); });
  }
  const std::string back = (started_in == "/" ? root : root + started_in) + "/cgroup.procs";
  CHECK(write_to(back, std::to_string(::getpid())));
  ::rmdir(group.c_str());
  CHECK(blkio_cgroup() == started_in);
  if (!limited) {
    WARN("skipped: the kernel refused the blkio limit or moving the test into " << group);
    return;
  }
  INFO(all_findings(e));
  REQUIRE(e.chains.size() == 1);
  REQUIRE(e.chains[0].limits.size() == 1);
  const CgroupIoLimit& limit = e.chains[0].limits[0];
  CHECK(limit.source == "blkio.throttle");
  CHECK(limit.cgroup == group);
  CHECK(limit.device == loop.device_number());
  CHECK(limit.write_bytes_per_s == 1048576);
  REQUIRE(finding(e, "cgroup_throttled") != nullptr);
  CHECK_THAT(finding(e, "cgroup_throttled")->text,
             Catch::StartsWith("the limit came from blkio throttling on this cgroup (" + group +
                               "): writes to " + loop.name() + " capped at 1.00 MiB/s"));
}
