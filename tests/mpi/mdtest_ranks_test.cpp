// mdtest's ranks across MPI processes: under mpirun every process's workers are mdtest ranks of
// one run, numbered process by process, all in rank 0's one test directory. The trees are walked
// (every rank's items, once), the shift is seen by which process misses a rank's stashed items,
// and the SUMMARY rate is the aggregate's items over its wall time (the slowest rank's end).
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iobench/result_json.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/mdtest/summary.hpp"
#include "tests/mpi/mpi_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using MdJson = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The run directory below `dir` holding mdtest's test directory, and how many run directories
// there are (with --keep every rank keeps its own, only rank 0's holds the tree).
fs::path tree_run_dir(const fs::path& dir, std::size_t& run_dirs) {
  fs::path found;
  run_dirs = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++run_dirs;
    if (fs::exists(e.path() / "test-dir.0-0")) {
      CHECK(found.empty());  // one tree for all ranks
      found = e.path();
    } else {
      CHECK(TempDir::list(e.path()).empty());
    }
  }
  return found;
}

// Item names ("file.mdtest.<rank>.<n>", "dir.mdtest.<rank>.<n>") below `root`; each must be new.
std::set<std::string> item_names(const fs::path& root) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (name.find(".mdtest.") == std::string::npos) continue;
    CHECK(names.insert(name).second);
  }
  return names;
}

// The JSON document of a run under mpirun -n 2 (RankedJsonRun::json): each process's results
// ("ranks"), two, and rank 0's aggregate of them.
class TwoRanksJson {
 public:
  explicit TwoRanksJson(const fs::path& json)
      : doc_(MdJson::parse(read_file(json))), aggregate_(parse_result_json(read_file(json))) {
    REQUIRE(results().size() == 2);
  }
  // Each process's result of the run's first step.
  [[nodiscard]] const MdJson& results() const {
    return doc_.at("ranks").at("steps").at(0).at("results");
  }
  // The aggregate's first step.
  [[nodiscard]] const StepResult& step() const { return aggregate_.run.steps.at(0); }

 private:
  MdJson doc_;
  ResultDocument aggregate_;
};

