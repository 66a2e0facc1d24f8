// The same -b/-z/-I run by mdtest itself and by the workload: both trees listed and compared.
// Needs mdtest (IOBENCH_MDTEST=/path/to/mdtest, or mdtest in PATH) and mpirun; without them the
// test says so and checks nothing else (tree_layout_test.cpp checks recorded listings always).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "tests/mdtest/mdtest_run.hpp"

using iobench::test::TempDir;
using iobench::test::mdtest::list_tree;
using iobench::test::mdtest::run_mdtest;

namespace {

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string dirs(path);
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', pos), dirs.size());
    const std::filesystem::path candidate =
        std::filesystem::path(dirs.substr(pos, end - pos)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    pos = end + 1;
  }
  return {};
}

}  // namespace

TEST_CASE("mdtest reference binary and the workload make the same tree", "[mdtest][reference]") {
  const char* env = std::getenv("IOBENCH_MDTEST");
  const std::string mdtest = env != nullptr && *env != '\0' ? env : find_in_path("mdtest");
  const std::string mpirun = find_in_path("mpirun");
  if (mdtest.empty() || mpirun.empty()) {
    const char* why =
        "skipped: no mdtest binary (set IOBENCH_MDTEST or put mdtest in PATH) or no mpirun";
    WARN(why);
    std::cerr << why << "\n";
    return;
  }
  struct Case {
    std::vector<std::string> mdtest_args;
    std::map<std::string, std::string> params;
  };
  const std::vector<Case> cases = {
      {{"-b", "2", "-z", "2", "-I", "3"},
       {{"branch", "2"}, {"depth", "2"}, {"items_per_dir", "3"}}},
      {{"-b", "3", "-z", "2", "-n", "40", "-L"},
       {{"branch", "3"}, {"depth", "2"}, {"items", "40"}, {"leaf_only", "true"}}},
      {{"-b", "1", "-z", "3", "-I", "2", "-u", "-F"},
       {{"branch", "1"},
        {"depth", "3"},
        {"items_per_dir", "2"},
        {"unique_dir", "true"},
        {"files_only", "true"}}},
  };
  for (const Case& c : cases) {
    TempDir dir("mdtest_ref");
    const std::filesystem::path ref = dir.path() / "ref";
    std::vector<std::string> argv = {
        mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", mdtest, "-d", ref.string(),
        "-C"};
    argv.insert(argv.end(), c.mdtest_args.begin(), c.mdtest_args.end());
    const auto r = iobench::test::run_command(argv);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    auto params = c.params;
    params.emplace("ranks", "2");
    params.emplace("worker_mode", "threads");
    params.emplace("phases", "create");
    const auto ours = run_mdtest(dir.path(), params, true);
    REQUIRE(ours.step.status == iobench::Status::kOk);
    const auto theirs = list_tree(ref);
    CHECK(theirs.size() > 5);
    CHECK(ours.tree == theirs);
  }
}

// mdtest -X's data check and verify_read agree on the bytes: files mdtest wrote (-w -G, 2 ranks)
// pass iobench's check with the same seed and fail it with another; files iobench wrote pass
// mdtest's -E -X with its data_seed and fail it with another.
TEST_CASE("mdtest reference binary and the workload check each other's data pattern",
          "[mdtest][reference][verify]") {
  const char* env = std::getenv("IOBENCH_MDTEST");
  const std::string mdtest = env != nullptr && *env != '\0' ? env : find_in_path("mdtest");
  const std::string mpirun = find_in_path("mpirun");
  if (mdtest.empty() || mpirun.empty()) {
    const char* why =
        "skipped: no mdtest binary (set IOBENCH_MDTEST or put mdtest in PATH) or no mpirun";
    WARN(why);
    std::cerr << why << "\n";
    return;
  }
  const std::vector<std::string> mpi = {
      mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", mdtest};
  const std::map<std::string, std::string> shape = {{"ranks", "2"},
                                                    {"worker_mode", "threads"},
                                                    {"items", "6"},
                                                    {"files_only", "true"},
                                                    {"write_bytes", "3901"}};
  SECTION("mdtest writes, the workload checks") {
    TempDir dir("mdtest_ref_pattern");
    const std::filesystem::path ref = dir.path() / "ref";
    std::vector<std::string> argv = mpi;
    argv.insert(argv.end(),
                {"-d", ref.string(), "-C", "-F", "-n", "6", "-w", "3901", "-G", "4321"});
    const auto r = iobench::test::run_command(argv);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const std::string seed : {"4321", "4322"}) {
      auto params = shape;
      params.insert({{"read_bytes", "3901"},
                     {"verify_read", "true"},
                     {"data_seed", seed},
                     {"phases", "read"},
                     {"tree_dir", ref.string()}});
      TempDir again("mdtest_ref_pattern_read");
      const auto ours = run_mdtest(again.path(), params);
      INFO(seed << ": " << ours.step.message);
      CHECK(ours.step.status == (seed == "4321" ? iobench::Status::kOk : iobench::Status::kFailed));
    }
  }
  SECTION("the workload writes, mdtest checks") {
    TempDir dir("mdtest_ref_pattern2");
    auto params = shape;
    params.insert({{"phases", "create"}, {"data_seed", "4321"}});
    const auto ours = run_mdtest(dir.path(), params, true);
    REQUIRE(ours.step.status == iobench::Status::kOk);
    const std::string run = (dir.path() / "target" / ours.left_behind.at(0)).string();
    for (const std::string seed : {"4321", "4322"}) {
      std::vector<std::string> argv = mpi;
      argv.insert(argv.end(), {"-d", run, "-E", "-X", "-F", "-n", "6", "-e", "3901", "-G", seed});
      const auto r = iobench::test::run_command(argv);
      INFO(seed << ": " << r.out << r.err);
      REQUIRE(r.exit_code == 0);  // mdtest reports its errors, exit 0
      const bool errors = (r.out + r.err).find("ERROR: verifying") != std::string::npos;
      CHECK(errors == (seed != "4321"));
    }
  }
}
