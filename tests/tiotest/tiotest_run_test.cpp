#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/tiotest/test_hooks.hpp"
#include "plugins/tiotest/tiotest_tables.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using iobench::PhaseResult;
using iobench::Status;
using iobench::Step;
using iobench::StepResult;
using iobench::plugins::tiotest::PhaseKind;
using iobench::plugins::tiotest::RandomOffsetLog;
using iobench::plugins::tiotest::TestHooks;

using ::iobench::test::kMiB;

// Installs hooks for one test and removes them at the end of it.
class ScopedHooks {
 public:
  explicit ScopedHooks(const TestHooks& hooks) {
    iobench::plugins::tiotest::set_test_hooks(&hooks);
  }
  ~ScopedHooks() { iobench::plugins::tiotest::set_test_hooks(nullptr); }
  ScopedHooks(const ScopedHooks&) = delete;
  ScopedHooks& operator=(const ScopedHooks&) = delete;
};

// Offsets logged by the random phases' workers (called from worker threads).
struct OffsetRecorder {
  struct Entry {
    std::size_t phase_index;
    std::size_t worker;
    PhaseKind kind;
    std::uint64_t seed;
    std::uint64_t base;
    std::uint64_t blocks;
    std::uint64_t block_size;
    std::vector<std::uint64_t> offsets;
  };
  std::mutex mutex;
  std::vector<Entry> entries;
  void add(const RandomOffsetLog& log) {
    std::lock_guard<std::mutex> lock(mutex);
    entries.push_back({log.phase_index,
                       log.worker_index,
                       log.kind,
                       log.generator_seed,
                       log.base_offset,
                       log.blocks,
                       log.block_size,
                       {log.offsets.begin(), log.offsets.end()}});
  }
  const Entry* find(PhaseKind kind, std::size_t worker) const {
    for (const Entry& e : entries) {
      if (e.kind == kind && e.worker == worker) return &e;
    }
    return nullptr;
  }
};

Step tiotest_step(std::map<std::string, std::string> params, std::vector<fs::path> targets) {
  Step step;
  step.name = "tiotest";
  step.workload = "tiotest";
  step.params = std::move(params);
  step.targets = std::move(targets);
  step.seed = 12345;
  return step;
}

StepResult run_one(const Step& step, iobench::RunOptions options = {}) {
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, std::move(options));
  iobench::test::CapturingReporter reporter;
  const std::vector<Step> steps{step};
  (void)runner.run(steps, reporter);
  REQUIRE(reporter.steps.size() == 1);
  return reporter.steps.front();
}

std::vector<std::string> phase_names(const StepResult& step) {
  std::vector<std::string> names;
  for (const PhaseResult& p : step.phases) names.push_back(p.name);
  return names;
}

std::uint64_t counter(const PhaseResult& phase, const std::string& name) {
  for (std::size_t i = 0; i < phase.counter_names.size(); ++i) {
    if (phase.counter_names[i] == name) return phase.counters[i];
  }
  FAIL("no counter " << name << " in phase " << phase.name);
  return 0;
}

// Overwrites 16 bytes at `offset` of `path` (simulates a corrupted block on disk).
void corrupt(const fs::path& path, std::uint64_t offset) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const char junk[16] = "corrupted block";
  REQUIRE(::pwrite(fd, junk, sizeof junk, static_cast<off_t>(offset)) == sizeof junk);
  ::close(fd);
}

}  // namespace

