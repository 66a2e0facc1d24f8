// mdtest's paths=full PATH_MAX check: a run whose longest whole path would not fit PATH_MAX with
// its NUL is refused before anything is written (exit 2, one message naming the params, the
// length, the limit and the fix); 4095 bytes are accepted and run; paths=dirfd has no limit.

#include <limits.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/reporter.hpp>
#include <iobench/run_dir_name.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "plugins/mdtest/config.hpp"
#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::TempDir;
using iobench::test::mdtest::list_tree;
using iobench::test::mdtest::phase_ops;
namespace fs = std::filesystem;
namespace md = iobench::plugins::mdtest;

namespace {

md::MdtestConfig config_of(const std::map<std::string, std::string>& raw) {
  return md::make_config(Params::validate(md::param_specs(), raw, "mdtest"), 1);
}

// `base` and nested directories of at most 200-byte names: a path of exactly `length` bytes.
fs::path path_of_length(const fs::path& base, std::size_t length) {
  std::string path = base.string();
  REQUIRE(length >= path.size() + 2);
  std::size_t left = length - path.size();
  while (left > 0) {
    std::size_t name = std::min<std::size_t>(left - 1, 200);
    if (left - 1 - name == 1) --name;  // never leave room for a '/' alone
    path += '/';
    path += std::string(name, 'd');
    left -= name + 1;
  }
  REQUIRE(path.size() == length);
  return path;
}

// A one-step mdtest run on `target` by this process's runner.
Step step_on(const fs::path& target, std::map<std::string, std::string> params) {
  Step step{.name = "md", .workload = "mdtest", .params = std::move(params), .targets = {target}};
  step.seed = 99;
  return step;
}

}  // namespace

TEST_CASE("mdtest longest full path is the deepest item of the highest rank or rename's set-aside",
          "[mdtest][paths]") {
  // 13 directories (last node 12 = child of 3, child of 0), 5 items each: items 0..64; rank 11.
  const md::MdtestConfig c = config_of({{"items_per_dir", "5"},
                                        {"branch", "3"},
                                        {"depth", "2"},
                                        {"unique_dir", "true"},
                                        {"iterations", "2"}});
  CHECK(md::longest_full_path(c, "/m/iobench.7.XXXXXXXX", 12) ==
        "/m/iobench.7.XXXXXXXX/test-dir.1-0/mdtest_tree.11.0/mdtest_tree.11.3/"
        "mdtest_tree.11.12/file.mdtest.11.64");
  // Directories only, in the leaves: the rename's "<item 0>-XX" in the first leaf is longer
  // than the last item's name in the last leaf (items 1 and 2 in nodes 1 and 2).
  const md::MdtestConfig dirs = config_of({{"items_per_dir", "1"},
                                           {"branch", "2"},
                                           {"depth", "1"},
                                           {"leaf_only", "true"},
                                           {"dirs_only", "true"}});
  CHECK(md::longest_full_path(dirs, "t/", 1) ==
        "t/test-dir.0-0/mdtest_tree.0/mdtest_tree.1/dir.mdtest.0.1-XX");
  // Without the rename phase, the last item.
  const md::MdtestConfig no_rename = config_of({{"items_per_dir", "1"},
                                                {"branch", "2"},
                                                {"depth", "1"},
                                                {"leaf_only", "true"},
                                                {"dirs_only", "true"},
                                                {"phases", "create,stat"}});
  CHECK(md::longest_full_path(no_rename, "t", 1) ==
        "t/test-dir.0-0/mdtest_tree.0/mdtest_tree.2/dir.mdtest.0.2");
}

TEST_CASE("mdtest paths=full refuses a tree whose paths pass PATH_MAX before writing anything",
          "[mdtest][paths]") {
  TempDir dir("mdtest_path_max");
  // A target of about 3200 bytes and a chain of 63 tree directories of about 15 bytes each.
  const fs::path target = path_of_length(dir.path(), 3200);
  fs::create_directories(target);
  const std::vector<std::string> args{
      "run", "mdtest", "-d", target.string(), "items_per_dir=1", "files_only=true", "depth=63"};
  auto r = test::run_cli(args);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("mdtest: paths=full with target=") &&
                        Catch::Contains("depth=63 branch=1 unique_dir=false items_per_dir=1 "
                                        "iterations=1 ranks=1 (1 in all): the longest path "
                                        "this run's ops would name is ") &&
                        Catch::Contains("over the kernel's PATH_MAX of 4096 bytes") &&
                        Catch::Contains("use paths=dirfd") &&
                        Catch::Contains("a smaller depth (mdtest -z) or a shorter target") &&
                        Catch::Contains("mdtest_tree.62/mdtest_tree.63/file.mdtest.0.63"));
  // Nothing was made: no run directory, no tree.
  CHECK(list_tree(target).empty());
  // By descriptor the same run has no path to fit: it runs every phase, and removes its tree.
  std::vector<std::string> dirfd = args;
  dirfd.emplace_back("paths=dirfd");
  r = test::run_cli(dirfd);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(list_tree(target).empty());
}

