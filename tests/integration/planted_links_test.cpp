// bonnie, tiotest and disk with symbolic links planted inside their run directories before the
// first phase or between phases: every such link is refused (or removed as itself), never
// followed, and a sentinel tree beside the target stays byte-identical. And the other side of
// it: a target the user names through their own link to a file works for reads.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/runner.hpp>
#include <string>

#include "tests/support/planting.hpp"

namespace fs = std::filesystem;
using iobench::Status;
using iobench::StepResult;
using iobench::Target;
using iobench::test::kBeforeFirstPhase;
using iobench::test::SentinelTree;

namespace {

/// Replaces `path` (inside a run directory) by a symbolic link to `to`, keeping the original
/// under another name in the same directory so the run's own removal still finds it.
void swap_for_link(const fs::path& path, const fs::path& to) {
  fs::rename(path, fs::path(path).concat(".moved"));
  if (fs::is_directory(to)) {
    fs::create_directory_symlink(to, path);
  } else {
    fs::create_symlink(to, path);
  }
}

/// Plants once, after phase `when`.
iobench::Registry planting_after(const std::string& workload, std::size_t when,
                                 std::function<void(const fs::path& run_dir)> plant) {
  return iobench::test::registry_with_planting(
      workload, [when, plant](std::size_t phase, std::span<const Target> targets) {
        if (phase == when) plant(targets[0].run_dir.path());
      });
}

void check_refused(const StepResult& step, const SentinelTree& tree,
                   const std::vector<std::string>& before) {
  CHECK(step.status == Status::kFailed);
  CHECK_THAT(step.message, Catch::Contains("symbolic link") || Catch::Contains("File exists"));
  CHECK(tree.digest() == before);
  CHECK(iobench::test::TempDir::list(tree.target()).empty());
}

}  // namespace

TEST_CASE("bonnie refuses links planted between phases", "[confinement][bonnie]") {
  struct Case {
    const char* what;
    std::map<std::string, std::string> params;
    std::function<void(const fs::path&, const SentinelTree&)> plant;
  };
  const std::vector<Case> cases{
      {"scratch file -> victim before rewrite",
       {{"bonnie_s", "1:4k:10:1"}, {"files", "0"}, {"phases", "rewrite"}},
       [](const fs::path& run, const SentinelTree& t) {
         swap_for_link(run / "Bonnie.0", t.victim());
       }},
      {"scratch file -> victim before get_block",
       {{"bonnie_s", "1:4k:10:1"}, {"files", "0"}, {"phases", "get_block"}},
       [](const fs::path& run, const SentinelTree& t) {
         swap_for_link(run / "Bonnie.0", t.victim());
       }},
      {"test directory -> outside before seq_stat",
       {{"size", "0"}, {"files", "1:100:100"}, {"phases", "seq_stat"}},
       [](const fs::path& run, const SentinelTree& t) {
         swap_for_link(run / "Bonnie.0.d", t.outside());
       }},
      {"subdirectory -> outside before ran_stat",
       {{"size", "0"}, {"files", "1:100:100:3"}, {"phases", "ran_stat"}},
       [](const fs::path& run, const SentinelTree& t) {
         swap_for_link(run / "Bonnie.0.d" / "00001", t.outside() / "dir");
       }},
      {"subdirectory -> outside before seq_del",
       {{"size", "0"}, {"files", "1:100:100:3"}, {"phases", "seq_del"}},
       [](const fs::path& run, const SentinelTree& t) {
         swap_for_link(run / "Bonnie.0.d" / "00002", t.outside());
       }},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    SentinelTree tree;
    auto params = c.params;
    params.emplace("ram", "0");
    const auto registry =
        planting_after("bonnie", 0, [&](const fs::path& run) { c.plant(run, tree); });
    const auto before = tree.digest();
    check_refused(iobench::test::run_planted(registry, params, {tree.target()}), tree, before);
  }
}

TEST_CASE("bonnie's stat and delete phases lstat and unlink a planted file link",
          "[confinement][bonnie]") {
  SentinelTree tree;
  const auto registry = planting_after("bonnie", 0, [&](const fs::path& run) {
    // One created file replaced by a link to the victim: the entry count is unchanged.
    const fs::path dir = run / "Bonnie.0.d";
    const fs::path first = fs::directory_iterator(dir)->path();
    fs::remove(first);
    fs::create_symlink(tree.victim(), first);
  });
  const auto before = tree.digest();
  const StepResult step = iobench::test::run_planted(
      registry,
      {{"ram", "0"}, {"size", "0"}, {"files", "1:100:100"}, {"phases", "seq_stat,seq_del"}},
      {tree.target()});
  CHECK(step.status == Status::kOk);
  CHECK(tree.digest() == before);
  CHECK(iobench::test::TempDir::list(tree.target()).empty());
}