// A create-only run of `processes` x `workers` mdtest ranks (branch 2, depth 1: three
// directories of 2 items each) leaves, in rank 0's run directory, exactly each rank's 6 files
// and 6 directories.
void check_create_only(int processes, int workers) {
  TempDir dir("mdmpi");
  const CliResult result = run_ranked(
      processes, {"run", "mdtest", "-d", dir.path().string(), fmt::format("ranks={}", workers),
                  "worker_mode=threads", "items=6", "branch=2", "depth=1", "phases=create",
                  "--keep", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  std::size_t run_dirs = 0;
  const fs::path run_dir = tree_run_dir(dir.path(), run_dirs);
  CHECK(run_dirs >= 1);
  REQUIRE(!run_dir.empty());
  const int ranks = processes * workers;
  std::set<std::string> expected;
  for (int r = 0; r < ranks; ++r) {
    for (int n = 0; n < 6; ++n) {
      expected.insert(fmt::format("file.mdtest.{}.{}", r, n));
      expected.insert(fmt::format("dir.mdtest.{}.{}", r, n));
    }
  }
  CHECK(item_names(run_dir / "test-dir.0-0") == expected);
  const MdJson doc = MdJson::parse(result.out);
  const MdJson& step = doc.at("steps").at(0);
  CHECK(step.at("attributes").at("tasks") == ranks);
  for (const MdJson& phase : step.at("phases")) {
    if (phase.at("name") == "File creation") CHECK(phase.at("ops") == 6 * ranks);
    if (phase.at("name") == "Tree creation") CHECK(phase.at("ops") == 3);  // rank 0's tree
  }
}

// Rank 0's message in a failed run's JSON: "rank R: ..." of the rank whose own failure it was.
std::string failure_of(const CliResult& result) {
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 1);
  return MdJson::parse(result.out).at("steps").at(0).at("message").get<std::string>();
}

// A stat-only run on the tree of a create-only run in `tree` fails on the process whose rank
// looks for the items of mdtest rank `missing`, stashed away: with the shift, another process's.
void check_shifted_stat(int processes, int workers, int shift) {
  TempDir dir("mdmpi");
  const fs::path made = dir.path() / "made";
  const fs::path stat_dir = dir.path() / "stat";
  fs::create_directories(made);
  fs::create_directories(stat_dir);
  const std::vector<std::string> common = {fmt::format("ranks={}", workers),
                                           "worker_mode=threads",
                                           "items=4",
                                           "files_only=true",
                                           "-q",
                                           "--format",
                                           "json"};
  std::vector<std::string> create_run = {"run",         "mdtest",        "-d",
                                         made.string(), "phases=create", "--keep"};
  create_run.insert(create_run.end(), common.begin(), common.end());
  const CliResult created = run_ranked(processes, create_run);
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  std::size_t run_dirs = 0;
  const fs::path tree = tree_run_dir(made, run_dirs);
  REQUIRE(!tree.empty());
  const int ranks = processes * workers;
  for (int missing = 0; missing < ranks; ++missing) {
    // Rank `missing`'s items out of the tree, back after the run.
    const fs::path stash = dir.path() / "stash";
    fs::create_directories(stash);
    std::vector<std::pair<fs::path, fs::path>> moved;
    for (const auto& e : fs::recursive_directory_iterator(tree / "test-dir.0-0")) {
      const std::string name = e.path().filename().string();
      if (name.starts_with(fmt::format("file.mdtest.{}.", missing))) {
        moved.emplace_back(e.path(), stash / name);
      }
    }
    REQUIRE(moved.size() == 4);
    for (const auto& [from, to] : moved) fs::rename(from, to);
    std::vector<std::string> stat_run = {"run",
                                         "mdtest",
                                         "-d",
                                         stat_dir.string(),
                                         "phases=stat",
                                         "tree_dir=" + tree.string(),
                                         fmt::format("shift={}", shift)};
    stat_run.insert(stat_run.end(), common.begin(), common.end());
    const std::string message = failure_of(run_ranked(processes, stat_run));
    for (const auto& [from, to] : moved) fs::rename(to, from);
    // mdtest rank (missing - shift) stats rank `missing`'s items: it lives in this process.
    const int looker = (missing - shift + ranks) % ranks;
    INFO("missing rank " << missing << ", shift " << shift);
    CHECK_THAT(message, Catch::StartsWith(fmt::format("rank {}: ", looker / workers)) &&
                            Catch::Contains(fmt::format("file.mdtest.{}.0", missing)) &&
                            Catch::Contains("No such file or directory"));
  }
}

}  // namespace

TEST_CASE("mdtest under mpirun -n 2: a create-only run leaves every rank's items in one tree",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  check_create_only(2, 2);
}

TEST_CASE("mdtest under mpirun -n 4: a create-only run leaves every rank's items in one tree",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  check_create_only(4, 1);
}

TEST_CASE("mdtest under mpirun -n 2: with shift each rank stats another process's items",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  check_shifted_stat(2, 2, 2);  // rank r stats rank r+2: the other process's
}

TEST_CASE("mdtest under mpirun -n 4: with shift each rank stats another process's items",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  check_shifted_stat(4, 1, 1);
  check_shifted_stat(4, 1, 0);  // without the shift each rank stats its own
}

TEST_CASE("mdtest under mpirun -n 2: the SUMMARY rate is all ranks' items over the slowest end",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mdmpi");
  const RankedJsonRun run = run_ranked_json(
      dir.path(), 2, "mdtest",
      {"ranks=2", "worker_mode=threads", "items=20", "shift=1", "unique_dir=true", "-q"});
  const CliResult& result = run.result;
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  // Rank 0 alone prints the text report: mdtest's line and tables once, for the 4 ranks.
  CHECK(count_of(result.out, "SUMMARY rate (in ops/sec)") == 1);
  CHECK(count_of(result.out, "\n4 tasks, 80 files/directories\n") == 1);
  const plugins::mdtest::ParsedSummary summary = plugins::mdtest::parse_summary(result.out);
  REQUIRE(summary.rate);
  const TwoRanksJson two(run.json);
  const MdJson& results = two.results();
  const StepResult& step = two.step();
  std::size_t checked = 0;
  for (std::size_t p = 0; p < step.phases.size(); ++p) {
    const PhaseResult& phase = step.phases[p];
    const bool tree = phase.name.starts_with("Tree");
    INFO(phase.name);
    if (!tree) CHECK(phase.total_ops() == 80);  // 20 items of each of the 4 ranks
    // The phase's time runs to the slowest rank's end.
    for (const MdJson& r : results) {
      CHECK(phase.wall_ns >=
            r.at("steps").at(0).at("phases").at(p).at("wall_ns").get<std::uint64_t>());
    }
    const plugins::mdtest::SummaryRow* row = summary.rate->row(phase.name);
    REQUIRE(row != nullptr);
    // -u: every rank makes its own tree (1 directory); mdtest's rate counts one tree.
    const double items = tree ? 1.0 : 80.0;
    CHECK(row->max == Approx(items / (static_cast<double>(phase.wall_ns) / 1e9)).margin(0.0006));
    ++checked;
  }
  CHECK(checked == 10);                      // every phase of mdtest's iteration
  CHECK(TempDir::list(run.target).empty());  // the tree and the test directory removed
}

