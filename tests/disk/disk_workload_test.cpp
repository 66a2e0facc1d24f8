#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>

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