TEST_CASE("tiotest refuses a thread file replaced by a link between phases",
          "[confinement][tiotest]") {
  for (const char* phases : {"read", "random_write"}) {
    INFO(phases);
    SentinelTree tree;
    const auto registry = planting_after("tiotest", 0, [&](const fs::path& run) {
      swap_for_link(run / "_tiotest.thr0", tree.victim());
    });
    std::map<std::string, std::string> params{
        {"threads", "2"}, {"size", "64k"}, {"block_size", "4k"}, {"random_ops", "10"}};
    // Skip every phase but the one after the write.
    params["skip"] =
        std::string(phases) == "read" ? "random_write,random_read" : "read,random_read";
    const auto before = tree.digest();
    check_refused(iobench::test::run_planted(registry, params, {tree.target()}), tree, before);
  }
}

TEST_CASE("disk refuses a link planted before its write or between prime and read",
          "[confinement][disk]") {
  {
    SentinelTree tree;
    const auto registry = iobench::test::registry_with_planting(
        "disk", [&](std::size_t phase, std::span<const Target> targets) {
          if (phase == kBeforeFirstPhase) {
            fs::create_symlink(tree.victim(), targets[0].run_dir.path() / "bigfile");
          }
        });
    const auto before = tree.digest();
    check_refused(
        iobench::test::run_planted(
            registry, {{"bs", "4k"}, {"blocks", "4"}, {"operation", "write"}}, {tree.target()}),
        tree, before);
  }
  {
    SentinelTree tree;
    const auto registry = planting_after(
        "disk", 0, [&](const fs::path& run) { swap_for_link(run / "bigfile", tree.victim()); });
    const auto before = tree.digest();
    check_refused(
        iobench::test::run_planted(
            registry, {{"bs", "4k"}, {"blocks", "4"}, {"operation", "read"}, {"prime", "true"}},
            {tree.target()}),
        tree, before);
  }
}

TEST_CASE("a target named through the user's own link to a file passes validation and is read",
          "[confinement][disk][tiotest]") {
  iobench::test::TempDir dir("user-link");
  const fs::path data = dir.path() / "device.img";
  std::ofstream(data, std::ios::binary) << std::string(1 << 20, 'z');
  const fs::path link = dir.path() / "by-id-disk";
  fs::create_symlink(data, link);
  const iobench::Registry registry = iobench::test::make_full_registry();
  const std::vector<iobench::Step> steps{
      {.name = "disk",
       .workload = "disk",
       .params = {{"bs", "4k"}, {"blocks", "256"}, {"operation", "read"}},
       .targets = {link}},
      {.name = "tiotest",
       .workload = "tiotest",
       .params =
           {{"threads", "1"}, {"size", "512k"}, {"raw", "true"}, {"skip", "write,random_write"}},
       .targets = {link}}};
  iobench::test::CapturingReporter reporter;
  const iobench::RunResult run = iobench::Runner(registry, {}).run(steps, reporter);
  REQUIRE(run.steps.size() == 2);
  for (const StepResult& step : run.steps) {
    INFO(step.name << ": " << step.message);
    CHECK(step.status == Status::kOk);
    CHECK(step.phases.back().ops.at(0).bytes > 0);
  }
  CHECK(run.steps[0].phases.back().ops.at(0).bytes == 1 << 20);
  CHECK(iobench::test::TempDir::list(dir.path()) ==
        std::vector<std::string>{"by-id-disk", "device.img"});
}

TEST_CASE("a block device named through a /dev/disk/by-id style link is read", "[confinement]") {
  iobench::test::TempDir dir("user-blk");
  const fs::path image = dir.path() / "disk.img";
  std::ofstream(image, std::ios::binary) << std::string(2 << 20, 'q');
  const iobench::test::CliResult attach =
      iobench::test::run_command({"losetup", "-f", "--show", image.string()});
  if (attach.exit_code != 0 || attach.out.empty()) {
    WARN("skipped: losetup cannot attach a loop device here (needs root): " << attach.err);
    return;
  }
  const std::string device = attach.out.substr(0, attach.out.find('\n'));
  const fs::path link = dir.path() / "by-id" / "ata-TEST_DISK";
  fs::create_directories(link.parent_path());
  fs::create_symlink(device, link);
  const iobench::Registry registry = iobench::test::make_full_registry();
  const std::vector<iobench::Step> steps{
      {.name = "disk",
       .workload = "disk",
       .params = {{"bs", "4k"}, {"blocks", "512"}, {"operation", "read"}},
       .targets = {link}},
      {.name = "tiotest",
       .workload = "tiotest",
       .params =
           {{"threads", "1"}, {"size", "1m"}, {"raw", "true"}, {"skip", "write,random_write"}},
       .targets = {link}}};
  iobench::test::CapturingReporter reporter;
  const iobench::RunResult run = iobench::Runner(registry, {}).run(steps, reporter);
  (void)iobench::test::run_command({"losetup", "-d", device});
  REQUIRE(run.steps.size() == 2);
  for (const StepResult& step : run.steps) {
    INFO(step.name << ": " << step.message);
    CHECK(step.status == Status::kOk);
  }
  CHECK(run.steps[0].phases.back().ops.at(0).bytes == 2 << 20);
}
