// Small real mdtest runs through the runner: every phase's op count, what is left, rank shift.

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::TempDir;
using iobench::test::mdtest::phase_ops;
using iobench::test::mdtest::run_mdtest;

TEST_CASE("mdtest run does every phase on every item and leaves nothing", "[mdtest][run]") {
  const std::string mode = GENERATE(std::string("threads"), std::string("processes"));
  TempDir dir("mdtest_all");
  // 2 ranks x 3 directories x 5 items = 30 items of each kind.
  const auto out = run_mdtest(dir.path(), {{"ranks", "2"},
                                           {"worker_mode", mode},
                                           {"branch", "2"},
                                           {"depth", "1"},
                                           {"items_per_dir", "5"},
                                           {"write_bytes", "100"},
                                           {"read_bytes", "60"},
                                           {"shift", "1"}});
  INFO(out.step.message);
  REQUIRE(out.step.status == Status::kOk);
  CHECK(phase_ops(out.step, "Tree creation") == 3);
  CHECK(phase_ops(out.step, "Directory creation") == 30);
  CHECK(phase_ops(out.step, "Directory stat") == 30);
  CHECK(phase_ops(out.step, "Directory rename") == 30);
  CHECK(phase_ops(out.step, "Directory removal") == 30);
  CHECK(phase_ops(out.step, "File creation") == 30);
  CHECK(phase_ops(out.step, "File stat") == 30);
  CHECK(phase_ops(out.step, "File read") == 30);
  CHECK(phase_ops(out.step, "File removal") == 30);
  CHECK(phase_ops(out.step, "Tree removal") == 3);
  for (const PhaseResult& p : out.step.phases) {
    std::uint64_t bytes = 0;
    for (const OpResult& o : p.ops) bytes += o.bytes;
    if (p.name == "File creation") CHECK(bytes == 3000);
    if (p.name == "File read") CHECK(bytes == 1800);
  }
  CHECK(out.left_behind.empty());
}

TEST_CASE("mdtest unique trees with shift read another rank's files", "[mdtest][run]") {
  TempDir dir("mdtest_shift");
  // With -u -N 1 mdtest creates rank r's files in tree r+1 and reads rank r+2's in tree r+3:
  // a read of rank r's own files would fail with 3 ranks only if the shift were not applied
  // the same way in every phase.
  const auto out = run_mdtest(dir.path(), {{"ranks", "3"},
                                           {"worker_mode", "threads"},
                                           {"items", "4"},
                                           {"unique_dir", "true"},
                                           {"files_only", "true"},
                                           {"write_bytes", "8"},
                                           {"read_bytes", "8"},
                                           {"shift", "1"},
                                           {"random", "true"},
                                           {"random_seed", "7"},
                                           {"iterations", "2"}});
  INFO(out.step.message);
  REQUIRE(out.step.status == Status::kOk);
  CHECK(phase_ops(out.step, "Tree creation#1") == 3);
  CHECK(phase_ops(out.step, "File creation#2") == 12);
  CHECK(phase_ops(out.step, "File read#2") == 12);
  CHECK(phase_ops(out.step, "File removal#1") == 12);
  CHECK(out.left_behind.empty());
}

TEST_CASE("mdtest later run stats and removes what a create-only run kept", "[mdtest][run]") {
  TempDir dir("mdtest_later");
  const auto created = run_mdtest(
      dir.path(), {{"items_per_dir", "3"}, {"branch", "2"}, {"depth", "1"}, {"phases", "create"}},
      true);
  REQUIRE(created.step.status == Status::kOk);
  REQUIRE(created.left_behind.size() == 1);
  const std::string kept = (dir.path() / "target" / created.left_behind[0]).string();
  // dirs 9 + files 9 + tree 3 + test-dir 1
  CHECK(created.tree.size() == 22);
  TempDir dir2("mdtest_later2");
  const auto removed = run_mdtest(dir2.path(), {{"items_per_dir", "3"},
                                                {"branch", "2"},
                                                {"depth", "1"},
                                                {"phases", "stat,read,remove"},
                                                {"tree_dir", kept}});
  INFO(removed.step.message);
  REQUIRE(removed.step.status == Status::kOk);
  CHECK(phase_ops(removed.step, "Directory stat") == 9);
  CHECK(phase_ops(removed.step, "File read") == 9);
  CHECK(phase_ops(removed.step, "File removal") == 9);
  CHECK(phase_ops(removed.step, "Tree removal") == 3);
  CHECK(iobench::test::mdtest::list_tree(kept).empty());
}

TEST_CASE("mdtest stat of missing items fails the phase with the path", "[mdtest][run]") {
  TempDir dir("mdtest_missing");
  std::filesystem::create_directories(dir.path() / "empty" / "test-dir.0-0");
  const auto out = run_mdtest(
      dir.path(),
      {{"items", "2"}, {"phases", "stat"}, {"tree_dir", (dir.path() / "empty").string()}});
  CHECK(out.step.status == Status::kFailed);
  CHECK_THAT(out.step.message, Catch::Contains("mdtest_tree.0"));
}

TEST_CASE("mdtest create cut short by an op limit skips the rest and cleans up", "[mdtest][run]") {
  TempDir dir("mdtest_limit");
  // Kept: what the workload itself removed shows (the runner leaves the run directory).
  const auto out = run_mdtest(dir.path(), {{"items", "20"}, {"files_only", "true"}}, true, 5);
  INFO(out.step.message);
  REQUIRE(out.step.status == Status::kOk);
  CHECK(phase_ops(out.step, "File creation") == 5);
  CHECK_THROWS(phase_ops(out.step, "File stat"));
  bool warned = false;
  for (const std::string& w : out.step.warnings) {
    warned = warned || w.find("'File creation' made 5 of its 20 items") != std::string::npos;
  }
  CHECK(warned);
  REQUIRE(out.left_behind.size() == 1);  // the run directory, emptied by finish()
  CHECK(out.tree.empty());
}
