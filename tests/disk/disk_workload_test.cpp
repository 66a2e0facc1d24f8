#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <nlohmann/json.hpp>

#include "plugins/disk/page_cache_note.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

RunResult run_disk(std::map<std::string, std::string> params,
                   std::vector<std::filesystem::path> targets, bool keep = false) {
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  return Runner(registry, RunOptions{.keep_files = keep})
      .run(std::vector<Step>{Step{
               .workload = "disk", .params = std::move(params), .targets = std::move(targets)}},
           reporter);
}

// The single run directory iobench left in `dir` (with keep).
std::filesystem::path run_dir_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("iobench.", 0) == 0) found.push_back(entry.path());
  }
  REQUIRE(found.size() == 1);
  return found.front();
}

}  // namespace

TEST_CASE("disk writes one file per target with exactly the bytes asked", "[disk]") {
  test::TempDir a("diskA"), b("diskB");
  { std::ofstream(a.path() / "precious") << "keep me"; }
  const RunResult run = run_disk({{"bs", "64k"}, {"blocks", "40"}}, {a.path(), b.path()}, true);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.name == "write");
  REQUIRE(phase.workers.size() == 2);
  for (const WorkerResult& worker : phase.workers) {
    CHECK(worker.ops.at(0).ops == 40);
    CHECK(worker.ops.at(0).bytes == 40 * 65536);
    CHECK(worker.ops.at(1).ops == 1);  // the fsync before close
  }
  for (const auto* dir : {&a, &b}) {
    const auto file = run_dir_in(dir->path()) / "bigfile";
    CHECK(std::filesystem::file_size(file) == 40 * 65536);
    std::filesystem::remove_all(run_dir_in(dir->path()));
  }
  CHECK(test::read_file(a.path() / "precious") == "keep me");
}

TEST_CASE("random reads touch each block once per iteration", "[disk]") {
  test::TempDir dir("disk");
  const RunResult run = run_disk({{"operation", "read"},
                                  {"bs", "4k"},
                                  {"blocks", "500"},
                                  {"seek", "random"},
                                  {"iterations", "3"},
                                  {"prime", "true"}},
                                 {dir.path()});
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.phases.size() == 1);  // the prime phase is not reported
  const OpResult& reads = step.phases.at(0).ops.at(0);
  CHECK(reads.ops == 1500);
  CHECK(reads.bytes == 1500 * 4096);
  CHECK(reads.latency.count() == 1500);
  CHECK(dir.entries().empty());
}

TEST_CASE("uniform random reads and mmap mode move the asked bytes", "[disk]") {
  test::TempDir dir("disk");
  for (const char* mode : {"buffered", "mmap"}) {
    const RunResult run = run_disk({{"operation", "read"},
                                    {"bs", "8k"},
                                    {"size", "1m"},
                                    {"seek", "random"},
                                    {"random_order", "uniform"},
                                    {"mode", mode}},
                                   {dir.path()});
    REQUIRE(run.status == Status::kOk);
    CHECK(run.steps.at(0).phases.at(0).ops.at(0).ops == 128);
  }
  const RunResult write = run_disk({{"bs", "8k"}, {"size", "1m"}, {"mode", "mmap"}}, {dir.path()});
  REQUIRE(write.status == Status::kOk);
  CHECK(write.steps.at(0).phases.at(0).ops.at(0).bytes == 1 << 20);
  CHECK(dir.entries().empty());
}

TEST_CASE("an existing file is read in place and left untouched", "[disk]") {
  test::TempDir dir("disk");
  const auto file = dir.path() / "bigfile";
  const std::string content(64 * 1024, 'z');
  { std::ofstream(file) << content; }
  const RunResult run = run_disk({{"operation", "read"}, {"bs", "4k"}, {"blocks", "16"}}, {file});
  REQUIRE(run.status == Status::kOk);
  CHECK(run.steps.at(0).phases.at(0).ops.at(0).bytes == 65536);
  CHECK(test::read_file(file) == content);
  CHECK(dir.entries() == std::vector<std::string>{"bigfile"});
}

