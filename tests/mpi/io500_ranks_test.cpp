// The io500 workload's ranks across MPI processes: under mpirun every process's workers are IO500
// ranks of one run, in rank 0's one data directory; each read phase reads what the rank one
// process further wrote, and each process walks its share of the find, whose counts add up to the
// whole tree's.
#include <fmt/format.h>
#include <sys/statvfs.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/format.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/mpi/mpi_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench::test;
using IoJson = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const IoJson& io500_phase(const IoJson& step, const std::string& name) {
  for (const IoJson& p : step.at("phases"))
    if (p.at("name") == name) return p;
  FAIL("no phase " << name);
  return step;
}

std::uint64_t done_of(const IoJson& phase, std::size_t worker) {
  return phase.at("workers").at(worker).at("counters").at("done").get<std::uint64_t>();
}

}  // namespace

TEST_CASE("io500 under mpirun -n 2: the ranks of both processes share one data directory",
          "[mpi][io500]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("io500mpi");
  // 2 processes x 2 ranks: IO500 ranks 0 and 1 in process 0, 2 and 3 in process 1.
  const RankedJsonRun run = run_ranked_json(
      dir.path(), 2, "io500",
      {"ranks=2", "stonewall=1s", "ior_easy_size=4m", "ior_hard_segments=32",
       "mdtest_easy_items=100", "mdtest_hard_items=120", "quick=true", "--keep", "-q"});
  const fs::path& target = run.target;
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  CHECK(count_of(run.result.out, "[SCORE ]") == 1);  // rank 0 alone prints IO500's lines
  const IoJson doc = IoJson::parse(read_file(run.json));
  const IoJson& step = doc.at("steps").at(0);
  CHECK(step.at("attributes").at("tasks") == 4);
  for (const IoJson& p : step.at("phases")) CHECK(p.at("status") == "ok");

  // One data directory, in rank 0's run directory, with every rank's ior-easy file.
  std::vector<fs::path> data;
  for (const auto& e : fs::directory_iterator(target)) {
    if (fs::exists(e.path() / "datafiles")) {
      data.push_back(e.path() / "datafiles");
    } else {
      CHECK(TempDir::list(e.path()).empty());
    }
  }
  REQUIRE(data.size() == 1);
  std::set<std::string> easy_files;
  for (const auto& e : fs::directory_iterator(data.front() / "ior-easy")) {
    easy_files.insert(e.path().filename().string());
  }
  CHECK(easy_files == std::set<std::string>{"ior_file_easy.00000000", "ior_file_easy.00000001",
                                            "ior_file_easy.00000002", "ior_file_easy.00000003"});

  // The aggregate's workers are the IO500 ranks in order; rank r reads rank r+2's data, written
  // by the other process.
  for (const char* read_phase : {"ior-easy-read", "ior-hard-read", "mdtest-hard-read"}) {
    const std::string name(read_phase);
    const std::string write_phase = name.substr(0, name.rfind('-')) + "-write";
    for (std::size_t r = 0; r < 4; ++r) {
      INFO(read_phase << " rank " << r);
      CHECK(done_of(io500_phase(step, read_phase), r) ==
            done_of(io500_phase(step, write_phase), (r + 2) % 4));
    }
    // ...and finds the data pattern that process wrote: both derived the same seed.
    CHECK(io500_phase(step, read_phase).at("counters").at("mismatches") == 0);
  }
  const std::uint64_t easy_items =
      io500_phase(step, "mdtest-easy-write").at("counters").at("done").get<std::uint64_t>();
  const std::uint64_t hard_items =
      io500_phase(step, "mdtest-hard-write").at("counters").at("done").get<std::uint64_t>();
  CHECK(io500_phase(step, "mdtest-easy-delete").at("ops") == easy_items);
  CHECK(io500_phase(step, "mdtest-hard-delete").at("ops") == hard_items);
  // find, one share per process: together every entry once (the 4 phase directories, the 2
  // test-dir.0-0, mdtest_tree.0, 4 easy rank directories, 4 ior-easy files, the ior-hard file and
  // every mdtest file), and the matches of every rank's names.
  const IoJson& find_phase = io500_phase(step, "find");
  CHECK(find_phase.at("workers").size() == 2);
  CHECK(find_phase.at("counters").at("entries_scanned") == 16 + easy_items + hard_items);
  std::uint64_t expected_matches = 0;
  const IoJson& hard_write = io500_phase(step, "mdtest-hard-write");
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::uint64_t n = 0; n < done_of(hard_write, r); ++n) {
      expected_matches += fmt::format("file.mdtest.{}.{}", r, n).find("01") != std::string::npos;
    }
  }
  CHECK(find_phase.at("counters").at("matched") == expected_matches);
  // Each process examined a share, not the whole tree.
  for (std::size_t w = 0; w < 2; ++w) {
    CHECK(find_phase.at("workers").at(w).at("counters").at("entries_scanned").get<std::uint64_t>() <
          14 + easy_items + hard_items);
  }
}

TEST_CASE("io500 under mpirun -n 2: the free-space check counts the ranks of every process",
          "[mpi][io500]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("io500mpi");
  struct statvfs vfs {};
  REQUIRE(::statvfs(dir.path().c_str(), &vfs) == 0);
  const std::uint64_t available = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  // Each rank's ior-easy file is 30 % of the free space: one process's 2 ranks (60 %) fit, the
  // 4 ranks of both processes (120 %), all in rank 0's one data directory, do not.
  const std::uint64_t easy = available * 3 / 10 / (2 << 20) * (2 << 20);
  REQUIRE(easy >= (2 << 20));
  const std::uint64_t per_rank = easy + 47008 + 3901;  // + 1 ior-hard segment, 1 mdtest-hard file
  const std::vector<std::string> args = {"validate",
                                         "io500",
                                         "-d",
                                         dir.path().string(),
                                         "ranks=2",
                                         fmt::format("ior_easy_size={}", easy),
                                         "ior_hard_segments=1",
                                         "mdtest_hard_items=1",
                                         "quick=true"};
  const CliResult alone = run_command([&] {
    std::vector<std::string> argv = {IOBENCH_CLI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }());
  INFO(alone.out << alone.err);
  REQUIRE(alone.exit_code == 0);
  CHECK_THAT(alone.out,
             Catch::Contains("needs up to " + iobench::format_bytes(2 * per_rank) + " of free"));

  const CliResult ranked = run_ranked(2, args);
  INFO(ranked.out << ranked.err);
  CHECK(ranked.exit_code == 2);
  CHECK_THAT(
      ranked.out + ranked.err,
      Catch::Contains(fmt::format("not enough free space on '{}': the workload writes {} MiB",
                                  dir.path().string(), (4 * per_rank + (1 << 20) - 1) >> 20)));
  CHECK(TempDir::list(dir.path()).empty());  // nothing written
}
