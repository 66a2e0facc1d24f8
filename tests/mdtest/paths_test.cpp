// mdtest's paths param: full (every item and tree op by its whole path from the target as given,
// as mdtest 4) and dirfd (*at calls on the open leaf directory) make the same tree and counts, and
// full mode really resolves the user's path string on every op.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>

#include "plugins/mdtest/mdtest_workload.hpp"
#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::TempDir;
using iobench::test::mdtest::list_tree;
using iobench::test::mdtest::phase_ops;
using iobench::test::mdtest::run_mdtest;
namespace fs = std::filesystem;
namespace md = iobench::plugins::mdtest;

namespace {

std::string attribute(const StepResult& step, const std::string& key) {
  for (const auto& [k, v] : step.attributes) {
    if (k == key && std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  }
  return {};
}

// Points the symbolic link `link` at `to` (a new link renamed over the old one).
void repoint(const fs::path& link, const fs::path& to) {
  const fs::path fresh = link.string() + ".new";
  fs::create_directory_symlink(to, fresh);
  fs::rename(fresh, link);
}

// The untimed context of a step, for prepare() and after_phase() (one process, no attributes).
class Prepare final : public PrepareContext {
 public:
  Prepare(std::span<const Target> targets, const Engine& engine)
      : targets_(targets), engine_(engine) {}
  [[nodiscard]] std::span<const Target> targets() const override { return targets_; }
  [[nodiscard]] const Engine& engine() const override { return engine_; }
  [[nodiscard]] std::uint64_t seed() const override { return 99; }
  void set_attribute(const std::string&, AttributeValue) override {}
  void warn(const std::string&) override {}
  void skip_remaining_phases(const std::string&) override {}

 private:
  std::span<const Target> targets_;
  const Engine& engine_;
};

// The set-up the tests of a path that moves share: an earlier run's tree of `shape` made and kept
// (phases=create) in dir/target, a directory dir/other holding the same test and tree
// directories without the files, the user's symbolic link dir/link to the kept run directory,
// and a workload of `shape` with `phases` on tree_dir=link, whose target is the link as the
// runner gives it (a descriptor opened once, its path as given), with a harness of its first
// phase.
class LinkedTree {
 public:
  LinkedTree(const std::string& name, const std::map<std::string, std::string>& shape,
             const std::string& phases)
      : dir_(name) {
    auto create = shape;
    create["phases"] = "create";
    const auto created = run_mdtest(dir_.path(), create, true);
    REQUIRE(created.step.status == Status::kOk);
    REQUIRE(created.left_behind.size() == 1);
    kept = dir_.path() / "target" / created.left_behind[0];
    other = dir_.path() / "other";
    fs::create_directories(other / "test-dir.0-0" / "mdtest_tree.0");
    link = dir_.path() / "link";
    fs::create_directory_symlink(kept, link);
    auto params = shape;
    params["phases"] = phases;
    params["tree_dir"] = link.string();
    workload = std::make_unique<md::MdtestWorkload>(
        md::make_config(Params::validate(md::param_specs(), params, "mdtest"), 1));
    run_dir = test::open_confined(link);
    target = Target{.user_path = link, .run_dir = run_dir.view(), .is_existing_file = false};
    harness = std::make_unique<testing::WorkerHarness>(
        workload->phases().at(0), std::span<const Target>(&target, 1), *engine);
  }

  [[nodiscard]] std::span<const Target> targets() const { return {&target, 1}; }

 private:
  TempDir dir_;

 public:
  fs::path kept;
  fs::path other;
  fs::path link;
  std::unique_ptr<md::MdtestWorkload> workload;
  OwnedConfinedDir run_dir;
  Target target;
  std::unique_ptr<Engine> engine = make_psync_engine();
  std::unique_ptr<testing::WorkerHarness> harness;
};

}  // namespace

TEST_CASE("mdtest paths=full refuses a path others can change, before writing anything",
          "[mdtest][paths]") {
  TempDir dir("mdtest_paths_trust");
  // A directory on the target's path that every user may write, not sticky: another user could
  // rename the target's parent away and put their own in its place during a phase.
  const fs::path open = dir.path() / "open";
  const fs::path target = open / "target";
  fs::create_directories(target);
  fs::permissions(open, fs::perms::all, fs::perm_options::replace);
  auto r = test::run_cli({"run", "mdtest", "-d", target.string(), "items=4", "files_only=true"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(open.string() + " on the path of target " + target.string()) &&
                        Catch::Contains("writable by others") &&
                        Catch::Contains("use paths=dirfd"));
  CHECK(list_tree(target).empty());
  // tree_dir's path too (an earlier run's, as it looks).
  const fs::path tree = open / "tree";
  fs::create_directories(tree / "test-dir.0-0");
  r = test::run_cli({"run", "mdtest", "-d", dir.path().string(), "items=4", "files_only=true",
                     "phases=stat", "paths=full", "tree_dir=" + tree.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(open.string() + " on the path of tree_dir"));
  // By descriptor the same target is fine.
  r = test::run_cli(
      {"run", "mdtest", "-d", target.string(), "items=4", "files_only=true", "paths=dirfd"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  // Sticky (as /tmp): another user can add names but not move or replace the user's own.
  fs::permissions(open, fs::perms::all | fs::perms::sticky_bit, fs::perm_options::replace);
  r = test::run_cli({"run", "mdtest", "-d", target.string(), "items=4", "files_only=true"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(list_tree(target).empty());
}

TEST_CASE("mdtest paths=full fails the step when a phase ran on a path that moved",
          "[mdtest][paths]") {
  LinkedTree t("mdtest_paths_after", {{"items_per_dir", "2"}, {"files_only", "true"}}, "stat");
  Prepare prepare(t.targets(), *t.engine);
  t.workload->prepare(prepare);
  auto worker = t.workload->make_worker(0, t.harness->context());
  REQUIRE(worker != nullptr);
  t.harness->run(*worker);
  CHECK(t.harness->ops()[0].ops == 2);
  // The path names another directory once the phase is over (it may have done so during it):
  // the untimed check after the phase fails the step, naming the path.
  repoint(t.link, t.other);
  PhaseResult result;
  result.name = "File stat";
  try {
    t.workload->after_phase(0, result, prepare);
    FAIL("paths=full accepted a phase run on a path that moved");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains((t.link / "test-dir.0-0").string()) &&
                             Catch::Contains("after 'File stat'"));
  }
}

TEST_CASE("mdtest paths=full reads and removes by the path as it is now, nothing outside the run",
          "[mdtest][paths]") {
  const std::string phases = GENERATE(std::string("read"), std::string("remove"));
  INFO("phases=" << phases);
  LinkedTree t(
      "mdtest_paths_rm",
      {{"items_per_dir", "3"}, {"files_only", "true"}, {"write_bytes", "8"}, {"read_bytes", "8"}},
      phases);
  // A file of the user's own in their other directory.
  std::ofstream(t.other / "test-dir.0-0" / "mdtest_tree.0" / "own.txt") << "mine";
  REQUIRE(t.workload->phases().at(0).name == (phases == "read" ? "File read" : "File removal"));
  auto worker = t.workload->make_worker(0, t.harness->context());
  REQUIRE(worker != nullptr);
  repoint(t.link, t.other);
  // open(2) / unlink(2) of "<link>/test-dir.0-0/mdtest_tree.0/file.mdtest.0.0" through the link
  // as it is now: not there, so the phase fails at its first item.
  try {
    t.harness->run(*worker);
    FAIL("paths=full acted through the descriptor, not the user's path");
  } catch (const IoError& e) {
    CHECK(e.error_number() == ENOENT);
    CHECK_THAT(
        e.what(),
        Catch::Contains((t.link / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.0.0").string()));
  }
  CHECK(t.harness->ops()[0].ops == 0);
  // Nothing removed: the run's files by descriptor were never acted on, the user's untouched.
  CHECK(list_tree(t.kept).size() == 5);  // test-dir.0-0, mdtest_tree.0, 3 files
  CHECK(list_tree(t.other) == std::vector<std::string>{"test-dir.0-0", "test-dir.0-0/mdtest_tree.0",
                                                       "test-dir.0-0/mdtest_tree.0/own.txt"});
}

TEST_CASE("mdtest paths full and dirfd make the same tree and act on every item",
          "[mdtest][paths]") {
  const std::map<std::string, std::string> base{
      {"ranks", "2"},       {"worker_mode", "threads"}, {"branch", "2"},
      {"depth", "2"},       {"items_per_dir", "3"},     {"write_bytes", "16"},
      {"read_bytes", "16"}, {"unique_dir", "true"},     {"shift", "1"}};
  std::map<std::string, std::vector<std::string>> trees;
  for (const std::string mode : {"full", "dirfd"}) {
    INFO("paths=" << mode);
    auto params = base;
    params["paths"] = mode;
    // Created and kept: the tree each mode made, walked.
    auto create = params;
    create["phases"] = "create";
    TempDir dir("mdtest_paths_" + mode);
    const auto created = run_mdtest(dir.path(), create, true);
    INFO(created.step.message);
    REQUIRE(created.step.status == Status::kOk);
    CHECK(attribute(created.step, "paths") == mode);
    trees[mode] = created.tree;
    // Every phase: the same counts, nothing left.
    TempDir dir2("mdtest_paths_all_" + mode);
    const auto all = run_mdtest(dir2.path(), params);
    INFO(all.step.message);
    REQUIRE(all.step.status == Status::kOk);
    // 2 ranks x 7 directories x 3 items; each rank's own tree of 7 directories.
    CHECK(phase_ops(all.step, "Tree creation") == 14);
    for (const char* phase :
         {"Directory creation", "Directory stat", "Directory rename", "Directory removal",
          "File creation", "File stat", "File read", "File removal"}) {
      INFO(phase);
      CHECK(phase_ops(all.step, phase) == 42);
    }
    CHECK(phase_ops(all.step, "Tree removal") == 14);
    CHECK(all.left_behind.empty());
  }
  // test-dir.0-0, 2 trees of 7 directories, 42 directories and 42 files.
  CHECK(trees["full"].size() == 1 + 14 + 84);
  CHECK(trees["full"] == trees["dirfd"]);
}

TEST_CASE("mdtest paths=full follows the user's path string on every op, dirfd the descriptor",
          "[mdtest][paths]") {
  const std::string mode = GENERATE(std::string("full"), std::string("dirfd"));
  INFO("paths=" << mode);
  // The user names the tree through a symbolic link component, as a target given as
  // /mnt/link/... where link is a directory's link; `other` has the same tree's directories
  // without its files, where the link will point later.
  LinkedTree t("mdtest_paths_link",
               {{"items_per_dir", "4"}, {"files_only", "true"}, {"paths", mode}}, "stat");
  REQUIRE(t.workload->phases().at(0).name == "File stat");
  REQUIRE(t.run_dir.path() == t.link);
  auto worker = t.workload->make_worker(0, t.harness->context());
  REQUIRE(worker != nullptr);

  // After the worker opened the test directory, the user's path names another directory.
  repoint(t.link, t.other);
  if (mode == "full") {
    // Each stat(2) resolves "<link>/test-dir.0-0/mdtest_tree.0/file.mdtest.0.0" again, through
    // the link as it is now: the file is not there.
    try {
      t.harness->run(*worker);
      FAIL("paths=full stat'ed through the descriptor, not the user's path");
    } catch (const IoError& e) {
      CHECK(e.error_number() == ENOENT);
      CHECK_THAT(e.what(),
                 Catch::Contains(
                     (t.link / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.0.0").string()));
    }
    CHECK(t.harness->ops()[0].ops == 0);
  } else {
    // fstatat on the open leaf directory: the link is never resolved again.
    t.harness->run(*worker);
    CHECK(t.harness->ops()[0].ops == 4);
  }
  // Nothing was made in the directory the link points at now.
  CHECK(list_tree(t.other) ==
        std::vector<std::string>{"test-dir.0-0", "test-dir.0-0/mdtest_tree.0"});
  CHECK(list_tree(t.kept).size() == 6);  // test-dir.0-0, mdtest_tree.0, 4 files
}

TEST_CASE("mdtest paths=full refuses a test directory whose path names another directory",
          "[mdtest][paths]") {
  LinkedTree t("mdtest_paths_moved", {{"items_per_dir", "2"}, {"files_only", "true"}}, "remove");
  // The path moved to another directory before the phase: the worker refuses to begin.
  repoint(t.link, t.other);
  try {
    (void)t.workload->make_worker(0, t.harness->context());
    FAIL("paths=full began by a path that names another directory");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("no longer names the test directory this run opened"));
  }
  // Nothing removed, in either directory.
  CHECK(list_tree(t.kept).size() == 4);
  CHECK(list_tree(t.other).size() == 2);
}

TEST_CASE("mdtest refuses a paths value naming the param, the value and the accepted ones",
          "[mdtest][paths]") {
  CHECK_THROWS_WITH(
      md::make_config(
          Params::validate(md::param_specs(), {{"items", "4"}, {"paths", "relative"}}, "mdtest"),
          1),
      Catch::Contains("paths='relative' is not one of full, dirfd"));
}