TEST_CASE("direct I/O works or fails with a clear reason", "[disk]") {
  test::TempDir dir("disk");
  const RunResult run =
      run_disk({{"bs", "4k"}, {"blocks", "64"}, {"mode", "direct"}}, {dir.path()});
  if (run.status == Status::kOk) {
    CHECK(run.steps.at(0).phases.at(0).ops.at(0).bytes == 64 * 4096);
  } else {
    CHECK_THAT(run.steps.at(0).message, Catch::Contains("O_DIRECT"));
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("ENOSPC ends the step cleanly with the errno text and what was completed", "[disk]") {
  const test::ScopedTmpfs small("4m");
  if (!small.mounted()) {
    WARN("skipped: mounting a 4 MiB tmpfs needs root");
    return;
  }
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  // The free-space check would refuse this run up front; bypass it to hit ENOSPC for real.
  const RunResult run = Runner(registry, RunOptions{.skip_space_check = true})
                            .run(std::vector<Step>{Step{.workload = "disk",
                                                        .params = {{"bs", "64k"}, {"size", "16m"}},
                                                        .targets = {small.path()}}},
                                 reporter);
  REQUIRE(run.status == Status::kFailed);
  const StepResult& step = run.steps.at(0);
  CHECK_THAT(step.message, Catch::Contains("No space left on device"));
  CHECK_THAT(step.message, Catch::Contains("pwrite"));
  const OpResult& writes = step.phases.at(0).ops.at(0);
  CHECK(writes.ops > 0);
  CHECK(writes.bytes <= 4 << 20);
  CHECK(test::TempDir::list(small.path()).empty());
}

TEST_CASE("the free-space check refuses a write larger than a small filesystem", "[disk]") {
  const test::ScopedTmpfs small("4m");
  if (!small.mounted()) {
    WARN("skipped: mounting a 4 MiB tmpfs needs root");
    return;
  }
  const Registry registry = test::make_full_registry();
  const std::vector<Step> steps{Step{
      .workload = "disk", .params = {{"bs", "64k"}, {"size", "16m"}}, .targets = {small.path()}}};
  CHECK_THROWS_WITH(Runner(registry, {}).validate(steps),
                    Catch::Contains("not enough free space") && Catch::Contains("writes 16 MiB"));
}

namespace {

RunResult run_disk_limited(std::map<std::string, std::string> params,
                           const std::filesystem::path& target, std::uint64_t ops_limit,
                           std::chrono::nanoseconds time_limit = {}) {
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  return Runner(registry, {})
      .run(std::vector<Step>{Step{.workload = "disk",
                                  .params = std::move(params),
                                  .targets = {target},
                                  .time_limit = time_limit,
                                  .ops_limit = ops_limit}},
           reporter);
}

bool mentions_page_cache(const StepResult& step) {
  return std::any_of(step.warnings.begin(), step.warnings.end(), [](const std::string& w) {
    return w.find("phase 'read'") != std::string::npos &&
           w.find("page cache") != std::string::npos && w.find("mode=direct") != std::string::npos;
  });
}

}  // namespace

TEST_CASE("time_based loops over the file until the limit where one pass ends a plain phase",
          "[disk]") {
  test::TempDir dir("disk");
  // 16 blocks of 4 KiB: an op limit of 100 takes 6.25 passes.
  const std::map<std::string, std::string> read{
      {"operation", "read"}, {"bs", "4k"}, {"size", "64k"}};
  std::map<std::string, std::string> timed = read;
  timed["time_based"] = "true";
  const RunResult looped = run_disk_limited(timed, dir.path(), 100);
  REQUIRE(looped.status == Status::kOk);
  CHECK(looped.steps.at(0).phases.at(0).ops.at(0).ops == 100);
  CHECK(looped.steps.at(0).phases.at(0).ops.at(0).bytes == 100 * 4096);
  const RunResult once = run_disk_limited(read, dir.path(), 100);
  REQUIRE(once.status == Status::kOk);
  CHECK(once.steps.at(0).phases.at(0).ops.at(0).ops == 16);
  // A time limit: more than the one pass of 16 reads a plain --time gives.
  const RunResult by_time = run_disk_limited(timed, dir.path(), 0, std::chrono::milliseconds(200));
  REQUIRE(by_time.status == Status::kOk);
  CHECK(by_time.steps.at(0).phases.at(0).ops.at(0).ops > 16);
  CHECK(dir.entries().empty());
}

TEST_CASE("time_based needs a limit and excludes iterations: exit 2 and nothing written",
          "[disk][cli]") {
  test::TempDir dir("disk");
  const test::CliResult bare =
      test::run_cli({"run", "disk", "-d", dir.path().string(), "size=1m", "time_based=true"});
  CHECK(bare.exit_code == 2);
  CHECK_THAT(bare.err, Catch::Contains("time_based=true") && Catch::Contains("--time"));
  const test::CliResult both = test::run_cli({"run", "disk", "-d", dir.path().string(), "size=64k",
                                              "time_based=true", "iterations=2", "--time", "1s"});
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains("iterations=2"));
  // EAGAIN refusals are no ops: an op limit alone might never end the loop.
  const test::CliResult nowait =
      test::run_cli({"run", "disk", "-d", dir.path().string(), "size=64k", "bs=4k",
                     "operation=read", "time_based=true", "engine=pvsync2:nowait", "--ops", "100"});
  CHECK(nowait.exit_code == 2);
  CHECK_THAT(nowait.err, Catch::Contains("pvsync2") && Catch::Contains("needs a time limit"));
  CHECK(dir.entries().empty());
  const test::CliResult list = test::run_cli({"list"});
  CHECK_THAT(list.out, Catch::Contains("time_based") && Catch::Contains("fio's time_based"));
}

TEST_CASE("repeated buffered reads of a file that fits in RAM warn of the page cache", "[disk]") {
  test::TempDir dir("disk");
  const RunResult repeated = run_disk_limited(
      {{"operation", "read"}, {"bs", "4k"}, {"size", "64k"}, {"iterations", "3"}}, dir.path(), 0);
  REQUIRE(repeated.status == Status::kOk);
  CHECK(mentions_page_cache(repeated.steps.at(0)));
  const RunResult timed = run_disk_limited(
      {{"operation", "read"}, {"bs", "4k"}, {"size", "64k"}, {"time_based", "true"}}, dir.path(),
      40);
  CHECK(mentions_page_cache(timed.steps.at(0)));
  // One pass, or prime=true (cached reads asked for): no warning.
  const RunResult once =
      run_disk_limited({{"operation", "read"}, {"bs", "4k"}, {"size", "64k"}}, dir.path(), 0);
  CHECK(once.steps.at(0).warnings.empty());
  const RunResult primed = run_disk_limited({{"operation", "read"},
                                             {"bs", "4k"},
                                             {"size", "64k"},
                                             {"iterations", "3"},
                                             {"prime", "true"}},
                                            dir.path(), 0);
  CHECK(!mentions_page_cache(primed.steps.at(0)));
}

TEST_CASE("the page-cache warning shows in the text and JSON results", "[disk][cli]") {
  test::TempDir dir("disk");
  const std::vector<std::string> args{
      "run",      "disk",         "-d", dir.path().string(), "operation=read", "bs=4k",
      "size=64k", "iterations=2", "-q"};
  std::vector<std::string> json = args;
  json.insert(json.end(), {"-f", "json"});
  const test::CliResult as_json = test::run_cli(json);
  REQUIRE(as_json.exit_code == 0);
  const auto doc = nlohmann::json::parse(as_json.out);
  const auto& warnings = doc["steps"][0]["warnings"];
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0].get<std::string>(), Catch::Contains("phase 'read'") &&
                                                 Catch::Contains("2.0 times") &&
                                                 Catch::Contains("page cache"));
  std::vector<std::string> text = args;
  text.insert(text.end(), {"-f", "text"});
  const test::CliResult as_text = test::run_cli(text);
  REQUIRE(as_text.exit_code == 0);
  CHECK_THAT(as_text.out, Catch::Contains("page cache") && Catch::Contains("mode=direct"));
}

