// ior's write phases as IO500 runs them (-D stonewall -O stoneWallingWearOut=1): a stonewall that
// fires (100 ms against 1 GiB per rank), every rank worn out to the most any had written, the
// stonewall figures reported, and each read phase reading exactly what its writer wrote.

#include <sys/statvfs.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::ScopedTmpfs;
using iobench::test::TempDir;
using Json = nlohmann::json;

namespace {

const Json& phase_of(const Json& step, const std::string& name) {
  for (const Json& p : step.at("phases"))
    if (p.at("name") == name) return p;
  FAIL("no phase " << name);
  return step;
}

std::uint64_t counter(const Json& p, std::size_t w, const char* key) {
  return p.at("workers").at(w).at("counters").at(key).get<std::uint64_t>();
}

std::uint64_t free_bytes(const std::filesystem::path& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return 0;
  return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

// The run plans 3 x 1 GiB (easy) + 3 x 20000 x 47008 bytes (hard), ~5.8 GB, and the free-space
// check wants them all; the stonewall lets it write a few hundred MB. A tmpfs of 8 GiB offers the
// planned bytes without a disk holding them.
constexpr std::uint64_t kPlannedBytes = 3ULL * (1ULL << 30) + 3ULL * 20000 * 47008;

}  // namespace

TEST_CASE(
    "io500 ior write phases wear out after the stonewall and the reads read what was written") {
  const ScopedTmpfs tmpfs("8g");
  const TempDir fallback("io500-wear");
  const std::filesystem::path run_dir = tmpfs.mounted() ? tmpfs.path() : fallback.path();
  if (free_bytes(run_dir) < kPlannedBytes + (64ULL << 20)) {
    WARN("skipped: no tmpfs could be mounted and " << run_dir << " has less than the "
                                                   << kPlannedBytes << " bytes the run plans");
    return;
  }
  const std::string json_path = (fallback.path() / "io500.json").string();
  constexpr std::size_t kRanks = 3;
  const auto r =
      run_cli({"run", "io500", "-d", run_dir.string(), "-q", "ranks=3", "stonewall=100ms",
               "ior_easy_size=1g", "ior_hard_segments=20000", "mdtest_easy_items=10",
               "mdtest_hard_items=10", "quick=true", "-f", "json", "-o", json_path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Json doc;
  std::ifstream(json_path) >> doc;
  const Json& step = doc.at("steps").at(0);
  const Json& attrs = step.at("attributes");
  struct Pair {
    const char* write;
    const char* read;
    std::uint64_t transfer;
    std::uint64_t planned;
  };
  for (const Pair& pair : {Pair{"ior-easy-write", "ior-easy-read", 2 * 1024 * 1024, 512},
                           Pair{"ior-hard-write", "ior-hard-read", 47008, 20000}}) {
    INFO(pair.write);
    const Json& w = phase_of(step, pair.write);
    const Json& rd = phase_of(step, pair.read);
    // The runner's wear-out ran: its target is the most transfers any rank had at the stonewall.
    const std::string target_key = std::string("wear_out_ops.") + pair.write;
    REQUIRE(attrs.contains(target_key));
    const std::uint64_t target = attrs.at(target_key).get<std::uint64_t>();
    CHECK(target >= 1);
    std::uint64_t at_sum = 0;
    std::uint64_t written = 0;
    for (std::size_t rank = 0; rank < kRanks; ++rank) {
      const std::uint64_t done = counter(w, rank, "done");
      const std::uint64_t at = counter(w, rank, "at_stonewall");
      // Every rank went on to exactly the most any had written (each waited at the stonewall
      // while the target was taken), and the stonewall cut the 1 GiB short.
      CHECK(done == target);
      CHECK(at <= done);
      CHECK(done < pair.planned);
      at_sum += at;
      written += done;
      // Rank r reads rank r+1's transfers: exactly as many bytes as that rank wrote.
      const std::size_t reader = (rank + kRanks - 1) % kRanks;
      CHECK(counter(rd, reader, "done") == done);
      CHECK(rd.at("workers").at(reader).at("bytes").get<std::uint64_t>() == done * pair.transfer);
    }
    CHECK(w.at("bytes").get<std::uint64_t>() == written * pair.transfer);
    CHECK(rd.at("bytes").get<std::uint64_t>() == written * pair.transfer);
    // IOR's stonewall figures: the data moved at the stonewall and IO500's throughput-stonewall.
    CHECK(attrs.at(std::string("stonewall_bytes.") + pair.write).get<std::uint64_t>() ==
          at_sum * pair.transfer);
    const double seconds = attrs.at(std::string("stonewall_s.") + pair.write).get<double>();
    CHECK(seconds > 0);
    CHECK(attrs.at(std::string("throughput_stonewall_gib_s.") + pair.write).get<double>() ==
          Approx(static_cast<double>(at_sum * pair.transfer) / 1073741824.0 / seconds));
    CHECK_THAT(attrs.at(std::string("stonewall.") + pair.write).get<std::string>(),
               Catch::Contains(std::to_string(at_sum * pair.transfer) + " bytes written by then") &&
                   Catch::Contains("after the wear-out: " +
                                   std::to_string(written * pair.transfer) + " bytes"));
  }
  // The text report (stdout beside -o FILE) prints them before IO500's lines.
  CHECK_THAT(r.out, Catch::Contains("\nior-easy-write: stonewall hit after ") &&
                        Catch::Contains("\nior-hard-write: stonewall hit after "));
}

// mdtest's write phases as IO500 runs them (-W stonewall with a stonewall file): at the stonewall
// every rank goes on to the most items any rank had made, so each stat, read and delete phase
// acts on the same count per rank. Before this was so, each rank stopped at its own count
// (measured: 17795 and 16531 items on a busy CPU).
TEST_CASE("io500 mdtest write phases wear out after the stonewall as mdtest -W") {
  const ScopedTmpfs tmpfs("2g");
  const TempDir fallback("io500-mdwear");
  const std::filesystem::path run_dir = tmpfs.mounted() ? tmpfs.path() : fallback.path();
  // mdtest-hard plans 3 x 100000 x 3901 bytes (~1.2 GB); the stonewall makes a few thousand.
  constexpr std::uint64_t kPlanned = 3ULL * 100000 * 3901 + 3ULL * 2 * 1024 * 1024;
  if (free_bytes(run_dir) < kPlanned + (64ULL << 20)) {
    WARN("skipped: no tmpfs could be mounted and " << run_dir << " has less than the " << kPlanned
                                                   << " bytes the run plans");
    return;
  }
  const std::string json_path = (fallback.path() / "io500.json").string();
  constexpr std::size_t kRanks = 3;
  const auto r =
      run_cli({"run", "io500", "-d", run_dir.string(), "-q", "ranks=3", "stonewall=100ms",
               "ior_easy_size=2m", "ior_hard_segments=1", "mdtest_easy_items=1000000",
               "mdtest_hard_items=100000", "quick=true", "-f", "json", "-o", json_path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Json doc;
  std::ifstream(json_path) >> doc;
  const Json& step = doc.at("steps").at(0);
  const Json& attrs = step.at("attributes");
  struct Group {
    const char* write;
    std::vector<const char*> later;
    std::uint64_t planned;
  };
  for (const Group& g :
       {Group{"mdtest-easy-write", {"mdtest-easy-stat", "mdtest-easy-delete"}, 1000000},
        Group{"mdtest-hard-write",
              {"mdtest-hard-stat", "mdtest-hard-read", "mdtest-hard-delete"},
              100000}}) {
    INFO(g.write);
    const Json& w = phase_of(step, g.write);
    const std::string target_key = std::string("wear_out_ops.") + g.write;
    REQUIRE(attrs.contains(target_key));
    const std::uint64_t target = attrs.at(target_key).get<std::uint64_t>();
    CHECK(target >= 1);
    for (std::size_t rank = 0; rank < kRanks; ++rank) {
      // Every rank made exactly the most any had made, and the stonewall cut the plan short.
      CHECK(counter(w, rank, "done") == target);
      CHECK(target < g.planned);
      for (const char* later : g.later) {
        INFO(later);
        CHECK(counter(phase_of(step, later), rank, "done") == target);
      }
    }
  }
}