TEST_CASE("mdtest under mpirun -n 2: the shared tree's phases are timed by rank 0's ops alone",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mdmpi_tree");
  const RankedJsonRun run =
      run_ranked_json(dir.path(), 2, "mdtest",
                      {"ranks=1", "worker_mode=threads", "items=6", "branch=2", "depth=1", "-q"});
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  const TwoRanksJson two(run.json);
  const MdJson& results = two.results();
  const StepResult& step = two.step();
  std::size_t checked = 0;
  for (std::size_t p = 0; p < step.phases.size(); ++p) {
    const PhaseResult& phase = step.phases[p];
    if (!phase.name.starts_with("Tree")) continue;
    INFO(phase.name);
    const auto wall_of = [&](std::size_t rank) {
      return results.at(rank)
          .at("steps")
          .at(0)
          .at("phases")
          .at(p)
          .at("wall_ns")
          .get<std::uint64_t>();
    };
    // Rank 0 makes (removes) the shared tree's 3 directories; rank 1's worker has no op, so it
    // has no window, and the phase's time is rank 0's first op's start to its last op's end
    // (not from rank 1's earlier or later start at the barrier).
    CHECK(phase.total_ops() == 3);
    CHECK(wall_of(1) == 0);
    CHECK(wall_of(0) > 0);
    CHECK(phase.wall_ns == wall_of(0));
    ++checked;
  }
  CHECK(checked == 2);
  CHECK(TempDir::list(run.target).empty());
}