TEST_CASE("the page-cache warning's conditions", "[disk][unit]") {
  using iobench::plugins::disk::DiskConfig;
  using iobench::plugins::disk::IoMode;
  using iobench::plugins::disk::Operation;
  using iobench::plugins::disk::repeated_pass_warning;
  DiskConfig config;
  config.operation = Operation::kRead;
  config.block_size_bytes = 1 << 20;
  config.blocks = 64;  // 64 MiB per file
  const std::uint64_t ram = 1ULL << 30;
  CHECK(repeated_pass_warning(config, "read", 128ULL << 20, 2, ram) ==
        "phase 'read': a worker went over its 64.0 MiB file 2.0 times with mode=buffered, and the "
        "128 MiB of files fit in RAM (1.00 GiB): passes after the first were likely served from "
        "the page cache, not the device; use mode=direct or a size larger than RAM "
        "(--drop-caches empties the cache only before the phase)");
  CHECK(repeated_pass_warning(config, "read", 64ULL << 20, 2, ram).empty());    // one pass
  CHECK(repeated_pass_warning(config, "read", 128ULL << 20, 17, ram).empty());  // > RAM
  config.mode = IoMode::kMmap;
  CHECK(!repeated_pass_warning(config, "read", 128ULL << 20, 1, ram).empty());
  config.mode = IoMode::kDirect;
  CHECK(repeated_pass_warning(config, "read", 128ULL << 20, 1, ram).empty());
  config.mode = IoMode::kBuffered;
  config.operation = Operation::kWrite;
  CHECK(repeated_pass_warning(config, "write", 128ULL << 20, 1, ram).empty());
  config.operation = Operation::kMixed;
  CHECK(!repeated_pass_warning(config, "mixed", 128ULL << 20, 1, ram).empty());
}
