// IOR's N-1 for the disk workload (shared_file=regions|interleaved) under mpirun: one file per
// target for all ranks, each rank's blocks written once where its layout puts them (the kept file
// checked block by block), a read of it filled and read by every rank, and a target that is not
// the same directory for every rank refused before any I/O with nothing left.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iobench/file_util.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "plugins/disk/verify_pattern.hpp"
#include "tests/mpi/mpi_support.hpp"
#include "tests/support/test_support.hpp"

using iobench::test::CliResult;
using iobench::test::run_command;
using iobench::test::run_ranked;
using iobench::test::TempDir;
using SharedJson = nlohmann::json;

namespace {

// True if `block`, read at `offset`, holds what a verify=true write put there (any pass).
bool is_intact(iobench::plugins::disk::VerifyPattern& pattern, std::span<const std::byte> block,
               std::uint64_t offset) {
  using iobench::plugins::disk::VerifyPattern;
  return pattern.check(block, offset, VerifyPattern::kAnyGeneration).failure ==
         iobench::plugins::disk::VerifyFailure::kNone;
}

constexpr std::uint64_t kSharedBs = 4096;
constexpr std::uint64_t kBlocksPerRank = 64;  // size=256k

// The one data file found in `dir`'s run directories (with --keep every rank leaves its own run
// directory, empty but rank 0's).
std::vector<std::filesystem::path> data_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  return files;
}

// Rank r's result document inside rank 0's, and its write phase's op count.
const SharedJson& rank_step(const SharedJson& doc, std::size_t r) {
  return doc.at("ranks").at("steps").at(0).at("results").at(r).at("steps").at(0);
}

std::uint64_t ops_of(const SharedJson& phase, const std::string& op) {
  return phase.at("ops_by_kind").at(op).at("ops").get<std::uint64_t>();
}

void check_shared_write(int ranks, const std::string& layout) {
  TempDir dir("mpishared");
  const CliResult result = run_ranked(
      ranks, {"run", "disk", "-d", dir.path().string(), "size=256k", "bs=4k", "operation=write",
              "shared_file=" + layout, "verify=true", "--keep", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const SharedJson doc = SharedJson::parse(result.out);
  const SharedJson& step = doc.at("steps").at(0);
  const std::uint64_t seed = std::stoull(step.at("seed").get<std::string>());
  const std::string file = step.at("attributes").at("file.0");
  for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r) {
    const SharedJson& mine = rank_step(doc, r);
    CHECK(mine.at("attributes").at("file.0") == file);  // every rank's file is rank 0's
    CHECK(mine.at("attributes").at("ranks_sharing") == ranks);
    CHECK(mine.at("attributes").at("shared_file") == layout);
    CHECK(ops_of(mine.at("phases").at(0), "write") == kBlocksPerRank);
    CHECK(ops_of(mine.at("phases").at(1), "read") == kBlocksPerRank);  // its own blocks checked
  }
  // One file, of every rank's blocks; each block holds what verify writes at its offset, so
  // with ranks x 64 writes in all, each block was written exactly once.
  const std::vector<std::filesystem::path> files = data_files(dir.path());
  REQUIRE(files.size() == 1);
  CHECK(files.front() == file);
  const std::uint64_t blocks = kBlocksPerRank * static_cast<std::uint64_t>(ranks);
  REQUIRE(std::filesystem::file_size(file) == blocks * kSharedBs);
  iobench::plugins::disk::VerifyPattern pattern(seed, 0, kSharedBs, iobench::DataPattern{});
  const iobench::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd);
  std::vector<std::byte> block(kSharedBs);
  std::uint64_t good = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    REQUIRE(::pread(fd.get(), block.data(), block.size(), static_cast<off_t>(b * kSharedBs)) ==
            static_cast<ssize_t>(kSharedBs));
    good += is_intact(pattern, block, b * kSharedBs) ? 1 : 0;
  }
  CHECK(good == blocks);
}