TEST_CASE("tiotest run moves the planned bytes in each phase and leaves nothing behind") {
  iobench::test::TempDir dir("tiotest-run");
  const StepResult step = run_one(
      tiotest_step({{"threads", "3"}, {"size", "1m"}, {"block_size", "4k"}, {"random_ops", "100"}},
                   {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(phase_names(step) ==
        std::vector<std::string>{"Write", "Random Write", "Read", "Random Read"});
  for (const PhaseResult& phase : step.phases) {
    INFO(phase.name);
    CHECK(phase.status == Status::kOk);
    REQUIRE(phase.workers.size() == 3);
    const bool random = phase.name.find("Random") == 0;
    const std::uint64_t per_worker_ops = random ? 100 : 256;
    CHECK(phase.ops.at(0).ops == 3 * per_worker_ops);
    CHECK(phase.ops.at(0).bytes == 3 * per_worker_ops * 4096);
    CHECK(phase.ops.at(0).latency.count() == 3 * per_worker_ops);
    CHECK(phase.wall_ns > 0);
    for (const auto& worker : phase.workers) {
      CHECK(worker.ops.at(0).bytes == per_worker_ops * 4096);
      CHECK(worker.status == Status::kOk);
    }
  }
  CHECK(step.phases[0].op_names == std::vector<std::string>{"write"});
  CHECK(step.phases[2].op_names == std::vector<std::string>{"read"});
  CHECK(dir.entries().empty());
}

TEST_CASE("tiotest gives each thread its own file round robin over the targets") {
  iobench::test::TempDir a("tiotest-a");
  iobench::test::TempDir b("tiotest-b");
  std::vector<std::vector<fs::path>> seen;
  std::vector<std::vector<std::uint64_t>> sizes;
  TestHooks hooks;
  hooks.after_phase = [&](std::size_t, const std::string& name,
                          const std::vector<fs::path>& files) {
    if (name != "Write") return;
    seen.push_back(files);
    std::vector<std::uint64_t> s;
    for (const fs::path& f : files) s.push_back(fs::exists(f) ? fs::file_size(f) : 0);
    sizes.push_back(s);
  };
  const ScopedHooks scoped(hooks);
  const StepResult step = run_one(
      tiotest_step({{"threads", "3"}, {"size", "256k"}, {"block_size", "4k"}, {"skip", "1,3"}},
                   {a.path(), b.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(phase_names(step) == std::vector<std::string>{"Write", "Read"});
  REQUIRE(seen.size() == 1);
  const std::vector<fs::path>& files = seen.front();
  REQUIRE(files.size() == 3);
  // threads 0 and 2 in target a, thread 1 in target b, each in the run's own directory
  CHECK(files[0].parent_path().parent_path() == a.path());
  CHECK(files[1].parent_path().parent_path() == b.path());
  CHECK(files[2].parent_path().parent_path() == a.path());
  CHECK(files[0].parent_path() == files[2].parent_path());
  CHECK(files[0].filename() == "_tiotest.thr0");
  CHECK(files[1].filename() == "_tiotest.thr1");
  CHECK(files[2].filename() == "_tiotest.thr2");
  CHECK(sizes.front() == std::vector<std::uint64_t>{256 * 1024, 256 * 1024, 256 * 1024});
  CHECK(step.phases[0].workers[1].target_index == 1);
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
}

TEST_CASE("tiotest random offsets are block aligned inside each file and seeded per thread") {
  iobench::test::TempDir dir("tiotest-offsets");
  OffsetRecorder recorder;
  TestHooks hooks;
  hooks.on_random_offsets = [&](const RandomOffsetLog& log) { recorder.add(log); };
  const ScopedHooks scoped(hooks);
  const StepResult step = run_one(
      tiotest_step({{"threads", "4"}, {"size", "1m"}, {"block_size", "8k"}, {"random_ops", "500"}},
                   {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  REQUIRE(recorder.entries.size() == 8);  // 2 random phases x 4 threads
  std::set<std::uint64_t> seeds;
  std::set<std::vector<std::uint64_t>> sequences;
  for (const auto& e : recorder.entries) {
    INFO("phase " << e.phase_index << " worker " << e.worker);
    CHECK(e.offsets.size() == 500);
    CHECK(e.blocks == 128);
    CHECK(e.block_size == 8192);
    CHECK(e.base == 0);
    for (const std::uint64_t off : e.offsets) {
      REQUIRE(off % 8192 == 0);
      REQUIRE(off + 8192 <= 1 * kMiB);
    }
    // The generator seed is the worker seed the result reports.
    const PhaseResult& phase = step.phases.at(e.phase_index);
    CHECK(e.seed == phase.workers.at(e.worker).seed);
    seeds.insert(e.seed);
    sequences.insert(e.offsets);
    // 500 draws over 128 blocks reach most of the file, both halves.
    const auto high = std::count_if(e.offsets.begin(), e.offsets.end(),
                                    [](std::uint64_t o) { return o >= kMiB / 2; });
    CHECK(high > 150);
    CHECK(high < 350);
  }
  CHECK(seeds.size() == 8);
  CHECK(sequences.size() == 8);
}

TEST_CASE("tiotest random offsets repeat with the same step seed") {
  iobench::test::TempDir dir("tiotest-repeat");
  std::vector<std::vector<std::uint64_t>> runs;
  for (int i = 0; i < 2; ++i) {
    OffsetRecorder recorder;
    TestHooks hooks;
    hooks.on_random_offsets = [&](const RandomOffsetLog& log) { recorder.add(log); };
    const ScopedHooks scoped(hooks);
    const StepResult step = run_one(tiotest_step(
        {{"threads", "1"}, {"size", "512k"}, {"random_ops", "50"}, {"skip", "random_write"}},
        {dir.path()}));
    REQUIRE(step.status == Status::kOk);
    REQUIRE(recorder.entries.size() == 1);
    runs.push_back(recorder.entries.front().offsets);
  }
  CHECK(runs[0] == runs[1]);
}

TEST_CASE("tiotest consistency check passes on intact data") {
  iobench::test::TempDir dir("tiotest-verify");
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "512k"},
                                                {"block_size", "4k"},
                                                {"random_ops", "300"},
                                                {"consistency_check", "true"}},
                                               {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(step.warnings.empty());
  const PhaseResult& read = step.phases.at(2);
  REQUIRE(read.name == "Read");
  CHECK(counter(read, "verified_blocks") == 2 * 128);
  CHECK(counter(read, "corrupt_blocks") == 0);
  const PhaseResult& rread = step.phases.at(3);
  CHECK(counter(rread, "verified_blocks") == 2 * 300);
  CHECK(counter(rread, "corrupt_blocks") == 0);
}

TEST_CASE("tiotest consistency check fails the phase at a corrupted block") {
  iobench::test::TempDir dir("tiotest-corrupt");
  const std::uint64_t bad_offset = 5 * 4096;
  TestHooks hooks;
  hooks.after_phase = [&](std::size_t, const std::string& name,
                          const std::vector<fs::path>& files) {
    // After the last write phase, damage block 5 of thread 1's file.
    if (name == "Random Write") corrupt(files.at(1), bad_offset);
  };
  const ScopedHooks scoped(hooks);
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "256k"},
                                                {"block_size", "4k"},
                                                {"random_ops", "2000"},
                                                {"consistency_check", "true"}},
                                               {dir.path()}));
  // Not a warning beside an ok status: the Read phase fails, naming the thread, the offset and
  // the file, and the phases after it do not run.
  CHECK(step.status == Status::kFailed);
  REQUIRE(step.phases.size() >= 3);
  const PhaseResult& read = step.phases.at(2);
  REQUIRE(read.name == "Read");
  CHECK(read.status == Status::kFailed);
  // The thread's file lies in the run directory iobench makes inside the target.
  CHECK_THAT(read.message,
             Catch::StartsWith("worker 1: consistency check: 1 of 64 blocks read differ from what "
                               "was written (first at offset " +
                               std::to_string(bad_offset) + " of '" + dir.path().string() + "/") &&
                 Catch::EndsWith("/_tiotest.thr1')"));
  CHECK(read.workers.at(1).counters.at(1) == 1);
  CHECK(read.workers.at(0).counters.at(1) == 0);
  CHECK(step.warnings.empty());
  // The text report marks the phase failed instead of printing its figures.
  std::ostringstream text;
  iobench::plugins::tiotest::format_tiotest_text(step, text);
  CHECK(text.str().find("| Read: failed, no figures") != std::string::npos);
  CHECK(text.str().find("Read: failed: worker 1: consistency check: 1 of 64 blocks") !=
        std::string::npos);
}

TEST_CASE("compare's gate sees a tiotest Read that its consistency check failed") {
  // Two clean runs and one whose thread 1 file has block 5 damaged after the writes (as above).
  const auto run = [](bool damage) {
    iobench::test::TempDir dir("tiotest-gate");
    TestHooks hooks;
    hooks.after_phase = [damage](std::size_t, const std::string& name,
                                 const std::vector<fs::path>& files) {
      if (damage && name == "Random Write") corrupt(files.at(1), 5 * 4096);
    };
    const ScopedHooks scoped(hooks);
    iobench::ResultDocument document;
    document.run.steps.push_back(run_one(tiotest_step({{"threads", "2"},
                                                       {"size", "256k"},
                                                       {"block_size", "4k"},
                                                       {"random_ops", "2000"},
                                                       {"consistency_check", "true"}},
                                                      {dir.path()})));
    return document;
  };
  const std::vector<iobench::CompareInput> inputs{
      {"clean.json", run(false)}, {"also.json", run(false)}, {"damaged.json", run(true)}};
  REQUIRE(inputs[2].document.run.steps.at(0).phases.at(2).status == Status::kFailed);
  const iobench::Comparison c =
      iobench::compare_results(inputs, {.metrics = {}, .phases = {"Read"}});
  // The damaged run's Read failed where the baseline's ended ok: the gate fails on it.
  const std::vector<std::size_t> failed = iobench::failed_phases(c);
  REQUIRE(failed.size() == 1);
  const iobench::LeftOutResult& left = c.left_out.at(failed[0]);
  CHECK(left.input == 2);
  CHECK(left.phase == "Read");
  CHECK(left.status == Status::kFailed);
  CHECK_THAT(left.message, Catch::StartsWith("worker 1: consistency check: 1 of 64 blocks"));
  // Its corrupt_blocks (1, in the failed result) is above the baseline's 0: worse in #2.
  REQUIRE(c.phases.size() == 1);
  const auto& counters = c.phases[0].counters;
  const auto corrupt_row =
      std::find_if(counters.begin(), counters.end(),
                   [](const iobench::CounterRow& row) { return row.name == "corrupt_blocks"; });
  REQUIRE(corrupt_row != counters.end());
  CHECK(corrupt_row->inputs[2].failed_values == std::vector<std::uint64_t>{1});
  CHECK(corrupt_row->worse == std::vector<std::size_t>{2});
  CHECK(iobench::counter_regressions(c).size() == 1);
}

TEST_CASE("tiotest prepares the files untimed when the write phase is skipped") {
  iobench::test::TempDir dir("tiotest-prepare");
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "256k"},
                                                {"random_ops", "50"},
                                                {"skip", "write"},
                                                {"consistency_check", "true"}},
                                               {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(phase_names(step) == std::vector<std::string>{"Random Write", "Read", "Random Read"});
  CHECK(step.phases[1].ops.at(0).bytes == 2 * 256 * 1024);
  CHECK(counter(step.phases[1], "corrupt_blocks") == 0);
  CHECK(counter(step.phases[1], "verified_blocks") == 2 * 64);
  CHECK(dir.entries().empty());
}

TEST_CASE("tiotest serial write runs the threads one after another") {
  iobench::test::TempDir dir("tiotest-serial");
  const StepResult step = run_one(tiotest_step(
      {{"threads", "3"}, {"size", "512k"}, {"serial_write", "true"}, {"skip", "1,2,3"}},
      {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  const PhaseResult& write = step.phases.at(0);
  CHECK(write.ops.at(0).bytes == 3 * 512 * 1024);
  // Serial: the phase's wall time is the sum of the workers' runs, so it covers all of them.
  std::uint64_t sum = 0;
  for (const auto& w : write.workers) sum += w.elapsed_ns;
  CHECK(sum <= write.wall_ns);
}

TEST_CASE("tiotest stops each worker at the step's op limit") {
  iobench::test::TempDir dir("tiotest-limit");
  Step step =
      tiotest_step({{"threads", "2"}, {"size", "1m"}, {"random_ops", "1000"}}, {dir.path()});
  step.ops_limit = 10;
  const StepResult result = run_one(step);
  REQUIRE(result.status == Status::kOk);
  for (const PhaseResult& phase : result.phases) {
    INFO(phase.name);
    CHECK(phase.ops.at(0).ops == 20);
    CHECK(phase.ops.at(0).bytes == 20 * 4096);
  }
}

TEST_CASE("tiotest mmap mode moves the same bytes and verifies") {
  iobench::test::TempDir dir("tiotest-mmap");
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "256k"},
                                                {"random_ops", "64"},
                                                {"mmap", "true"},
                                                {"consistency_check", "true"}},
                                               {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(step.phases.at(0).ops.at(0).bytes == 2 * 256 * 1024);
  CHECK(counter(step.phases.at(2), "corrupt_blocks") == 0);
  CHECK(counter(step.phases.at(3), "verified_blocks") == 2 * 64);
  CHECK(dir.entries().empty());
}

TEST_CASE("tiotest direct and sync modes run on a filesystem that supports them") {
  iobench::test::TempDir dir("tiotest-direct");
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "256k"},
                                                {"random_ops", "32"},
                                                {"direct", "true"},
                                                {"sync", "true"},
                                                {"consistency_check", "true"}},
                                               {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(step.phases.at(1).ops.at(0).bytes == 2 * 32 * 4096);
  CHECK(counter(step.phases.at(2), "corrupt_blocks") == 0);
}

TEST_CASE("tiotest drops the page cache before each phase when asked") {
  iobench::test::TempDir dir("tiotest-drop");
  const StepResult step = run_one(tiotest_step(
      {{"threads", "1"}, {"size", "128k"}, {"random_ops", "8"}, {"drop_caches", "true"}},
      {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  if (::geteuid() == 0) {
    CHECK(step.warnings.empty());
  } else {
    CHECK(step.warnings.size() == 4);  // one "page cache not dropped" per phase
  }
}

TEST_CASE("tiotest raw mode works in per thread regions of an existing file") {
  iobench::test::TempDir dir("tiotest-raw");
  const fs::path target = dir.path() / "device.img";
  const std::string original(4 * kMiB, '\xAB');
  std::ofstream(target, std::ios::binary) << original;

  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "1m"},
                                                {"random_ops", "100"},
                                                {"raw", "true"},
                                                {"raw_overwrite", "true"},
                                                {"raw_gap", "512k"},
                                                {"raw_offset_first", "true"},
                                                {"consistency_check", "true"}},
                                               {target}));
  REQUIRE(step.status == Status::kOk);
  CHECK(counter(step.phases.at(2), "corrupt_blocks") == 0);
  CHECK(counter(step.phases.at(2), "verified_blocks") == 2 * 256);
  // Regions: thread 0 at [512k, 1.5M), thread 1 at [2M, 3M); the rest is untouched.
  const std::string after = iobench::test::read_file(target);
  REQUIRE(after.size() == original.size());
  const auto untouched = [&](std::uint64_t from, std::uint64_t to) {
    return after.compare(from, to - from, original, from, to - from) == 0;
  };
  CHECK(untouched(0, kMiB / 2));
  CHECK(untouched(3 * kMiB / 2, 2 * kMiB));
  CHECK(untouched(3 * kMiB, 4 * kMiB));
  CHECK_FALSE(untouched(kMiB / 2, kMiB / 2 + 4096));
  CHECK_FALSE(untouched(3 * kMiB - 4096, 3 * kMiB));
  CHECK(dir.entries() == std::vector<std::string>{"device.img"});
}

TEST_CASE("tiotest raw mode refuses to write without consent before any I/O") {
  iobench::test::TempDir dir("tiotest-raw-refuse");
  const fs::path target = dir.path() / "device.img";
  const std::string original(2 * kMiB, '\x5A');
  std::ofstream(target, std::ios::binary) << original;
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, {});
  iobench::test::CapturingReporter reporter;
  const std::vector<Step> steps{
      tiotest_step({{"threads", "1"}, {"size", "1m"}, {"raw", "true"}}, {target})};
  CHECK_THROWS_WITH(runner.run(steps, reporter), Catch::Contains("raw_overwrite"));
  CHECK(reporter.steps.empty());
  CHECK(iobench::test::read_file(target) == original);
  // Reading only needs no consent.
  const StepResult read_only = run_one(tiotest_step(
      {{"threads", "1"}, {"size", "1m"}, {"random_ops", "10"}, {"raw", "true"}, {"skip", "0,1"}},
      {target}));
  REQUIRE(read_only.status == Status::kOk);
  CHECK(read_only.phases.at(0).ops.at(0).bytes == kMiB);
  CHECK(iobench::test::read_file(target) == original);
}

TEST_CASE("tiotest invalid params are rejected by the runner before any I/O") {
  iobench::test::TempDir dir("tiotest-invalid");
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, {});
  const auto message = [&](std::map<std::string, std::string> params,
                           std::vector<fs::path> targets) -> std::string {
    const std::vector<Step> steps{tiotest_step(std::move(params), std::move(targets))};
    try {
      runner.validate(steps);
    } catch (const iobench::ConfigError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(message({{"size", "4k"}, {"block_size", "8k"}}, {dir.path()}),
             Catch::Contains("size: 4096 bytes per thread is less than one block of 8192 bytes"));
  CHECK_THAT(message({{"random_ops", "0"}}, {dir.path()}), Catch::Contains("random_ops"));
  CHECK_THAT(message({{"skip", "9"}}, {dir.path()}), Catch::Contains("skip: '9'"));
  CHECK_THAT(message({{"threads", "1"}}, {dir.path(), dir.path()}),
             Catch::Contains("targets: 2 targets but only 1 threads"));
  CHECK_THAT(message({{"direct", "true"}, {"block_size", "1000"}, {"size", "1m"}}, {dir.path()}),
             Catch::Contains("not a multiple of 512"));
  CHECK(message({}, {dir.path()}).empty());
  CHECK(dir.entries().empty());
}

TEST_CASE("tiotest through io_uring at depth 8 moves and verifies every block, with slat/clat") {
  const iobench::Registry registry = iobench::test::make_full_registry();
  if (const auto why = registry.create_engine("io_uring")->unavailable_reason(); !why.empty()) {
    WARN("skipping: " << why);
    return;
  }
  iobench::test::TempDir dir("tiotest-uring");
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "512k"},
                                                {"block_size", "4k"},
                                                {"random_ops", "300"},
                                                {"engine", "io_uring"},
                                                {"iodepth", "8"},
                                                {"consistency_check", "true"}},
                                               {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  CHECK(step.engine == "io_uring");
  CHECK(step.warnings.empty());
  for (const PhaseResult& phase : step.phases) {
    INFO(phase.name);
    const bool random = phase.name.find("Random") == 0;
    CHECK(phase.ops.at(0).ops == 2 * (random ? 300 : 128));
    REQUIRE(phase.latency_parts_kind.submission_completion);
    CHECK(phase.latency_parts.at(0).completion.count() == phase.ops.at(0).ops);
  }
  CHECK(counter(step.phases.at(2), "verified_blocks") == 2 * 128);
  CHECK(counter(step.phases.at(2), "corrupt_blocks") == 0);
  CHECK(counter(step.phases.at(3), "verified_blocks") == 2 * 300);
  CHECK(counter(step.phases.at(3), "corrupt_blocks") == 0);
}

TEST_CASE("tiotest at a fixed rate keeps it and reports response and service times") {
  iobench::test::TempDir dir("tiotest-rate");
  const StepResult step = run_one(tiotest_step({{"threads", "2"},
                                                {"size", "256k"},
                                                {"block_size", "4k"},
                                                {"random_ops", "200"},
                                                {"skip", "write,read,random_write"},
                                                {"rate_iops", "1000"}},
                                               {dir.path()}));
  REQUIRE(step.status == Status::kOk);
  const PhaseResult& rread = step.phases.at(0);
  REQUIRE(rread.name == "Random Read");
  CHECK(rread.ops.at(0).ops == 400);
  CHECK(rread.pacing.paced);
  REQUIRE(rread.latency_parts_kind.service);
  // 200 ops per thread at 1000/s take at least 199 ms: the schedule holds them back.
  CHECK(rread.wall_ns >= 199'000'000);
  // Every response time (from the intended issue) is at least the op's service time.
  CHECK(rread.ops.at(0).latency.sum() >= rread.latency_parts.at(0).service.sum());
}