TEST_CASE("mdtest under mpirun -n 2: the stonewall's counts of every rank reach the later phases",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mdmpi");
  // Far more items than 100 ms make: the stonewall ends the creation, the wear-out evens it out;
  // the shifted stat and removal then act on what the other process's rank made.
  const CliResult result = run_ranked(
      2, {"run", "mdtest", "-d", dir.path().string(), "worker_mode=threads", "items=1000000",
          "files_only=true", "shift=1", "stonewall=100ms", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const ResultDocument doc = parse_result_json(result.out);
  const StepResult& step = doc.run.steps.at(0);
  const AttributeValue* what = step.attribute("stonewall.File creation");
  REQUIRE(what != nullptr);
  // Both processes' ranks, in the figures rank 0 reports.
  CHECK_THAT(std::get<std::string>(*what), Catch::Matches(".*at the stonewall: [0-9]+, [0-9]+ .*"));
  std::map<std::string, std::uint64_t> ops;
  for (const PhaseResult& p : step.phases) ops[p.name] = p.total_ops();
  CHECK(ops.at("File creation") > 0);
  CHECK(ops.at("File stat") == ops.at("File creation"));
  CHECK(ops.at("File removal") == ops.at("File creation"));
  CHECK(TempDir::list(dir.path()).empty());
}

TEST_CASE(
    "mdtest under mpirun -n 2: after the stonewall every rank of every process makes the most",
    "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mdmpi");
  // 2 processes x 2 ranks, far more items than 100 ms make: at the stonewall every rank waits
  // until all four counts are in, then each goes on to the most any had made (mdtest's max_iter),
  // never past it, however late the other process saw its own stonewall.
  const CliResult result = run_ranked(
      2, {"run", "mdtest", "-d", dir.path().string(), "ranks=2", "worker_mode=threads",
          "items=1000000", "files_only=true", "stonewall=100ms", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const MdJson doc = MdJson::parse(result.out);
  const MdJson* creation = nullptr;
  for (const MdJson& p : doc.at("steps").at(0).at("phases")) {
    if (p.at("name") == "File creation") creation = &p;
  }
  REQUIRE(creation != nullptr);
  const MdJson& workers = creation->at("workers");
  REQUIRE(workers.size() == 4);  // the aggregate's workers: the mdtest ranks of both processes
  std::uint64_t most_at_stonewall = 0;
  for (const MdJson& w : workers) {
    most_at_stonewall =
        std::max(most_at_stonewall, w.at("counters").at("items_at_stonewall").get<std::uint64_t>());
  }
  CHECK(most_at_stonewall > 0);
  for (std::size_t r = 0; r < workers.size(); ++r) {
    INFO("rank " << r);
    CHECK(workers[r].at("counters").at("items_done").get<std::uint64_t>() == most_at_stonewall);
    CHECK(workers[r].at("ops").get<std::uint64_t>() == most_at_stonewall);
  }
  CHECK(creation->at("ops").get<std::uint64_t>() == 4 * most_at_stonewall);
  CHECK(TempDir::list(dir.path()).empty());
}

TEST_CASE("mdtest under mpirun -n 2: every process writes and checks rank 0's data_seed",
          "[mpi][mdtest][verify]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mdmpi");
  // Two programs (mpirun's "A : B"), one rank each, each given its own data_seed: rank 0's 111
  // is every process's. (The read phase shifts by 2N = 2: with 2 ranks each reads its own files,
  // so -X passing proves nothing here; the bytes of rank 1's file, checked below, do.)
  const auto program = [&](const std::string& seed) {
    std::vector<std::string> args = {IOBENCH_CLI_PATH,
                                     "run",
                                     "mdtest",
                                     "-d",
                                     dir.path().string(),
                                     "worker_mode=threads",
                                     "items=4",
                                     "files_only=true",
                                     "write_bytes=100",
                                     "read_bytes=100",
                                     "verify_read=true",
                                     "shift=1",
                                     "phases=create,read",
                                     "data_seed=" + seed,
                                     "--keep",
                                     "-q",
                                     "--format",
                                     "json"};
    return args;
  };
  std::vector<std::string> argv = mpirun_argv(1);
  for (const std::string& a : program("111")) argv.push_back(a);
  for (const std::string a : {":", "-n", "1"}) argv.push_back(a);
  for (const std::string& a : program("222")) argv.push_back(a);
  const CliResult result = run_command(argv);
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const ResultDocument doc = parse_result_json(result.out);
  const StepResult& step = doc.run.steps.at(0);
  const AttributeValue* seed = step.attribute("data_seed");
  REQUIRE(seed != nullptr);
  CHECK(std::get<std::int64_t>(*seed) == 111);
  std::size_t run_dirs = 0;
  const fs::path tree = tree_run_dir(dir.path(), run_dirs);
  REQUIRE(!tree.empty());
  // Rank 1's file, written by the second program, holds rank 0's seed.
  const std::string bytes = read_file(tree / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.3");
  std::vector<std::byte> want(100);
  plugins::fill_pattern(want, plugins::IorPattern{.rank = 1, .seed = 111});
  REQUIRE(bytes.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("byte " << i);
    CHECK(static_cast<std::byte>(bytes[i]) == want[i]);
  }
}

TEST_CASE("mdtest under mpirun -n 2: a rank that cannot see rank 0's run directory fails the step",
          "[mpi][mdtest]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mdmpi");
  // The same relative -d from two working directories (mpirun's -wdir): the ranks agree on the
  // name, but rank 1's "tgt" lacks rank 0's run directory. Rank 1 fails after prepare's one
  // collective (which carried the data seed and the names), so rank 0 is not left waiting in
  // another: the step fails with rank 1's message on both.
  const std::vector<std::string> args = {IOBENCH_CLI_PATH,
                                         "run",
                                         "mdtest",
                                         "worker_mode=threads",
                                         "items=4",
                                         "files_only=true",
                                         "-d",
                                         "tgt",
                                         "-q",
                                         "--format",
                                         "json"};
  std::vector<std::string> argv = mpirun_argv(1);
  for (const char* wdir : {"a", "b"}) {
    fs::create_directories(dir.path() / wdir / "tgt");
    if (wdir[0] == 'b') {
      for (const std::string a : {":", "-n", "1"}) argv.push_back(a);
    }
    argv.push_back("-wdir");
    argv.push_back((dir.path() / wdir).string());
    argv.insert(argv.end(), args.begin(), args.end());
  }
  const std::string message = failure_of(run_command(argv));
  CHECK_THAT(message, Catch::StartsWith("rank 1: open rank 0's run directory") &&
                          Catch::Contains("No such file or directory"));
}