// The blocks of the one kept file below `dir` that hold what verify writes at their offset, after
// a run of ranks x 2 writes (--ops 2): where each layout put each rank's first two blocks.
std::vector<std::uint64_t> first_blocks_written(int ranks, const std::string& layout) {
  TempDir dir("mpishared");
  const CliResult result =
      run_ranked(ranks, {"run", "disk", "-d", dir.path().string(), "size=256k", "bs=4k",
                         "operation=write", "shared_file=" + layout, "verify=true", "--ops", "2",
                         "--keep", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const SharedJson doc = SharedJson::parse(result.out);
  const std::uint64_t seed = std::stoull(doc.at("steps").at(0).at("seed").get<std::string>());
  const std::vector<std::filesystem::path> files = data_files(dir.path());
  REQUIRE(files.size() == 1);
  iobench::plugins::disk::VerifyPattern pattern(seed, 0, kSharedBs, iobench::DataPattern{});
  const iobench::UniqueFd fd(::open(files.front().c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd);
  std::vector<std::byte> block(kSharedBs);
  std::vector<std::uint64_t> written;
  for (std::uint64_t b = 0;
       ::pread(fd.get(), block.data(), block.size(), static_cast<off_t>(b * kSharedBs)) ==
       static_cast<ssize_t>(kSharedBs);
       ++b) {
    if (is_intact(pattern, block, b * kSharedBs)) written.push_back(b);
  }
  return written;
}

}  // namespace

TEST_CASE("mpirun -n 3: each layout puts rank r's blocks where IOR's does", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  // Regions: rank r from block r x 64; interleaved: rank r's blocks r, r + 3, ...
  CHECK(first_blocks_written(3, "regions") == std::vector<std::uint64_t>{0, 1, 64, 65, 128, 129});
  CHECK(first_blocks_written(3, "interleaved") == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("mpirun -n 3: shared_file=regions writes each rank's region of one file once", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  check_shared_write(3, "regions");
}

TEST_CASE("mpirun -n 3: shared_file=interleaved writes each rank's blocks of one file once",
          "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  check_shared_write(3, "interleaved");
}

TEST_CASE(
    "mpirun -n 2: a random read of a shared file: each rank fills and reads its blocks, "
    "rank 0 removes the file",
    "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpishared");
  const std::filesystem::path precious = dir.path() / "precious";
  std::ofstream(precious) << "kept";
  const CliResult result = run_ranked(
      2, {"run", "disk", "-d", dir.path().string(), "size=256k", "bs=4k", "operation=read",
          "seek=random", "verify=true", "shared_file=interleaved", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const SharedJson doc = SharedJson::parse(result.out);
  for (std::size_t r = 0; r < 2; ++r) {
    CHECK(ops_of(rank_step(doc, r).at("phases").at(0), "read") == kBlocksPerRank);
  }
  CHECK(doc.at("steps").at(0).at("phases").at(0).at("bytes") == 2 * kBlocksPerRank * kSharedBs);
  CHECK(TempDir::list(dir.path()) == std::vector<std::string>{"precious"});
}

TEST_CASE(
    "mpirun -n 2: shared_file with a target that differs per rank is refused on every rank "
    "with exit 2, naming the fix, before anything is made",
    "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpishared");
  for (int r = 0; r < 2; ++r) std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  const CliResult result =
      run_ranked(2, {"run", "disk", "-d", (dir.path() / "r{rank}").string(), "size=256k", "bs=4k",
                     "shared_file=regions", "-q", "--format", "json"});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK_THAT(result.err,
             Catch::Contains("shared_file=regions needs every rank to name the same "
                             "target directories") &&
                 Catch::Contains(fmt::format("rank 1 names '{}'", (dir.path() / "r1").string())) &&
                 Catch::Contains("give -d DIR without {rank}"));
  CHECK(iobench::test::count_of(result.err, "needs every rank") == 1);  // printed once, by rank 0
  for (int r = 0; r < 2; ++r) CHECK(TempDir::list(dir.path() / fmt::format("r{}", r)).empty());
}

TEST_CASE("shared_file without mpirun: the one rank's file is its own, as with shared_file=off",
          "[mpi]") {
  TempDir dir("mpishared");
  const CliResult result =
      run_command({IOBENCH_CLI_PATH, "run", "disk", "-d", dir.path().string(), "size=256k", "bs=4k",
                   "shared_file=interleaved", "verify=true", "-q", "--format", "json"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  const SharedJson doc = SharedJson::parse(result.out);
  const SharedJson& step = doc.at("steps").at(0);
  CHECK(step.at("attributes").at("ranks_sharing") == 1);
  CHECK(ops_of(step.at("phases").at(0), "write") == kBlocksPerRank);
  CHECK(ops_of(step.at("phases").at(1), "read") == kBlocksPerRank);
  CHECK(TempDir::list(dir.path()).empty());
}

TEST_CASE(
    "mpirun -n 2: no room for the shared file or a run directory stops every rank, naming "
    "the rank",
    "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  if (::geteuid() != 0) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  TempDir dir("mpishared");
  // Two inodes besides the root, for three entries: rank 0's run directory, rank 1's and the
  // shared file rank 0 creates in prepare(). Whichever comes last gets ENOSPC: rank 0's file
  // (it fails in from_rank0) or rank 1's directory (it fails before, and meets rank 0 there).
  const std::string small = dir.path().string();
  REQUIRE(run_command({"mount", "-t", "tmpfs", "-o", "size=4m,nr_inodes=3", "tmpfs", small})
              .exit_code == 0);
  const CliResult result = run_ranked(2, {"run", "disk", "-d", small, "size=256k", "bs=4k",
                                          "shared_file=regions", "-q", "--format", "json"});
  const std::vector<std::string> left = TempDir::list(dir.path());
  (void)run_command({"umount", small});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 1);
  const SharedJson doc = SharedJson::parse(result.out);
  const std::string message = doc.at("steps").at(0).at("message");
  CHECK_THAT(message, Catch::Contains("No space left on device"));
  const bool rank0_failed = message.rfind("rank 0: ", 0) == 0;
  CHECK((rank0_failed || message.rfind("rank 1: ", 0) == 0));
  // The other rank stopped because of it.
  const SharedJson& other = rank_step(doc, rank0_failed ? 1 : 0);
  CHECK(other.at("status") == "failed");
  CHECK_THAT(other.at("message").get<std::string>(),
             Catch::Contains(
                 fmt::format("stopped because of another rank: rank {} (", rank0_failed ? 0 : 1)));
  CHECK(rank_step(doc, 0).at("phases").empty());
  CHECK(left.empty());
}
