// io500's paths param on one mdtest worker: full names every file by its whole path from the
// target as given (a re-pointed link component is followed), dirfd by the open directory; full
// refuses, before the phase, a directory whose path names another.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/run_dir_name.hpp>
#include <iobench/testing.hpp>
#include <span>
#include <string>

#include "plugins/io500/io500_workers.hpp"
#include "plugins/io500/io500_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using iobench::test::TempDir;
namespace fs = std::filesystem;
namespace io5 = iobench::plugins::io500;

namespace {

// Points the symbolic link `link` at `to` (a new link renamed over the old one).
void repoint(const fs::path& link, const fs::path& to) {
  const fs::path fresh = link.string() + ".new";
  fs::create_directory_symlink(to, fresh);
  fs::rename(fresh, link);
}

// A data directory as io500 makes it, with rank 0's mdtest-easy directory holding `files`
// empty files (an mdtest-easy-write's).
fs::path make_data(const fs::path& root, int files) {
  const fs::path dir = root / io5::mdtest_easy_dir(0);
  fs::create_directories(dir);
  for (int n = 0; n < files; ++n) std::ofstream(dir / ("file.mdtest.0." + std::to_string(n)));
  return root;
}

std::size_t count_entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// The data directories of a test in `dir`: "kept" with 4 mdtest-easy files, "other" with
// `other_files`, and "link", the user's path, naming kept when the run opened it (`data`).
struct LinkedData {
  fs::path kept;
  fs::path other;
  fs::path link;
  OwnedConfinedDir data;
};

LinkedData link_data(const fs::path& dir, int other_files) {
  const fs::path kept = make_data(dir / "kept", 4);
  const fs::path link = dir / "link";
  fs::create_directory_symlink(kept, link);
  return LinkedData{.kept = kept,
                    .other = make_data(dir / "other", other_files),
                    .link = link,
                    .data = test::open_confined(link)};
}

// A config of `ranks` ranks a process, each with `easy` mdtest-easy and `hard` mdtest-hard items
// (what the paths=full length of a run depends on).
io5::Io500Config items_config(std::uint32_t ranks, std::uint64_t easy, std::uint64_t hard) {
  io5::Io500Config c;
  c.ranks = ranks;
  c.mdtest_easy_items = easy;
  c.mdtest_hard_items = hard;
  return c;
}

io5::RankJob stat_job(const ConfinedDir& data, bool full) {
  io5::RankJob job;
  job.phase = io5::Io500Phase::kMdtestEasyStat;
  job.count = 4;
  job.data = data;
  job.paths = full ? plugins::PathMode::kFull : plugins::PathMode::kDirfd;
  return job;
}

const PhaseSpec kSpec{.name = "mdtest-easy-stat",
                      .op_names = {"stat"},
                      .counter_names = {"done", "mismatches", "at_stonewall", "stonewall_ns"}};

}  // namespace

TEST_CASE("io500 paths=full stats by the user's path string on every file, dirfd the descriptor",
          "[io500][paths]") {
  const bool full = GENERATE(true, false);
  INFO("paths=" << (full ? "full" : "dirfd"));
  TempDir dir("io500_paths_link");
  const LinkedData linked = link_data(dir.path(), 0);
  const Target target{
      .user_path = linked.link, .run_dir = linked.data.view(), .is_existing_file = false};
  const auto engine = make_psync_engine();
  testing::WorkerHarness harness(kSpec, std::span<const Target>(&target, 1), *engine);
  auto worker = io5::make_io500_worker(stat_job(linked.data.view(), full));
  // After the worker opened its directory, the user's path names another.
  repoint(linked.link, linked.other);
  if (full) {
    try {
      harness.run(*worker);
      FAIL("paths=full stat'ed through the descriptor, not the user's path");
    } catch (const IoError& e) {
      CHECK(e.error_number() == ENOENT);
      CHECK_THAT(
          e.what(),
          Catch::Contains((linked.link / io5::mdtest_easy_dir(0) / "file.mdtest.0.0").string()));
    }
    CHECK(harness.ops()[0].ops == 0);
  } else {
    harness.run(*worker);
    CHECK(harness.ops()[0].ops == 4);
  }
  CHECK(count_entries(linked.kept / io5::mdtest_easy_dir(0)) == 4);
  CHECK(count_entries(linked.other / io5::mdtest_easy_dir(0)) == 0);
}

TEST_CASE("io500 paths=full refuses, when the worker is made, a directory whose path moved",
          "[io500][paths]") {
  TempDir dir("io500_paths_moved");
  const LinkedData linked = link_data(dir.path(), 4);
  repoint(linked.link, linked.other);
  io5::RankJob job = stat_job(linked.data.view(), true);
  job.phase = io5::Io500Phase::kMdtestEasyDelete;
  // Untimed, before the phase's barrier: no worker, nothing removed in either directory.
  try {
    (void)io5::make_io500_worker(job);
    FAIL("paths=full made a worker for a path that names another directory");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains((linked.link / io5::mdtest_easy_dir(0)).string()) &&
                             Catch::Contains("no longer names the test directory this run opened"));
  }
  CHECK(count_entries(linked.kept / io5::mdtest_easy_dir(0)) == 4);
  CHECK(count_entries(linked.other / io5::mdtest_easy_dir(0)) == 4);
}

