#include "plugins/tiotest/tiotest_config.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <iobench/error.hpp>
#include <string>
#include <vector>

#include "plugins/tiotest/tiobench_sweep.hpp"
#include "tests/support/test_support.hpp"

namespace {

using iobench::ConfigError;
using iobench::plugins::tiotest::IoOptions;
using iobench::plugins::tiotest::PhaseKind;
using iobench::plugins::tiotest::PhaseMask;
using iobench::plugins::tiotest::RunPlan;
using iobench::plugins::tiotest::TargetProbe;

TargetProbe directory(const std::string& path) {
  TargetProbe probe;
  probe.path = path;
  probe.exists = true;
  probe.is_directory = true;
  return probe;
}

TargetProbe device(const std::string& path, std::uint64_t size_bytes) {
  TargetProbe probe;
  probe.path = path;
  probe.exists = true;
  probe.is_block_device = true;
  probe.size_bytes = size_bytes;
  return probe;
}

RunPlan plan(std::size_t threads, std::uint64_t block_size, std::uint64_t blocks,
             std::uint64_t random_ops) {
  RunPlan run;
  run.threads = threads;
  run.block_size = block_size;
  run.blocks = blocks;
  run.random_ops = random_ops;
  return run;
}

// The message validate_plan throws, or "" if it accepts.
std::string rejection(const RunPlan& run, const IoOptions& io,
                      const std::vector<TargetProbe>& targets) {
  try {
    iobench::plugins::tiotest::validate_plan(run, io, targets, "size");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tiotest skip list accepts tiotest numbers and names") {
  using iobench::plugins::tiotest::parse_skip_list;
  CHECK(parse_skip_list("", "skip") == PhaseMask{true, true, true, true});
  CHECK_THROWS_WITH(parse_skip_list("write,,read", "skip"),
                    Catch::StartsWith("skip 'write,,read': item 2 is empty"));
  CHECK(parse_skip_list("0", "skip") == PhaseMask{false, true, true, true});
  CHECK(parse_skip_list("1,3", "skip") == PhaseMask{true, false, true, false});
  CHECK(parse_skip_list("write random_read", "skip") == PhaseMask{false, true, true, false});
  CHECK(parse_skip_list("rwrite,rread,read", "skip") == PhaseMask{true, false, false, false});
  CHECK(parse_skip_list("random_write,2", "skip") == PhaseMask{true, false, false, true});
}

TEST_CASE("tiotest skip list rejects unknown phases naming the field") {
  using iobench::plugins::tiotest::parse_skip_list;
  CHECK_THROWS_WITH(parse_skip_list("4", "skip"),
                    Catch::Contains("skip: '4' is not a tiotest phase"));
  CHECK_THROWS_WITH(parse_skip_list("write,reed", "skip"), Catch::Contains("'reed'"));
}

TEST_CASE("tiotest validation table") {
  const std::vector<TargetProbe> one_dir{directory("/d")};
  const IoOptions plain;
  struct Case {
    const char* what;
    RunPlan run;
    IoOptions io;
    std::vector<TargetProbe> targets;
    const char* message;  // "" = accepted
  };
  IoOptions direct;
  direct.direct = true;
  IoOptions mmap_direct = direct;
  mmap_direct.mmap = true;
  IoOptions raw;
  raw.raw = true;
  IoOptions raw_write = raw;
  raw_write.raw_overwrite = true;
  IoOptions raw_gap = raw_write;
  raw_gap.raw_gap_bytes = 1 << 20;
  raw_gap.raw_offset_first = true;
  IoOptions gap_without_raw;
  gap_without_raw.raw_gap_bytes = 4096;
  IoOptions verify_raw = raw_write;
  verify_raw.verify = true;
  IoOptions mmap_raw = raw_write;
  mmap_raw.mmap = true;
  RunPlan read_only = plan(2, 4096, 256, 10);
  read_only.run_phase = {false, false, true, true};
  RunPlan none = plan(2, 4096, 256, 10);
  none.run_phase = {false, false, false, false};
  RunPlan no_random = plan(2, 4096, 256, 0);
  no_random.run_phase = {true, false, true, false};
  std::vector<TargetProbe> many;
  for (int i = 0; i < 51; ++i) many.push_back(directory("/d" + std::to_string(i)));
  TargetProbe missing;
  missing.path = "/nope";

  const std::vector<Case> cases{
      {"defaults", plan(4, 4096, 2560, 100000), plain, one_dir, ""},
      {"block larger than file", plan(4, 8192, 0, 100), plain, one_dir,
       "size: the file of each thread is smaller than one block of 8192 bytes"},
      {"random ops below 1", plan(4, 4096, 10, 0), plain, one_dir,
       "random_ops: random phases need at least 1 op per thread"},
      {"no random ops needed when random phases are skipped", no_random, plain, one_dir, ""},
      {"zero threads", plan(0, 4096, 10, 1), plain, one_dir, "threads: 0 is out of range"},
      {"files that add up past 2^63 bytes", plan(4, 1ULL << 30, 1ULL << 31, 1), plain, one_dir,
       "size: 2305843009213693952 bytes per thread x 4 threads is more than 2^63 bytes"},
      {"every phase skipped", none, plain, one_dir, "skip: every phase is skipped"},
      {"more targets than supported", plan(64, 4096, 10, 1), plain, many,
       "targets: 51 targets given but tiotest takes at most 50"},
      {"missing target", plan(1, 4096, 10, 1), plain, {missing}, "targets: '/nope' does not exist"},
      {"file target without raw",
       plan(1, 4096, 10, 1),
       plain,
       {device("/dev/x", 1 << 30)},
       "targets: '/dev/x' is not a directory"},
      {"directory target with raw", plan(1, 4096, 10, 1), raw_write, one_dir,
       "raw: target '/d' is not a block device or regular file"},
      {"O_DIRECT needs 512 multiples", plan(1, 1000, 10, 1), direct, one_dir,
       "block_size: 1000 is not a multiple of 512"},
      {"O_DIRECT with 4096", plan(1, 4096, 10, 1), direct, one_dir, ""},
      {"mmap with O_DIRECT", plan(1, 4096, 10, 1), mmap_direct, one_dir,
       "mmap: mapped I/O always goes through the page cache"},
      {"mmap with raw",
       plan(1, 4096, 10, 1),
       mmap_raw,
       {device("/dev/x", 1 << 30)},
       "mmap: mapped I/O works on files iobench creates"},
      {"raw write without consent",
       plan(1, 4096, 10, 1),
       raw,
       {device("/dev/x", 1 << 30)},
       "raw_overwrite: the write phases overwrite the raw targets' data"},
      {"raw read only needs no consent", read_only, raw, {device("/dev/x", 1 << 30)}, ""},
      {"raw write with consent",
       plan(2, 4096, 256, 10),
       raw_write,
       {device("/dev/x", 2 << 20)},
       ""},
      {"raw regions beyond the device",
       plan(3, 4096, 256, 10),
       raw_write,
       {device("/dev/x", 2 << 20)},
       "raw: thread 2 needs bytes up to 3145728 of '/dev/x' but it holds only 2097152 bytes"},
      {"raw gaps beyond the device",
       plan(2, 4096, 256, 10),
       raw_gap,
       {device("/dev/x", 3 << 20)},
       "raw: thread 1 needs bytes up to 4194304"},
      {"raw gaps on two devices fit",
       plan(2, 4096, 256, 10),
       raw_gap,
       {device("/dev/x", 2 << 20), device("/dev/y", 2 << 20)},
       ""},
      {"gap without raw", plan(1, 4096, 10, 1), gap_without_raw, one_dir,
       "raw_gap: region offsets apply to raw targets only"},
      {"consistency check on raw needs the write phase",
       read_only,
       verify_raw,
       {device("/dev/x", 1 << 30)},
       "consistency_check: on raw targets the check needs the write"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string message = rejection(c.run, c.io, c.targets);
    if (std::string(c.message).empty()) {
      CHECK(message.empty());
    } else {
      CHECK_THAT(message, Catch::StartsWith(c.message));
    }
  }
}

TEST_CASE("tiotest raw regions follow tiotest offsets round robin over targets") {
  using iobench::plugins::tiotest::raw_region_offset;
  RunPlan run = plan(5, 4096, 256, 1);  // 1 MiB per thread
  IoOptions io;
  io.raw = true;
  // Two targets: threads 0,2,4 on the first (ranks 0,1,2), threads 1,3 on the second.
  CHECK(raw_region_offset(run, io, 0, 2) == 0);
  CHECK(raw_region_offset(run, io, 1, 2) == 0);
  CHECK(raw_region_offset(run, io, 2, 2) == 1 << 20);
  CHECK(raw_region_offset(run, io, 3, 2) == 1 << 20);
  CHECK(raw_region_offset(run, io, 4, 2) == 2 << 20);
  io.raw_gap_bytes = 3 << 20;  // -o 3
  CHECK(raw_region_offset(run, io, 0, 2) == 0);
  CHECK(raw_region_offset(run, io, 2, 2) == 4 << 20);
  CHECK(raw_region_offset(run, io, 4, 2) == 8 << 20);
  io.raw_offset_first = true;  // -O
  CHECK(raw_region_offset(run, io, 0, 2) == 3 << 20);
  CHECK(raw_region_offset(run, io, 2, 2) == 7 << 20);
  io.raw = false;
  CHECK(raw_region_offset(run, io, 4, 2) == 0);
}

TEST_CASE("tiotest target probe tells directories files and missing paths apart") {
  iobench::test::TempDir dir("tiotest-probe");
  const auto file = dir.path() / "f";
  std::ofstream(file) << std::string(12345, 'x');
  const TargetProbe d = iobench::plugins::tiotest::probe_target(dir.path());
  CHECK(d.exists);
  CHECK(d.is_directory);
  const TargetProbe f = iobench::plugins::tiotest::probe_target(file);
  CHECK(f.is_regular_file);
  CHECK(f.size_bytes == 12345);
  CHECK_FALSE(iobench::plugins::tiotest::probe_target(dir.path() / "none").exists);
}

TEST_CASE("tiobench sweep runs in tiobench order with per thread sizes") {
  using iobench::plugins::tiotest::plan_sweep;
  iobench::plugins::tiotest::SweepSettings settings;
  settings.threads = {1, 3};
  settings.sizes_mb = {10, 2};
  settings.block_sizes = {4096, 65536};
  settings.random_ops_total = 4000;
  settings.repetitions = 2;
  const std::vector<RunPlan> runs = plan_sweep(settings);
  REQUIRE(runs.size() == 2 * 2 * 2 * 2);
  // size 10, bs 4096, threads 1, runs 1 and 2
  CHECK(runs[0].name_suffix == " size=10M bs=4096 threads=1 run=1");
  CHECK(runs[1].name_suffix == " size=10M bs=4096 threads=1 run=2");
  CHECK(runs[0].threads == 1);
  CHECK(runs[0].blocks == 10 * 256);
  CHECK(runs[0].random_ops == 4000);
  // threads 3: int(10/3) = 3 MiB each, int(4000/3) = 1333 random ops each
  CHECK(runs[2].name_suffix == " size=10M bs=4096 threads=3 run=1");
  CHECK(runs[2].blocks == 3 * 256);
  CHECK(runs[2].random_ops == 1333);
  CHECK(runs[4].name_suffix == " size=10M bs=65536 threads=1 run=1");
  CHECK(runs[4].blocks == 160);
  // size 2 with 3 threads: int(2/3) = 0 -> 1 MiB (tiobench.pl's minimum)
  CHECK(runs[10].name_suffix == " size=2M bs=4096 threads=3 run=1");
  CHECK(runs[10].blocks == 256);
  for (const RunPlan& run : runs) CHECK(run.run_phase == PhaseMask{true, true, true, true});
}

TEST_CASE("tiobench sweep rejects fewer random ops than threads") {
  iobench::plugins::tiotest::SweepSettings settings;
  settings.threads = {1, 8};
  settings.sizes_mb = {8};
  settings.random_ops_total = 7;
  CHECK_THROWS_WITH(iobench::plugins::tiotest::plan_sweep(settings),
                    Catch::StartsWith("random_ops: 7 random ops in total give none per thread "
                                      "with 8 threads"));
}

TEST_CASE("tiobench phase names round trip") {
  using iobench::plugins::tiotest::parse_sweep_phase_name;
  using iobench::plugins::tiotest::SweepPoint;
  const std::string name =
      std::string("Random Read") + iobench::plugins::tiotest::sweep_suffix({64, 8192, 4}, 3);
  CHECK(name == "Random Read size=64M bs=8192 threads=4 run=3");
  const auto parsed = parse_sweep_phase_name(name);
  REQUIRE(parsed);
  CHECK(parsed->kind == PhaseKind::kRandomRead);
  CHECK(parsed->point == SweepPoint{64, 8192, 4});
  CHECK(parsed->repetition == 3);
  CHECK(parse_sweep_phase_name("Write size=1M bs=512 threads=1 run=1")->kind == PhaseKind::kWrite);
  CHECK_FALSE(parse_sweep_phase_name("Random Read"));
  CHECK_FALSE(parse_sweep_phase_name("Prepare files size=1M bs=512 threads=1 run=1"));
  CHECK_FALSE(parse_sweep_phase_name("Read size=1M bs=512 threads=1"));
  CHECK_FALSE(parse_sweep_phase_name("Read size=1 bs=512 threads=1 run=1"));
  CHECK_FALSE(parse_sweep_phase_name("Read size=1M bs=512 threads=1 run=1 extra"));
}

TEST_CASE("tiobench list parameters parse and reject bad entries") {
  using iobench::plugins::tiotest::parse_count_list;
  using iobench::plugins::tiotest::whole_mib_list;
  CHECK(parse_count_list("1,2,4,8", "threads") == std::vector<std::uint64_t>{1, 2, 4, 8});
  CHECK(parse_count_list("1 2  16", "threads") == std::vector<std::uint64_t>{1, 2, 16});
  const std::vector<std::uint64_t> sizes{32ULL << 20, 1ULL << 30};
  CHECK(whole_mib_list(sizes, "sizes") == std::vector<std::uint64_t>{32, 1024});
  CHECK_THROWS_WITH(parse_count_list("", "threads"),
                    Catch::StartsWith("threads '': the list is empty"));
  // An empty item is refused, not dropped (tiobench then swept 1 and 2 threads).
  CHECK_THROWS_WITH(parse_count_list("1,,2", "threads"),
                    Catch::StartsWith("threads '1,,2': item 2 is empty"));
  CHECK_THROWS_WITH(parse_count_list("1,2,", "threads"),
                    Catch::StartsWith("threads '1,2,': item 3 is empty"));
  CHECK_THROWS_WITH(parse_count_list("1,0", "threads"),
                    Catch::StartsWith("threads: entries must be at least 1"));
  CHECK_THROWS_AS(parse_count_list("1,two", "threads"), ConfigError);
  const std::vector<std::uint64_t> bytes{32};
  CHECK_THROWS_WITH(whole_mib_list(bytes, "sizes"),
                    Catch::StartsWith("sizes: 32 bytes is not a whole number of MiB"));
}
