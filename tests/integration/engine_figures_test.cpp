// Every figure printed is measured, or the run is refused or failed with the reason: the null
// engine in tiotest/tiobench, a data check with an engine that moves no bytes, pvsync2:nowait
// requests that would have blocked, and the rate an open-loop phase reports.
#include <linux/magic.h>
#include <sys/vfs.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

TEST_CASE("tiotest and tiobench run with the null engine and print what it moved",
          "[integration][engine]") {
  TempDir dir("null-tiotest");
  const std::string d = dir.path().string();
  // The null engine opens no file: none is created or sized (it used to fail every phase with
  // "ftruncate: Bad file descriptor" and still print a table of zeros).
  const auto tiotest = run_cli({"run", "tiotest", "-d", d, "engine=null", "threads=2", "size=1m",
                                "block_size=4k", "random_ops=10", "-q"});
  INFO(tiotest.err);
  REQUIRE(tiotest.exit_code == 0);
  CHECK_THAT(tiotest.out, Catch::Contains("| Write           2 MBs |"));
  CHECK_THAT(tiotest.out, Catch::Contains("| Read            2 MBs |"));
  CHECK_THAT(tiotest.out, !Catch::Contains("failed"));
  const auto tiobench = run_cli({"run", "tiobench", "-d", d, "engine=null", "threads=1", "sizes=1m",
                                 "block_sizes=4096", "random_ops=10", "-q"});
  INFO(tiobench.err);
  REQUIRE(tiobench.exit_code == 0);
  CHECK_THAT(tiobench.out, Catch::Contains("Sequential Writes"));
  CHECK_THAT(tiobench.out, !Catch::Contains("failed"));
  CHECK(dir.entries().empty());
}

TEST_CASE("checking what reads return with an engine that moves no bytes is refused",
          "[integration][engine][bad-input]") {
  TempDir dir("null-verify");
  const std::string d = dir.path().string();
  const auto disk = run_cli({"run", "disk", "-d", d, "engine=null", "verify=true", "size=1m"});
  CHECK(disk.exit_code == 2);
  CHECK(disk.err ==
        "iobench: error: verify=true with engine null: the engine moves no bytes, so reads "
        "return nothing to check and every block would read as corrupt; use an engine that "
        "moves data (psync, pvsync2, io_uring, libaio, mmap) or drop verify=true\n");
  CHECK(disk.out.empty());
  const auto tiotest =
      run_cli({"run", "tiotest", "-d", d, "engine=null", "consistency_check=true", "size=1m"});
  CHECK(tiotest.exit_code == 2);
  CHECK_THAT(tiotest.err, Catch::StartsWith("iobench: error: consistency_check=true with engine "
                                            "null: the engine moves no bytes"));
  CHECK(dir.entries().empty());
}

TEST_CASE("pvsync2:nowait reads of data not in the page cache fail the phase, cached ones run",
          "[integration][engine]") {
  TempDir dir("nowait");
  const std::string d = dir.path().string();
  // disk lays the file down untimed and evicts it from the page cache (fsync, then
  // POSIX_FADV_DONTNEED), so the timed RWF_NOWAIT reads find nothing cached: EAGAIN. A tmpfs
  // keeps its pages (they are the file), so the uncached case cannot be made there.
  struct statfs fs {};
  REQUIRE(::statfs(d.c_str(), &fs) == 0);
  if (fs.f_type == TMPFS_MAGIC) {
    WARN("skipped the uncached case: " << d << " is a tmpfs, which cannot evict a file");
  } else {
    const auto cold = run_cli(
        {"run", "disk", "-d", d, "operation=read", "size=1m", "bs=4k", "engine=pvsync2:nowait"});
    CHECK(cold.exit_code == 1);
    CHECK_THAT(cold.err + cold.out,
               Catch::Contains("requests would have blocked (RWF_NOWAIT) and moved no data, "
                               "first the read of 4096 bytes at offset"));
    CHECK_THAT(cold.err + cold.out, Catch::Contains("Resource temporarily unavailable"));
    CHECK_THAT(cold.out, !Catch::Contains("Completed reading"));
  }
  // prime=true reads the file untimed first: every block is cached and every read completes.
  const auto warm = run_cli({"run", "disk", "-d", d, "operation=read", "size=1m", "bs=4k",
                             "prime=true", "engine=pvsync2:nowait", "--format", "json"});
  INFO(warm.err);
  REQUIRE(warm.exit_code == 0);
  const auto doc = nlohmann::json::parse(warm.out);
  const nlohmann::json& phase = doc.at("steps").at(0).at("phases").back();
  CHECK(phase.at("bytes").get<std::uint64_t>() == 1024 * 1024);
  CHECK(phase.at("ops_by_kind").at("read").at("errors").get<std::uint64_t>() == 0);
  CHECK(dir.entries().empty());
}

TEST_CASE("an open-loop phase of N ops at R per second reports R, not R x N / (N - 1)",
          "[integration][rate]") {
  TempDir dir("rate");
  // 20 reads at 200/s: the window spans 20 intervals (100 ms), not 19 to the last op's issue
  // (which reported 210.5 ops/s). An upper bound from the schedule, whatever the machine's speed.
  const auto run = run_cli({"run", "disk", "-d", dir.path().string(), "operation=read", "size=1m",
                            "bs=4k", "rate_iops=200", "--ops", "20", "--format", "json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  const nlohmann::json& phase = doc.at("steps").at(0).at("phases").back();
  CHECK(phase.at("ops").get<std::uint64_t>() == 20);
  CHECK(phase.at("wall_ns").get<std::uint64_t>() >= 100'000'000);
  CHECK(phase.at("ops_per_s").get<double>() <= 200.0);
}
