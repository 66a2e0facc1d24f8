// How mdtest phases are timed (WorkerContext::time_phase_by_ops()): with one worker, a phase's
// wall time is exactly its ops' span, which its back-to-back ops' latencies add up to, in
// threads and processes; the worker's own time is that span; a stonewall's hold after the last
// op and a failed phase's untimed end are outside it, the failed worker's ops inside.

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::TempDir;
using iobench::test::mdtest::phase_ops;
using iobench::test::mdtest::run_mdtest;

namespace {

const PhaseResult& timed_phase(const StepResult& step, const std::string& name) {
  for (const PhaseResult& p : step.phases) {
    if (p.name == name) return p;
  }
  throw std::runtime_error("no phase " + name);
}

// One worker's phase: its wall time is its ops' span, which their latencies (each from the
// previous op's end, the first from the span's start) add up to exactly, as its own time does.
void check_one_worker_span(const PhaseResult& phase) {
  INFO(phase.name);
  REQUIRE(phase.workers.size() == 1);
  REQUIRE(phase.ops.size() == 1);
  const WorkerResult& worker = phase.workers[0];
  CHECK(phase.wall_ns == phase.ops[0].latency.sum());
  CHECK(phase.stonewall_ns == phase.wall_ns);
  CHECK(worker.elapsed_ns == phase.wall_ns);
  CHECK(worker.cpu.user_ns + worker.cpu.system_ns <= worker.elapsed_ns);
}

}  // namespace

TEST_CASE("mdtest: one worker's phase wall time is its ops' span, in threads and processes",
          "[mdtest][timing]") {
  for (const char* mode : {"threads", "processes"}) {
    INFO(mode);
    TempDir dir("mdtest_span");
    // -b 2 -z 1: the tree's 3 directories; 2 items per leaf.
    const auto out = run_mdtest(dir.path(), {{"worker_mode", mode},
                                             {"items", "4"},
                                             {"branch", "2"},
                                             {"depth", "1"},
                                             {"leaf_only", "true"},
                                             {"write_bytes", "16"},
                                             {"read_bytes", "16"}});
    INFO(out.step.message);
    REQUIRE(out.step.status == Status::kOk);
    CHECK(phase_ops(out.step, "Tree creation") == 3);
    CHECK(phase_ops(out.step, "Tree removal") == 3);
    std::size_t phases = 0;
    for (const PhaseResult& phase : out.step.phases) {
      check_one_worker_span(phase);
      ++phases;
    }
    CHECK(phases == 10);  // 3 directory, 4 file and 2 tree phases, and directory rename
  }
}

TEST_CASE("mdtest: the stonewall's hold after a worker's last op is outside the phase's time",
          "[mdtest][timing]") {
  // One worker, far more items than it makes in 2 ms: at the stonewall it waits while the
  // target is taken (its own count), then ends without another op.
  TempDir dir("mdtest_span_stonewall");
  const auto out = run_mdtest(dir.path(), {{"worker_mode", "threads"},
                                           {"items", "100000"},
                                           {"dirs_only", "true"},
                                           {"stonewall", "2ms"}});
  INFO(out.step.message);
  REQUIRE(out.step.status == Status::kOk);
  const PhaseResult& create = timed_phase(out.step, "Directory creation");
  REQUIRE(create.ops.at(0).ops > 0);
  REQUIRE(create.ops.at(0).ops < 100000);
  check_one_worker_span(create);
  CHECK(phase_ops(out.step, "Directory removal") == create.ops.at(0).ops);
}

TEST_CASE("mdtest: a failed worker's completed ops are its phase's time", "[mdtest][timing]") {
  TempDir dir("mdtest_span_failed");
  const auto created = run_mdtest(
      dir.path(),
      {{"worker_mode", "threads"}, {"items", "3"}, {"files_only", "true"}, {"phases", "create"}},
      true);
  REQUIRE(created.step.status == Status::kOk);
  REQUIRE(created.left_behind.size() == 1);
  const std::string kept = (dir.path() / "target" / created.left_behind[0]).string();
  // 6 items to stat where 3 were made: the 4th stat fails (ENOENT), after 3 timed ops.
  TempDir dir2("mdtest_span_failed2");
  const auto out = run_mdtest(dir2.path(), {{"worker_mode", "threads"},
                                            {"items", "6"},
                                            {"files_only", "true"},
                                            {"phases", "stat"},
                                            {"tree_dir", kept}});
  INFO(out.step.message);
  REQUIRE(out.step.status == Status::kFailed);
  const PhaseResult& stat = timed_phase(out.step, "File stat");
  CHECK(stat.status == Status::kFailed);
  CHECK(stat.ops.at(0).ops == 3);
  REQUIRE(stat.wall_ns > 0);
  check_one_worker_span(stat);
}