TEST_CASE(
    "io500 find opens its root beneath the held data directory with dirfd and by path with full",
    "[io500][paths]") {
  const bool full = GENERATE(true, false);
  const bool easy = GENERATE(true, false);
  INFO("paths=" << (full ? "full" : "dirfd") << (easy ? " find-easy" : " find"));
  TempDir dir("io500_paths_find");
  // The run's data directory, as io500's (RUN/datafiles), named through the user's link to the run
  // directory: 4 mdtest-easy files and one more whose name matches -name *01*.
  const fs::path kept = make_data(dir.path() / "kept" / "datafiles", 4);
  std::ofstream(kept / "mdtest-easy" / "kept01");
  make_data(dir.path() / "other" / "datafiles", 0);
  const fs::path link = dir.path() / "link";
  fs::create_directory_symlink(dir.path() / "kept", link);
  const OwnedConfinedDir data = test::open_confined(link / "datafiles");
  const Target target{.user_path = link, .run_dir = data.view(), .is_existing_file = false};
  const auto engine = make_psync_engine();
  const PhaseSpec spec{
      .name = "find", .op_names = {"find"}, .counter_names = {"entries_scanned", "matched"}};
  testing::WorkerHarness harness(spec, std::span<const Target>(&target, 1), *engine);
  io5::RankJob job;
  job.phase = easy ? io5::Io500Phase::kFindEasy : io5::Io500Phase::kFind;
  job.data = data.view();
  job.find_root = easy ? "mdtest-easy" : ".";
  job.paths = full ? plugins::PathMode::kFull : plugins::PathMode::kDirfd;
  auto worker = io5::make_io500_worker(job);
  // After the run opened its data directory, the user's path names another.
  repoint(link, dir.path() / "other");
  harness.run(*worker);
  // dirfd walks the directory the run holds; full, as pfind, the one the path names now.
  // kept: mdtest-easy, test-dir.0-0, mdtest_tree.0.0, 4 files, kept01; other: the 3 directories.
  const std::uint64_t scanned = full ? (easy ? 2 : 3) : (easy ? 7 : 8);
  CHECK(harness.counter(io5::kDoneCounter) == scanned);
  // find-easy's -name *01* alone: kept01 (find's -size 3901c matches none of these).
  CHECK(harness.counter(io5::kMatchedCounter) == (easy && !full ? 1 : 0));
}

TEST_CASE("io500 longest full path is the longer of mdtest-easy's and mdtest-hard's last file",
          "[io500][paths]") {
  io5::Io500Config c = items_config(2, 1000, 1);
  CHECK(io5::longest_full_path(c, "/t/iobench.7.XXXXXXXX", 2) ==
        "/t/iobench.7.XXXXXXXX/datafiles/mdtest-easy/test-dir.0-0/mdtest_tree.1.0/"
        "file.mdtest.1.999");
  // mdtest-hard's item numbers the longer: its file, in the one shared directory.
  c.mdtest_easy_items = 1;
  c.mdtest_hard_items = 1000000000;
  CHECK(io5::longest_full_path(c, "/t/iobench.7.XXXXXXXX", 2) ==
        "/t/iobench.7.XXXXXXXX/datafiles/mdtest-hard/test-dir.0-0/mdtest_tree.0/"
        "file.mdtest.1.999999999");
  // Every process's ranks: the highest of 24 is 23.
  CHECK(io5::longest_full_path(c, "r", 24) ==
        "r/datafiles/mdtest-hard/test-dir.0-0/mdtest_tree.0/file.mdtest.23.999999999");
}

TEST_CASE("io500 paths=full accepts 4095 bytes and refuses 4096, counting every process's ranks",
          "[io500][paths]") {
  io5::Io500Config c = items_config(1, 1, 1);
  // 2 processes: rank 1's mdtest-easy file in the run directory another process made:
  // TARGET + "/iobench.4194303.XXXXXXXX" (25) + "/datafiles/" (11) +
  // "mdtest-easy/test-dir.0-0/mdtest_tree.1.0/file.mdtest.1.0" (56).
  for (const std::size_t longest : {std::size_t{4095}, std::size_t{4096}}) {
    INFO("longest path " << longest << " bytes");
    const fs::path target = "/" + std::string(longest - 92 - 1, 't');
    CHECK(io5::longest_full_path(c, longest_run_dir_path(target, true).string(), 2) ==
          target.string() + "/iobench.4194303.XXXXXXXX/datafiles/mdtest-easy/test-dir.0-0/" +
              "mdtest_tree.1.0/file.mdtest.1.0");
    if (longest == 4095) {
      CHECK_NOTHROW(io5::check_full_path_length(c, target, 2));
      continue;
    }
    try {
      io5::check_full_path_length(c, target, 2);
      FAIL("a path of 4096 bytes was accepted");
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("ranks=1 (2 in all) mdtest_easy_items=1 "
                                           "mdtest_hard_items=1: the longest path this run's "
                                           "ops would name is 4096 bytes, 4097 with its "
                                           "terminating NUL"));
    }
  }
  // paths=dirfd: nothing to fit.
  c.paths = plugins::PathMode::kDirfd;
  CHECK_NOTHROW(io5::check_full_path_length(c, "/" + std::string(5000, 't'), 2));
}
