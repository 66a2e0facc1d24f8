// io500's checkpoint=true under mpirun: rank 0's process alone freezes and thaws the file system,
// once every process is past the phase. It drops the machine's page cache (cache_proof), so its
// executable runs alone (SERIAL): tests beside it measure what the page cache holds.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/explain/loop_fs.hpp"
#include "tests/mpi/mpi_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench::test;
using IoJson = nlohmann::json;

TEST_CASE("io500 under mpirun -n 2 with checkpoint: rank 0's process freezes before every phase",
          "[mpi][io500][kernel]") {
  SKIP_WITHOUT_MPIRUN();
  if (::geteuid() != 0) {
    WARN("skipped: a loop device and FIFREEZE need root");
    return;
  }
  const LoopFs loop(256 * kMiB, LoopFs::Journal::kWith);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const RankedJsonRun run =
      run_ranked_json(loop.mount_point(), 2, "io500",
                      {"ranks=1", "stonewall=1s", "ior_easy_size=4m", "ior_hard_segments=32",
                       "mdtest_easy_items=100", "mdtest_hard_items=120", "quick=true",
                       "cache_proof=true", "checkpoint=true", "-q"});
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  const IoJson step = IoJson::parse(read_file(run.json)).at("steps").at(0);
  for (const IoJson& p : step.at("phases")) CHECK(p.at("status") == "ok");
  // Rank 0's process's account (the aggregate keeps its attributes): every phase, and no rank's
  // second FIFREEZE (it would have found the file system frozen: EBUSY, warned).
  CHECK_THAT(step.at("attributes").at("cache_proof").get<std::string>(),
             Catch::Contains("; journal checkpointed (file system frozen and thawed: FIFREEZE, "
                             "FITHAW) before ior-easy-write, mdtest-easy-write, ior-hard-write, "
                             "mdtest-hard-write, find, ior-easy-read, mdtest-easy-stat, "
                             "ior-hard-read, mdtest-hard-stat, mdtest-easy-delete, "
                             "mdtest-hard-read, mdtest-hard-delete"));
  CHECK(step.at("warnings").dump().find("checkpoint") == std::string::npos);
  // Left thawed: FITHAW of a file system that is not frozen fails with EINVAL (never blocks).
  const int fd = ::open(loop.mount_point().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK(::ioctl(fd, FITHAW, 0) == -1);
  CHECK(errno == EINVAL);
  ::close(fd);
}
