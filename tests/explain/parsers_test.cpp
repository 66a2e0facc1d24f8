// The explain parsers on files captured on a real machine (tests/data/explain: cat of the
// kernel's files, a 6.x kernel with PSI, cgroup v1 blkio and a cgroup2 hierarchy), and on
// malformed text.
#include <catch2/catch.hpp>
#include <fstream>
#include <iobench/explain.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "explain/text_fields.hpp"
#include "util/mountinfo.hpp"

namespace {

using namespace iobench::explain;

std::string captured(const std::string& name) {
  std::ifstream in(std::string(IOBENCH_EXPLAIN_DATA_DIR) + "/" + name);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("diskstats parses every device line with its 17 counters", "[explain][parser]") {
  const std::vector<DiskCounters> disks = parse_diskstats(captured("diskstats.txt"));
  REQUIRE(disks.size() == 10);
  const DiskCounters& vda = disks[8];
  CHECK(vda.name == "vda");
  CHECK(vda.major == 254);
  CHECK(vda.minor == 0);
  CHECK(vda.reads_completed == 786816);
  CHECK(vda.reads_merged == 290625);
  CHECK(vda.sectors_read == 105122338);
  CHECK(vda.read_time_ms == 569828);
  CHECK(vda.writes_completed == 1489074);
  CHECK(vda.sectors_written == 281363216);
  CHECK(vda.write_time_ms == 2713567);
  CHECK(vda.in_flight == 0);
  CHECK(vda.io_time_ms == 325892);
  CHECK(vda.weighted_io_time_ms == 3403256);
  CHECK(vda.discards_completed == 378394);
  CHECK(vda.sectors_discarded == 245262440);
  CHECK(vda.flushes_completed == 262496);
  CHECK(vda.flush_time_ms == 30563);
  CHECK(disks[0].name == "loop0");
  CHECK(disks[9].name == "zram0");
}

TEST_CASE("diskstats of an older kernel without discard and flush fields leaves them 0",
          "[explain][parser]") {
  const auto disks = parse_diskstats("   8       0 sda 10 1 80 5 20 2 160 7 0 9 12\n");
  REQUIRE(disks.size() == 1);
  CHECK(disks[0].sectors_written == 160);
  CHECK(disks[0].weighted_io_time_ms == 12);
  CHECK(disks[0].discards_completed == 0);
  CHECK(disks[0].flushes_completed == 0);
}

TEST_CASE("diskstats skips malformed lines and keeps the good ones", "[explain][parser]") {
  const auto disks = parse_diskstats(
      "8 0 sda 1 2 3\n"                                      // too few counters
      "8 x sdb 1 1 1 1 1 1 1 1 1 1 1\n"                      // minor not a number
      "8 16 sdc 1 1 1 1 1 1 1 1 1 1 99999999999999999999\n"  // over 64 bits
      "8 32 sdd -1 1 1 1 1 1 1 1 1 1 1\n"                    // negative
      "8 48 sde 1 2 3 4 5 6 7 8 9 10 11");                   // good, no newline at the end
  REQUIRE(disks.size() == 1);
  CHECK(disks[0].name == "sde");
  CHECK(disks[0].io_time_ms == 10);
}

TEST_CASE("vmstat parses name value lines", "[explain][parser]") {
  const auto vmstat = parse_vmstat(captured("vmstat.txt"));
  CHECK(vmstat.size() == 192);
  CHECK(vmstat.at("pgpgin") == 52897106);
  CHECK(vmstat.at("pgpgout") == 144092152);
  CHECK(vmstat.at("workingset_refault_file") == 342207);
  CHECK(vmstat.at("nr_dirty_threshold") == 1208232);
  CHECK(parse_vmstat("a 1 2\nb\nc -3\nd 4\n").size() == 1);
}

TEST_CASE("meminfo gives Dirty, Writeback and MemTotal in bytes", "[explain][parser]") {
  const MemInfo m = parse_meminfo(captured("meminfo.txt"));
  CHECK(m.valid);
  CHECK(m.dirty_bytes == 800592ULL * 1024);
  CHECK(m.writeback_bytes == 0);
  CHECK(m.mem_total_bytes == 24683772ULL * 1024);
  CHECK_FALSE(parse_meminfo("Dirty: 12 kB\n").valid);  // no Writeback line
  CHECK_FALSE(parse_meminfo("Dirty: 12 MB\nWriteback: 1 kB\n").valid);
  CHECK_FALSE(parse_meminfo("Dirty: 99999999999999999999 kB\nWriteback: 0 kB\n").valid);
}

TEST_CASE("meminfo_bytes gives a named line's figure in bytes: Buffers, Cached, not SwapCached",
          "[explain][parser]") {
  // What a page cache drop leaves (drop_page_cache_before()): the recorded file's figures.
  const std::string text = captured("meminfo.txt");
  CHECK(meminfo_bytes(text, "Buffers:") == std::optional<std::uint64_t>(55392ULL * 1024));
  CHECK(meminfo_bytes(text, "Cached:") == std::optional<std::uint64_t>(4121924ULL * 1024));
  CHECK(meminfo_bytes(text, "Dirty:") == std::optional<std::uint64_t>(800592ULL * 1024));
  // SwapCached is another line; a missing or malformed line gives no figure.
  CHECK_FALSE(meminfo_bytes("SwapCached:      100 kB\n", "Cached:").has_value());
  CHECK_FALSE(meminfo_bytes("Buffers: 7 MB\n", "Buffers:").has_value());
  CHECK_FALSE(meminfo_bytes("Buffers: 99999999999999999999 kB\n", "Buffers:").has_value());
  CHECK(meminfo_bytes("Buffers:           42908 kB\nCached: 0 kB", "Cached:") ==
        std::optional<std::uint64_t>(0));
}

TEST_CASE("PSI files give the some and full stall totals", "[explain][parser]") {
  const Pressure cpu_now = parse_pressure(captured("pressure_cpu.txt"));
  CHECK(cpu_now.valid);
  CHECK(cpu_now.some_total_us == 7438002213);
  CHECK(cpu_now.some_avg10 == Approx(93.23));
  CHECK(cpu_now.has_full);
  CHECK(cpu_now.full_total_us == 0);
  const Pressure io = parse_pressure(captured("pressure_io.txt"));
  CHECK(io.some_total_us == 167117323);
  CHECK(io.full_total_us == 37105377);
  CHECK(io.full_avg10 == Approx(0.0));
  const Pressure memory = parse_pressure(captured("pressure_memory.txt"));
  CHECK(memory.valid);
  CHECK(memory.some_total_us == 0);
  // Kernels before 5.13 have no "full" line in the cpu file.
  const Pressure cpu = parse_pressure("some avg10=1.00 avg60=0.50 avg300=0.10 total=42\n");
  CHECK(cpu.valid);
  CHECK_FALSE(cpu.has_full);
  CHECK(cpu.some_total_us == 42);
  CHECK_FALSE(parse_pressure("some avg10=x total=1\n").valid);
  CHECK_FALSE(parse_pressure("").valid);
}

TEST_CASE("proc self cgroup lists v1 controllers and the v2 hierarchy", "[explain][parser]") {
  const auto groups = parse_proc_cgroup(captured("cgroup.txt"));
  REQUIRE(groups.size() == 10);
  CHECK(groups[2].controllers == "blkio");
  CHECK(groups[2].path == "/");
  CHECK(groups[5].controllers == "memory");
  CHECK(groups[5].path == "/process_api/66753955eda8d71f3bb0e316b15e6181");
  CHECK(groups[9].controllers.empty());
  CHECK(groups[9].path == "/");
  CHECK(parse_proc_cgroup("x:blkio:/\n1:blkio\n2:cpu:relative\n").empty());
}

TEST_CASE("blkio throttle files give a limit per device", "[explain][parser]") {
  const auto write_bps = parse_blkio_throttle(captured("blkio_throttle_write_bps_device.txt"));
  REQUIRE(write_bps.size() == 2);
  CHECK(write_bps[0] == std::pair<std::string, std::uint64_t>{"7:0", 2097152});
  CHECK(write_bps[1] == std::pair<std::string, std::uint64_t>{"254:0", 1048576});
  const auto read_iops = parse_blkio_throttle(captured("blkio_throttle_read_iops_device.txt"));
  REQUIRE(read_iops.size() == 1);
  CHECK(read_iops[0].second == 300);
  CHECK(parse_blkio_throttle("7 1\n7:0\n7:0 x\n:1 5\n").empty());
}

TEST_CASE("io.max lines give the limits, max meaning none", "[explain][parser]") {
  // The kernel's format (Documentation/admin-guide/cgroup-v2.rst); this machine's cgroup2 has
  // no io controller, so the text is the documented one, not a capture.
  const auto limits = parse_io_max(
      "7:3 rbps=max wbps=1048576 riops=max wiops=200\n"
      "254:0 rbps=2097152 wbps=max riops=max wiops=max\n"
      "8:0 rbps=oops\n");
  REQUIRE(limits.size() == 2);
  CHECK(limits[0].device == "7:3");
  CHECK(limits[0].read_bytes_per_s == 0);
  CHECK(limits[0].write_bytes_per_s == 1048576);
  CHECK(limits[0].write_iops == 200);
  CHECK(limits[1].read_bytes_per_s == 2097152);
}

TEST_CASE("the captured mountinfo finds the root file system and the cgroup hierarchies",
          "[explain][parser]") {
  const auto mounts = iobench::detail::parse_mountinfo(captured("mountinfo.txt"));
  REQUIRE(mounts.size() == 20);
  const auto* root = iobench::detail::find_mount(mounts, "/work/wt/f");
  REQUIRE(root != nullptr);
  CHECK(root->fs_type == "ext4");
  CHECK(root->source == "/dev/vda");
  CHECK(root->device_number == "254:0");
  const auto* blkio = iobench::detail::find_mount(mounts, "/sys/fs/cgroup/blkio");
  REQUIRE(blkio != nullptr);
  CHECK(blkio->fs_type == "cgroup");
  CHECK(blkio->super_options == "rw,blkio");
  const auto* unified = iobench::detail::find_mount(mounts, "/sys/fs/cgroup/unified");
  REQUIRE(unified != nullptr);
  CHECK(unified->fs_type == "cgroup2");
}