TEST_CASE("mdtest paths=full accepts a longest path of PATH_MAX - 1 bytes and refuses PATH_MAX",
          "[mdtest][paths]") {
  TempDir dir("mdtest_path_max_edge");
  // The longest path: TARGET/iobench.<pid>.<8 hex>/test-dir.0-0/mdtest_tree.0/file.mdtest.0.0,
  // the run directory named with this process's pid (the runner runs here).
  const std::size_t run_dir = 17 + std::to_string(::getpid()).size();
  const std::size_t below_target = 1 + run_dir + 14 + 14 + 15;
  const std::map<std::string, std::string> params{{"items", "1"}, {"files_only", "true"}};
  const Registry registry = test::make_full_registry();
  for (const std::size_t longest : {std::size_t{PATH_MAX} - 1, std::size_t{PATH_MAX}}) {
    INFO("longest path " << longest << " bytes");
    const fs::path target =
        path_of_length(dir.path() / std::to_string(longest), longest - below_target);
    fs::create_directories(target);
    const Step step = step_on(target, params);
    if (longest == PATH_MAX) {
      try {
        Runner(registry, RunOptions{}).validate(std::span<const Step>(&step, 1));
        FAIL("a path of PATH_MAX bytes was accepted");
      } catch (const ConfigError& e) {
        CHECK_THAT(e.what(), Catch::Contains("would name is 4096 bytes, 4097 with its "
                                             "terminating NUL"));
      }
      continue;
    }
    // 4095 bytes and the NUL: the kernel takes it, and the run makes, stats, reads and removes
    // its one file by that path.
    test::CapturingReporter reporter;
    Runner(registry, RunOptions{}).run(std::span<const Step>(&step, 1), reporter);
    const StepResult& result = reporter.steps.at(0);
    INFO(result.message);
    REQUIRE(result.status == Status::kOk);
    CHECK(phase_ops(result, "File creation") == 1);
    CHECK(phase_ops(result, "File removal") == 1);
    CHECK(list_tree(target).empty());
  }
}

TEST_CASE("mdtest paths=full counts every process's ranks and the longest pid under mpirun",
          "[mdtest][paths]") {
  const md::MdtestConfig c = config_of({{"items", "1"}, {"files_only", "true"}});
  // 2 processes of 1 rank: rank 1's file, in the run directory another process made (pid
  // 4194303): TARGET + "/iobench.4194303.XXXXXXXX" (25) + "/test-dir.0-0/mdtest_tree.0/
  // file.mdtest.1.0" (43).
  for (const std::size_t longest : {std::size_t{PATH_MAX} - 1, std::size_t{PATH_MAX}}) {
    INFO("longest path " << longest << " bytes");
    const std::vector<fs::path> targets{"/" + std::string(longest - 68 - 1, 't')};
    CHECK(md::longest_full_path(c, longest_run_dir_path(targets[0], true).string(), 2) ==
          targets[0].string() + "/iobench.4194303.XXXXXXXX/test-dir.0-0/mdtest_tree.0/" +
              "file.mdtest.1.0");
    if (longest < PATH_MAX) {
      CHECK_NOTHROW(md::check_full_path_lengths(c, targets, 2));
      continue;
    }
    try {
      md::check_full_path_lengths(c, targets, 2);
      FAIL("a path of PATH_MAX bytes was accepted");
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("depth=0 branch=1 unique_dir=false items_per_dir=1 "
                                           "iterations=1 ranks=1 (2 in all): the longest path "
                                           "this run's ops would name is 4096 bytes, 4097 with "
                                           "its terminating NUL") &&
                               Catch::Contains("a smaller depth (mdtest -z) or a shorter target"));
    }
  }
}

TEST_CASE("mdtest paths=full offers a shorter tree_dir path, not a smaller depth, for tree_dir",
          "[mdtest][paths]") {
  md::MdtestConfig c = config_of({{"items", "1"}, {"files_only", "true"}});
  // TREE_DIR + "/test-dir.0-0/mdtest_tree.0/file.mdtest.0.0" (43), no run directory: 4096 bytes.
  c.tree_dir = "/" + std::string(PATH_MAX - 43 - 1, 't');
  CHECK(md::longest_full_path(c, c.tree_dir, 1).size() == PATH_MAX);
  const std::vector<fs::path> targets{"/unused"};
  try {
    md::check_full_path_lengths(c, targets, 1);
    FAIL("a tree_dir path of PATH_MAX bytes was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("mdtest: paths=full with tree_dir=/ttt") &&
                         Catch::Contains("would name is 4096 bytes") &&
                         Catch::Contains("use paths=dirfd (each op on its open directory, no "
                                         "path length limit), or a shorter tree_dir path (move "
                                         "the tree)"));
    CHECK(what.find("smaller depth") == std::string::npos);
  }
  // One byte shorter fits.
  c.tree_dir.pop_back();
  CHECK_NOTHROW(md::check_full_path_lengths(c, targets, 1));
}
