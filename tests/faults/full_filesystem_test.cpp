// Every family on every engine, on a tmpfs too small for what it writes: the step fails with
// ENOSPC named, keeps what it measured, and leaves the target as it found it. The free-space
// check would refuse these runs up front, so it is skipped to hit ENOSPC for real (the CLI
// tests in mid_run_fault_test.cpp fill a filesystem during a run instead).
#include <catch2/catch.hpp>
#include <fstream>
#include <iobench/runner.hpp>

#include "tests/faults/fault_fixtures.hpp"

using namespace iobench;

namespace {

using ::iobench::test::kPrecious;

struct FullCase {
  const char* label;
  const char* workload;
  std::map<std::string, std::string> params;
  const char* engine;
};

// A loadfile that writes 8 MiB into one file in 1 MiB WriteX calls.
std::string big_write_loadfile() {
  std::string text =
      "Mkdir \"\\clients\" NT_STATUS_OK\n"
      "Mkdir \"\\clients\\client1\" NT_STATUS_OK\n"
      "NTCreateX \"\\clients\\client1\\big.dat\" 0x40 0x2 9938 NT_STATUS_OK\n";
  for (int i = 0; i < 8; ++i) {
    text += "WriteX 9938 " + std::to_string(i << 20) + " 1048576 1048576 NT_STATUS_OK\n";
  }
  text += "Close 9938 NT_STATUS_OK\n";
  return text;
}

std::vector<FullCase> cases(const std::string& loadfile) {
  const std::map<std::string, std::string> disk{{"bs", "64k"}, {"size", "16m"}};
  auto disk_mmap = disk;
  disk_mmap["mode"] = "mmap";
  auto disk_direct = disk;
  disk_direct["mode"] = "direct";
  const std::map<std::string, std::string> tiotest{
      {"threads", "2"}, {"size", "4m"}, {"block_size", "64k"}, {"random_ops", "16"}};
  auto tiotest_mmap = tiotest;
  tiotest_mmap["mmap"] = "true";
  const std::map<std::string, std::string> bonnie{
      {"size", "16m"}, {"files", "0"}, {"ram", "0"}, {"per_char", "1m"}};
  const std::map<std::string, std::string> dbench{
      {"loadfile", loadfile}, {"run_once", "true"}, {"time_limit", "30s"}, {"warmup", "0s"}};
  return {
      {"disk, psync", "disk", disk, "psync"},
      {"disk, mode=mmap", "disk", disk_mmap, "psync"},
      {"disk, --engine mmap", "disk", disk, "mmap"},
      {"tiotest, psync", "tiotest", tiotest, "psync"},
      {"tiotest, mmap=true", "tiotest", tiotest_mmap, "psync"},
      {"tiotest, --engine mmap", "tiotest", tiotest, "mmap"},
      {"disk, --engine pvsync2", "disk", disk, "pvsync2"},
      {"disk, --engine io_uring", "disk", disk, "io_uring"},
      {"disk, --engine libaio (O_DIRECT)", "disk", disk_direct, "libaio"},
      {"tiotest, --engine io_uring", "tiotest", tiotest, "io_uring"},
      // bonnie and dbench make their originals' system calls: any engine but psync is refused.
      {"bonnie, psync", "bonnie", bonnie, "psync"},
      {"dbench, psync", "dbench", dbench, "psync"},
  };
}

std::uint64_t bytes_measured(const StepResult& step) {
  std::uint64_t bytes = 0;
  for (const PhaseResult& phase : step.phases) {
    for (const OpResult& op : phase.ops) bytes += op.bytes;
  }
  return bytes;
}

}  // namespace

TEST_CASE("a full filesystem ends every family on every engine with ENOSPC and partial results",
          "[faults][enospc]") {
  test::TempDir scratch("fullfs");
  const auto loadfile = scratch.path() / "big.load";
  { std::ofstream(loadfile) << big_write_loadfile(); }
  const Registry registry = test::make_full_registry();
  for (const FullCase& c : cases(loadfile.string())) {
    DYNAMIC_SECTION(c.label) {
      const test::ScopedTmpfs small("4m");
      if (!small.mounted()) {
        WARN("skipped: mounting a 4 MiB tmpfs needs root");
        return;
      }
      { std::ofstream(small.path() / kPrecious) << "keep me"; }
      const auto before = test::snapshot_tree(small.path());
      test::CapturingReporter reporter;
      const RunResult run = Runner(registry, RunOptions{.skip_space_check = true})
                                .run(std::vector<Step>{Step{.workload = c.workload,
                                                            .params = c.params,
                                                            .targets = {small.path()},
                                                            .engine = c.engine}},
                                     reporter);
      REQUIRE(run.steps.size() == 1);
      const StepResult& step = run.steps.front();
      INFO(step.message);
      CHECK(run.status == Status::kFailed);
      CHECK(step.status == Status::kFailed);
      CHECK_THAT(step.message, Catch::Contains("No space left on device"));
      // Partial results: the phases up to the failing one, with what they moved.
      REQUIRE_FALSE(step.phases.empty());
      CHECK(step.phases.back().status == Status::kFailed);
      CHECK(bytes_measured(step) > 0);
      CHECK(test::snapshot_tree(small.path()) == before);
    }
  }
}
