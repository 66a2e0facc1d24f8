// The derived figures and rules on given counters (iostat's formulas), and a real run through
// the runner: the phase carries its explanation, the JSON keeps it (and reads it back), the
// text prints its findings.
#include "report/explain_json.hpp"

#include <catch2/catch.hpp>
#include <iobench/explain.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explain/phase_observer.hpp"
#include "tests/support/test_support.hpp"

namespace {

using namespace iobench;
using namespace iobench::explain;

DiskCounters disk(std::string name, std::uint64_t scale) {
  DiskCounters d;
  d.name = std::move(name);
  d.reads_completed = 100 * scale;
  d.sectors_read = 800 * scale;
  d.read_time_ms = 50 * scale;
  d.writes_completed = 200 * scale;
  d.sectors_written = 4096 * scale;
  d.write_time_ms = 300 * scale;
  d.io_time_ms = 990 * scale;
  d.weighted_io_time_ms = 4000 * scale;
  return d;
}

bool has(const PhaseExplanation& e, std::string_view name) {
  for (const Finding& f : e.findings) {
    if (f.name == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("device deltas follow iostat's formulas and fire the saturation and cpu rules",
          "[explain][rules]") {
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  StorageChain b = a;
  b.path = "/b";
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 2'000'000'000;  // 1 s
  start.disks = {disk("sdz", 1)};
  end.disks = {disk("sdz", 2)};
  end.disks[0].in_flight = 3;
  start.vmstat = {
      {"pgpgout", 10}, {"pgsteal_kswapd", 1}, {"pgsteal_direct", 2}, {"pgsteal_anon", 9}};
  end.vmstat = {
      {"pgpgout", 30}, {"pgsteal_kswapd", 5}, {"pgsteal_direct", 4}, {"pgsteal_anon", 90}};
  const PhaseExplanation e = explain_phase({a, b}, start, end,
                                           {.read_bytes = 400 * 512,
                                            .write_bytes = 1024 * 1024,
                                            .workers_cpu_percent = 196,
                                            .workers = 2});
  REQUIRE(e.devices.size() == 1);
  const DeviceDelta& d = e.devices[0];
  CHECK(d.reads == 100);
  CHECK(d.read_bytes == 800 * 512);
  CHECK(d.write_bytes == 4096 * 512);
  CHECK(d.in_flight_end == 3);
  CHECK(d.util_percent == Approx(99.0));
  CHECK(d.avg_queue_size == Approx(4.0));
  CHECK(d.r_await_ms == Approx(0.5));
  CHECK(d.w_await_ms == Approx(1.5));
  CHECK(d.targets == std::vector<std::size_t>{0, 1});
  CHECK(e.shared_device);
  CHECK(e.device_write_bytes == 4096 * 512);  // counted once for the two targets
  CHECK(*e.write_amplification == Approx(2.0));
  CHECK(*e.read_amplification == Approx(2.0));
  // Counters absent from both snapshots are left out; pgsteal sums kswapd + direct only (the
  // anon/file counters split the same pages again).
  using Delta = std::vector<std::pair<std::string, std::int64_t>>;
  CHECK(e.vmstat_delta ==
        Delta{{"pgpgout", 20}, {"pgsteal", 6}, {"pgscan", 0}, {"workingset_refault", 0}});
  CHECK(has(e, "device_saturated"));
  CHECK(has(e, "cpu_bound"));
  CHECK(has(e, "shared_device"));
  CHECK(has(e, "write_amplification"));
  CHECK_FALSE(has(e, "page_cache_reads"));  // under 1 MiB of reads: no read rule
  CHECK_THAT(findings_text(e),
             Catch::Contains("explain: device_saturated: device saturated: sdz util 99 %, queue "
                             "4.0, r_await 0.50 ms, w_await 1.50 ms\n"));
}

TEST_CASE("a run on tmpfs carries its explanation into the JSON and the text",
          "[explain][runner]") {
  const test::ScopedTmpfs tmpfs("8m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  const RunResult run =
      Runner(registry, RunOptions{.skip_space_check = true})
          .run(std::vector<Step>{Step{.workload = "disk",
                                      .params = {{"operation", "write"}, {"size", "1m"}},
                                      .targets = {tmpfs.path()}}},
               reporter);
  REQUIRE(run.steps.size() == 1);
  REQUIRE_FALSE(run.steps[0].phases.empty());
  const PhaseResult& phase = run.steps[0].phases[0];
  REQUIRE(phase.explanation.has_value());
  const PhaseExplanation& e = *phase.explanation;
  REQUIRE(e.chains.size() == 1);
  CHECK(e.chains[0].fs_type == "tmpfs");
  CHECK(e.devices.empty());
  CHECK(e.application.write_bytes == phase.total_bytes());
  // The disk workload's planned file (size=1m, one target, one job), for "fits in RAM".
  CHECK(e.application.largest_file_bytes == 1024 * 1024);
  REQUIRE_FALSE(e.findings.empty());
  CHECK(e.findings[0].name == "no_block_device");
  CHECK(e.findings[0].text ==
        tmpfs.path().string() + " is on tmpfs: no block device: page cache only");

  ResultDocument doc;
  doc.run = run;
  const std::string json = to_json(doc);
  const auto j = nlohmann::json::parse(json);
  CHECK(j["schema"] == "iobench-result/3");
  const auto& ej = j["steps"][0]["phases"][0]["explain"];
  CHECK(ej["storage"][0]["no_block_device"] == "tmpfs: no block device: page cache only");
  CHECK(ej["findings"][0]["name"] == "no_block_device");
  CHECK(ej["application"]["write_bytes"] == phase.total_bytes());
  // Read back, it writes the same document again.
  CHECK(to_json(parse_result_json(json)) == json);

  std::ostringstream text;
  report_run(run, *make_text_reporter(text, registry));
  CHECK_THAT(text.str(), Catch::Contains("phase " + phase.name + ":\n  explain: no_block_device: " +
                                         tmpfs.path().string() + " is on tmpfs"));
}

TEST_CASE("an explain object with a wrong type is refused with its pointer", "[explain][json]") {
  const test::ScopedTmpfs tmpfs("8m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  ResultDocument doc;
  doc.run = Runner(registry, RunOptions{.skip_space_check = true})
                .run(std::vector<Step>{Step{
                         .workload = "disk",
                         .params = {{"operation", "write"}, {"size", "64k"}, {"bs", "4k"}},
                         .targets = {tmpfs.path()}}},
                     reporter);
  auto j = nlohmann::ordered_json::parse(to_json(doc));
  j["steps"][0]["phases"][0]["explain"]["derived"]["device_write_bytes"] = "x";
  try {
    (void)parse_result_json(j.dump());
    FAIL("accepted");
  } catch (const ResultFormatError& error) {
    CHECK(std::string(error.what()) ==
          "/steps/0/phases/0/explain/derived/device_write_bytes: must be a whole number of 0 or "
          "more");
  }
  // A schema-2 document (no explain) is still read.
  j["schema"] = "iobench-result/2";
  j["steps"][0]["phases"][0].erase("explain");
  CHECK_FALSE(parse_result_json(j.dump()).run.steps[0].phases[0].explanation.has_value());
}

TEST_CASE("diskstats ms fields wrap at 2^32 and are taken modulo 2^32 as sysstat does",
          "[explain][rules]") {
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 3'000'000'000;  // 2 s
  start.disks = {disk("sdz", 1)};
  end.disks = {disk("sdz", 2)};
  // The kernel printed 4294967000 ms before and 704 after the wrap: 1000 ms passed.
  start.disks[0].io_time_ms = 4'294'967'000;
  end.disks[0].io_time_ms = 704;
  start.disks[0].write_time_ms = 4'294'967'295;
  end.disks[0].write_time_ms = 399;  // 400 ms
  start.disks[0].weighted_io_time_ms = 4'294'966'296;
  end.disks[0].weighted_io_time_ms = 3000;  // 4000 ms
  const PhaseExplanation e = explain_phase({a}, start, end, {.write_bytes = 4096 * 512});
  REQUIRE(e.devices.size() == 1);
  const DeviceDelta& d = e.devices[0];
  CHECK(d.valid);
  CHECK(d.io_time_ms == 1000);
  CHECK(d.write_time_ms == 400);
  CHECK(d.weighted_io_time_ms == 4000);
  CHECK(d.util_percent == Approx(50.0));
  CHECK(d.avg_queue_size == Approx(2.0));
  CHECK(d.w_await_ms == Approx(2.0));
}

TEST_CASE("a device whose counts went back has an invalid delta and no ratio is derived",
          "[explain][rules]") {
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  StorageChain b{.path = "/b", .fs_type = "ext4"};
  b.devices.push_back({.name = "sdy", .device = "8:16", .role = "filesystem"});
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 2'000'000'000;
  start.disks = {disk("sdz", 1), disk("sdy", 3)};
  end.disks = {disk("sdz", 2), disk("sdy", 1)};  // sdy re-created: its counts went back
  end.disks[1].sectors_written = 8192 * 3;       // one count grew, the others went back
  const ApplicationFigures app{.read_bytes = 4 << 20, .write_bytes = 4 << 20};
  const PhaseExplanation e = explain_phase({a, b}, start, end, app);
  REQUIRE(e.devices.size() == 2);
  CHECK(e.devices[0].valid);
  CHECK(e.devices[0].write_bytes == 4096 * 512);
  CHECK_FALSE(e.devices[1].valid);
  CHECK(e.devices[1].write_bytes == 0);
  CHECK(e.devices[1].io_time_ms == 0);
  CHECK(e.devices[1].util_percent == 0);
  CHECK_FALSE(e.write_amplification);
  CHECK_FALSE(e.read_amplification);
  CHECK_FALSE(e.page_cache_read_percent);
  CHECK_FALSE(has(e, "writes_absorbed_by_page_cache"));
  CHECK_FALSE(has(e, "device_reads"));
  // A device missing from the closing snapshot (removed) leaves no ratio either.
  end.disks.pop_back();
  const PhaseExplanation missing = explain_phase({a, b}, start, end, app);
  CHECK_FALSE(missing.write_amplification);
  CHECK_FALSE(has(missing, "writes_absorbed_by_page_cache"));
  // With both deltas there are ratios: (4096 + 4096) * 512 B written for 4 MiB.
  end.disks.push_back(disk("sdy", 4));
  const PhaseExplanation both = explain_phase({a, b}, start, end, app);
  REQUIRE(both.write_amplification);
  CHECK(*both.write_amplification == Approx(4096.0 * 512 * 2 / (4 << 20)));
}

namespace {

// One target on sdz, 8 MiB written by the application, `device_sectors` written by the device.
PhaseExplanation written(std::uint64_t device_sectors, std::uint64_t interval_ns = 2'000'000'000) {
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = start.time_ns + interval_ns;
  start.disks = {disk("sdz", 1)};
  end.disks = {disk("sdz", 1)};
  end.disks[0].sectors_written += device_sectors;
  return explain_phase({a}, start, end, {.write_bytes = 8 << 20});
}

std::vector<std::string> names(const PhaseExplanation& e) {
  std::vector<std::string> out;
  for (const Finding& f : e.findings) out.push_back(f.name);
  return out;
}

}  // namespace

TEST_CASE("write bands: absorbed, partly written back, reached, amplified without a gap",
          "[explain][rules]") {
  using Names = std::vector<std::string>;
  constexpr std::uint64_t kApp = (8 << 20) / 512;  // the application's 8 MiB in sectors
  CHECK(names(written(kApp * 4 / 10)) == Names{"writes_absorbed_by_page_cache"});
  const PhaseExplanation partly = written(kApp * 6 / 10);
  CHECK(names(partly) == Names{"writes_partly_reached_device"});
  CHECK_THAT(partly.findings[0].text, Catch::Contains("x0.600"));
  CHECK(names(written(kApp)) == Names{"writes_reached_device"});
  CHECK(names(written(kApp * 1005 / 1000)) == Names{"writes_reached_device"});
  CHECK(names(written(kApp * 105 / 100)) == Names{"write_amplification"});
  CHECK(names(written(kApp * 2)) == Names{"write_amplification"});
}

TEST_CASE("dirty_throttled replaces writes_absorbed_by_page_cache at the dirty limit",
          "[explain][rules]") {
  PhaseExplanation e = written((8 << 20) / 512 / 10);
  e.meminfo_end = {.valid = true, .dirty_bytes = 95 << 20, .writeback_bytes = 1 << 20};
  e.meminfo_start = {.valid = true};
  e.dirty_threshold_bytes = 100 << 20;
  add_findings(e);
  CHECK(names(e) == std::vector<std::string>{"dirty_throttled"});
  CHECK_THAT(e.findings[0].text,
             Catch::Contains("(the application wrote 8.00 MiB, the device wrote 819 KiB)"));
}

TEST_CASE("device_saturated only on a file system's device over 1 s with 1 MiB of I/O",
          "[explain][rules]") {
  // disk(...) deltas: 990 ms of io_ticks; over 1 s that is 99 % util.
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  a.devices.push_back({.name = "sdy", .device = "8:16", .role = "loop backing"});
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 2'000'000'000;
  start.disks = {disk("sdz", 1), disk("sdy", 1)};
  end.disks = {disk("sdz", 1), disk("sdy", 2)};  // only the lower device was busy
  CHECK_FALSE(has(explain_phase({a}, start, end, {.write_bytes = 8 << 20}), "device_saturated"));
  end.disks = {disk("sdz", 2), disk("sdy", 1)};
  CHECK(has(explain_phase({a}, start, end, {.write_bytes = 8 << 20}), "device_saturated"));
  CHECK_FALSE(has(explain_phase({a}, start, end, {.write_bytes = 4096}), "device_saturated"));
  end.time_ns = 1'500'000'000;  // 0.5 s: util 100 % of a short phase
  CHECK_FALSE(has(explain_phase({a}, start, end, {.write_bytes = 8 << 20}), "device_saturated"));
}

TEST_CASE("cgroup_throttled is named once per cgroup and device", "[explain][rules]") {
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  a.limits.push_back({.cgroup = "/sys/fs/cgroup/blkio/t",
                      .source = "blkio.throttle",
                      .device = "8:0",
                      .write_bytes_per_s = 1 << 20});
  StorageChain b = a;
  b.path = "/b";
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 2'000'000'000;
  start.disks = {disk("sdz", 1)};
  end.disks = {disk("sdz", 1)};
  end.disks[0].sectors_written += 2048;  // 1 MiB in 1 s: at the cap
  const PhaseExplanation e = explain_phase({a, b}, start, end, {.write_bytes = 1 << 20});
  const std::vector<std::string> fired = names(e);
  CHECK(std::count(fired.begin(), fired.end(), "cgroup_throttled") == 1);
}

namespace {

// A phase of the given op kinds, each having moved the given bytes.
PhaseResult phase_moving(std::string name, std::vector<std::string> op_names,
                         const std::vector<std::uint64_t>& bytes) {
  PhaseResult phase;
  phase.name = std::move(name);
  phase.op_names = std::move(op_names);
  phase.ops.resize(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) phase.ops[i].bytes = bytes[i];
  return phase;
}

}  // namespace

TEST_CASE("application bytes count dbench ReadX WriteX and bonnie rewrite and chunk ops",
          "[explain][rules]") {
  ApplicationFigures app = explain::application_figures(
      phase_moving("execute", {"NTCreateX", "WriteX", "ReadX", "Flush"}, {7, 3000, 5000, 11}));
  CHECK(app.read_bytes == 5000);
  CHECK(app.write_bytes == 3000);
  app = explain::application_figures(phase_moving("rewrite", {"rewrite"}, {8192}));
  CHECK(app.read_bytes == 8192);
  CHECK(app.write_bytes == 8192);
  app = explain::application_figures(phase_moving("putc", {"chunk"}, {4096}));
  CHECK(app.read_bytes == 0);
  CHECK(app.write_bytes == 4096);
  app = explain::application_figures(phase_moving("getc", {"chunk"}, {4096}));
  CHECK(app.read_bytes == 4096);
  CHECK(app.write_bytes == 0);
  app = explain::application_figures(
      phase_moving("main", {"read", "write", "fsync", "trim"}, {100, 100, 100, 100}));
  CHECK(app.read_bytes == 100);
  CHECK(app.write_bytes == 100);
}

TEST_CASE("ratios count only the application bytes of targets with a device chain",
          "[explain][rules]") {
  StorageChain disk_target{.path = "/a", .fs_type = "ext4"};
  disk_target.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  StorageChain tmpfs_target{.path = "/b", .fs_type = "tmpfs"};
  tmpfs_target.no_block_device = "tmpfs: no block device: page cache only";
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 3'000'000'000;
  start.disks = {disk("sdz", 1)};
  end.disks = {disk("sdz", 1)};
  end.disks[0].sectors_written += (4 << 20) / 512;  // the device wrote 4 MiB
  // 4 MiB written to /a (target 0), 12 MiB to the tmpfs /b (target 1).
  const ApplicationFigures app{.write_bytes = 16 << 20,
                               .target_read_bytes = {0, 0},
                               .target_write_bytes = {4 << 20, 12 << 20}};
  const PhaseExplanation e = explain_phase({disk_target, tmpfs_target}, start, end, app);
  CHECK(e.device_backed_write_bytes == 4 << 20);
  REQUIRE(e.write_amplification);
  CHECK(*e.write_amplification == Approx(1.0));  // x0.25 when the tmpfs bytes were counted
  CHECK(has(e, "writes_reached_device"));
  CHECK_FALSE(has(e, "writes_absorbed_by_page_cache"));
  // Per-target bytes from the workers' results.
  PhaseResult phase;
  phase.name = "main";
  phase.op_names = {"read", "write"};
  phase.ops.resize(2);
  phase.workers.resize(3);
  for (std::size_t w = 0; w < 3; ++w) {
    phase.workers[w].target_index = w == 2 ? 1 : 0;
    phase.workers[w].ops.resize(2);
    phase.workers[w].ops[1].bytes = 1000 * (w + 1);
  }
  const ApplicationFigures figures = explain::application_figures(phase);
  CHECK(figures.target_write_bytes == std::vector<std::uint64_t>{3000, 3000});
}

TEST_CASE("a device under another target's file system is counted once and shared",
          "[explain][rules]") {
  StorageChain loop_target{.path = "/mnt/loop", .fs_type = "ext4"};
  loop_target.devices.push_back({.name = "loop0", .device = "7:0", .role = "filesystem"});
  loop_target.devices.push_back({.name = "vdz", .device = "252:0", .role = "loop backing"});
  StorageChain disk_target{.path = "/data", .fs_type = "ext4"};
  disk_target.devices.push_back({.name = "vdz", .device = "252:0", .role = "filesystem"});
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 3'000'000'000;
  start.disks = {disk("loop0", 1), disk("vdz", 1)};
  end.disks = {disk("loop0", 1), disk("vdz", 1)};
  end.disks[0].sectors_written += (2 << 20) / 512;  // loop0: 2 MiB, which vdz wrote too
  end.disks[1].sectors_written += (6 << 20) / 512;  // vdz: 2 MiB of loop0 + 4 MiB of /data
  const PhaseExplanation e =
      explain_phase({loop_target, disk_target}, start, end, {.write_bytes = 6 << 20});
  CHECK(e.device_write_bytes == 6 << 20);  // 8 MiB when loop0 was counted beside vdz
  CHECK(e.shared_device);
  REQUIRE(e.write_amplification);
  CHECK(*e.write_amplification == Approx(1.0));
  CHECK(has(e, "shared_device"));
}

TEST_CASE("a phase with a warm-up derives no ratio and says why", "[explain][rules]") {
  StorageChain a{.path = "/a", .fs_type = "ext4"};
  a.devices.push_back({.name = "sdz", .device = "8:0", .role = "filesystem"});
  SystemSnapshot start;
  SystemSnapshot end;
  start.time_ns = 1'000'000'000;
  end.time_ns = 3'000'000'000;
  start.disks = {disk("sdz", 1)};
  end.disks = {disk("sdz", 2)};
  const PhaseExplanation e =
      explain_phase({a}, start, end, {.write_bytes = 8 << 20, .warmup = true});
  CHECK_FALSE(e.write_amplification);
  CHECK_FALSE(has(e, "writes_absorbed_by_page_cache"));
  CHECK_THAT(e.derived_note, Catch::Contains("warm-up"));
  const auto j = detail::explain_to_json(e);
  CHECK(j.at("derived").at("note") == e.derived_note);
  CHECK(j.at("derived").at("write_amplification").is_null());
}

TEST_CASE("page_cache_reads says the file fits in RAM with the figures of the issue's wording",
          "[explain][rules]") {
  StorageChain chain;
  chain.path = "/mnt/a";
  chain.fs_type = "ext4";
  chain.devices = {{.name = "loop0", .device = "7:0", .role = "filesystem"}};
  SystemSnapshot start;
  start.disks.push_back({.major = 7, .minor = 0, .name = "loop0"});
  start.meminfo = {.valid = true, .mem_total_bytes = 4ULL << 30};
  SystemSnapshot end = start;
  end.time_ns = 2'000'000'000;
  end.disks[0].sectors_read = 614;  // 314368 B = 307 KiB
  end.disks[0].reads_completed = 10;
  const auto text = [&](std::uint64_t files, std::size_t workers) {
    const ApplicationFigures app{
        .read_bytes = 256ULL << 20, .workers = workers, .largest_file_bytes = files};
    const PhaseExplanation e = explain_phase({chain}, start, end, app);
    REQUIRE(e.findings.size() == 1);
    CHECK(e.findings[0].name == "page_cache_reads");
    return e.findings[0].text;
  };
  // 100 x (1 - 314368 / 268435456) = 99.88 %.
  CHECK(text(256ULL << 20, 1) ==
        "the file (256 MiB) fits in RAM (4.00 GiB): 99.9 % of reads came from the page cache, "
        "the device read 307 KiB of the application's 256 MiB");
  CHECK(text(256ULL << 20, 2) ==
        "the files (256 MiB) fit in RAM (4.00 GiB): 99.9 % of reads came from the page cache, "
        "the device read 307 KiB of the application's 256 MiB");
  // Larger than RAM, or not known: no claim about RAM.
  for (const std::uint64_t files : {8ULL << 30, 0ULL}) {
    CHECK(text(files, 1) ==
          "99.9 % of reads came from the page cache, the device read 307 KiB of the "
          "application's 256 MiB");
  }
}
