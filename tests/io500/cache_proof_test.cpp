// io500's cache_proof (IO500's drop-caches): as root on ext4 over a loop device, the page cache
// is dropped before every read, stat, delete and find phase, so ior-easy-read's bytes come from the
// device (the explain figures), where without it they come from the page cache; as another user
// the result names "not root". checkpoint=true freezes and thaws ext4 before every phase, and
// names once a tmpfs that cannot be frozen. Skipped with the reason where the machine refuses a
// part.

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "plugins/common/fs_checkpoint.hpp"
#include "tests/explain/loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace test = iobench::test;
using Json = nlohmann::json;

namespace {

Json step_of(const std::string& path) {
  return Json::parse(test::read_file(path)).at("steps").at(0);
}

const Json& phase_of(const Json& step, const std::string& name) {
  for (const Json& p : step.at("phases"))
    if (p.at("name") == name) return p;
  FAIL("no phase " << name);
  return step;
}

std::uint64_t device_read(const Json& phase) {
  return phase.at("explain").at("derived").at("device_read_bytes").get<std::uint64_t>();
}

// "Journal start" of the ext4 on `device` (dumpe2fs -h): 0 when the journal holds nothing that
// is not home yet; -1 where it cannot be read.
long journal_start(const std::string& device) {
  const std::string command = "dumpe2fs -h " + device + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  long start = -1;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr)
    if (std::sscanf(line, "Journal start: %ld", &start) == 1) break;
  ::pclose(pipe);
  return start;
}

// Whether the file system of `path` is frozen, without blocking: FITHAW of one that is not
// fails with EINVAL (and one that is gets thawed, so a failing test cannot hang the next).
bool was_frozen(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const bool thawed = ::ioctl(fd, FITHAW, 0) == 0;
  const int err = errno;
  ::close(fd);
  if (!thawed) CHECK(err == EINVAL);
  return thawed;
}

}  // namespace

TEST_CASE("checkpoint_file_system writes ext4's journal home: its start goes back to 0",
          "[kernel]") {
  if (::geteuid() != 0 || std::system("command -v dumpe2fs >/dev/null 2>&1") != 0) {
    WARN("skipped: needs root (loop device, FIFREEZE) and dumpe2fs(8)");
    return;
  }
  const test::LoopFs loop(64 * test::kMiB, test::LoopFs::Journal::kWith);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  for (int i = 0; i < 200; ++i) std::ofstream(loop.mount_point() / ("f" + std::to_string(i)));
  const int fd = ::open(loop.mount_point().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::syncfs(fd) == 0);
  // Synced, the creates' metadata is on the device in the journal, not yet home.
  CHECK(journal_start(loop.device()) > 0);
  std::string why = "stale";
  CHECK(iobench::plugins::checkpoint_file_system(fd, loop.mount_point().string(), why) ==
        iobench::plugins::CheckpointOutcome::kDone);
  CHECK(why.empty());
  ::close(fd);
  CHECK(journal_start(loop.device()) == 0);
  CHECK_FALSE(was_frozen(loop.mount_point()));
}

TEST_CASE("io500 cache_proof drops the page cache before the reads, seen in the device bytes read",
          "[kernel]") {
  if (::geteuid() != 0) {
    WARN("skipped: dropping the page cache needs root");
    return;
  }
  const test::LoopFs loop(128 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::TempDir out("io500-cache");
  const auto run = [&](const std::string& cache_proof, const std::string& json) {
    const auto r = test::run_cli({"run", "io500-quick", "-d", loop.mount_point().string(), "-q",
                                  "stonewall=30s", "ior_easy_size=8m", "cache_proof=" + cache_proof,
                                  "-f", "json", "-o", json});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  const std::string dropped_json = (out.path() / "dropped.json").string();
  const std::string cached_json = (out.path() / "cached.json").string();
  const std::string text = run("true", dropped_json);
  run("false", cached_json);
  const Json dropped = step_of(dropped_json);
  const Json cached = step_of(cached_json);
  const std::string said =
      "rank shift: rank r reads, stats and deletes rank (r + 1) mod 2's files in every read and "
      "stat phase; page cache dropped (sync, then 3 > /proc/sys/vm/drop_caches) before find, "
      "ior-easy-read, mdtest-easy-stat, ior-hard-read, mdtest-hard-stat, mdtest-easy-delete, "
      "mdtest-hard-read, mdtest-hard-delete";
  CHECK(dropped.at("attributes").at("cache_proof") == said);
  CHECK_THAT(text, Catch::Contains("\ncache_proof: " + said + "\n"));
  CHECK_FALSE(cached.at("attributes").contains("cache_proof"));
  // What each drop left in memory (/proc/meminfo right after it), kept and printed per phase.
  for (const char* phase :
       {"find", "ior-easy-read", "mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat",
        "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete"}) {
    INFO(phase);
    for (const char* figure : {"cache_left_buffers_bytes.", "cache_left_cached_bytes."}) {
      CHECK(dropped.at("attributes").at(figure + std::string(phase)).is_number_integer());
      CHECK_FALSE(cached.at("attributes").contains(figure + std::string(phase)));
    }
    // In the phase's block of the generic text IO500's output starts with, under its header.
    const std::size_t header = text.find("\n-- phase " + std::string(phase) + ": ");
    REQUIRE(header != std::string::npos);
    const std::size_t next = text.find('\n', header + 1);
    REQUIRE(next != std::string::npos);
    CHECK_THAT(text.substr(next + 1),
               Catch::StartsWith("cache     page cache dropped before this phase; "));
  }
  // mdtest-hard-delete unlinks the files mdtest-hard-read has just read: after the drop their
  // inodes come from the device again (as after IO500's drop before every phase), without it
  // they are still cached.
  CHECK(device_read(phase_of(dropped, "mdtest-hard-delete")) >
        device_read(phase_of(cached, "mdtest-hard-delete")));
  // 2 ranks x 8 MiB read back: from the device after the drop, from the page cache without it.
  const Json& read = phase_of(dropped, "ior-easy-read");
  REQUIRE(read.at("bytes").get<std::uint64_t>() == 16 * test::kMiB);
  CHECK(device_read(read) >= 16 * test::kMiB);
  CHECK(device_read(phase_of(cached, "ior-easy-read")) < test::kMiB);
}

TEST_CASE("io500 cache_proof and checkpoint name not root when run as another user") {
  if (::geteuid() != 0 || std::system("command -v setpriv >/dev/null 2>&1") != 0) {
    WARN("skipped: needs root and setpriv(1) to run iobench as user 65534");
    return;
  }
  const test::TempDir dir("io500-notroot");
  // Writable by that user, sticky (as /tmp) so that paths=full trusts it (owned by root).
  std::filesystem::permissions(dir.path(),
                               std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
  const std::string json = (dir.path() / "r.json").string();
  const std::string command = std::string("setpriv --reuid=65534 --regid=65534 --clear-groups ") +
                              IOBENCH_CLI_PATH + " run io500-quick -q -d " + dir.path().string() +
                              " cache_proof=true checkpoint=true -f json -o " + json + " >" +
                              (dir.path() / "out.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  INFO(test::read_file(dir.path() / "out.txt"));
  REQUIRE(status == 0);
  const Json step = step_of(json);
  const std::string why = "not root (euid 65534): writing /proc/sys/vm/drop_caches needs root";
  CHECK_THAT(step.at("attributes").at("cache_proof").get<std::string>(),
             Catch::StartsWith("rank shift: rank r reads") &&
                 Catch::Contains("; page cache NOT dropped before find: " + why +
                                 ", before ior-easy-read: " + why) &&
                 !Catch::Contains("page cache dropped"));
  CHECK_THAT(step.at("warnings").dump(),
             Catch::Contains("cache_proof: page cache not dropped before 'find': " + why));
  CHECK_THAT(step.at("attributes").at("cache_proof").get<std::string>(),
             Catch::Contains("; journal NOT checkpointed before ior-easy-write: FIFREEZE of ") &&
                 Catch::Contains("/datafiles: Operation not permitted (freezing a file system "
                                 "needs CAP_SYS_ADMIN: root outside a container)"));
}

TEST_CASE("io500 checkpoint freezes and thaws ext4 before every phase, then drops", "[kernel]") {
  if (::geteuid() != 0) {
    WARN("skipped: freezing a file system needs root");
    return;
  }
  const test::LoopFs loop(128 * test::kMiB, test::LoopFs::Journal::kWith);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::TempDir out("io500-checkpoint");
  const std::string json = (out.path() / "r.json").string();
  const auto r = test::run_cli({"run", "io500-quick", "-d", loop.mount_point().string(), "-q",
                                "stonewall=30s", "ior_easy_size=8m", "cache_proof=true",
                                "checkpoint=true", "-f", "json", "-o", json});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json step = step_of(json);
  CHECK(step.at("attributes").at("cache_proof") ==
        "rank shift: rank r reads, stats and deletes rank (r + 1) mod 2's files in every read and "
        "stat phase; page cache dropped (sync, then 3 > /proc/sys/vm/drop_caches) before find, "
        "ior-easy-read, mdtest-easy-stat, ior-hard-read, mdtest-hard-stat, mdtest-easy-delete, "
        "mdtest-hard-read, mdtest-hard-delete; "
        "journal checkpointed (file system frozen and thawed: FIFREEZE, FITHAW) before "
        "ior-easy-write, mdtest-easy-write, ior-hard-write, mdtest-hard-write, find, "
        "ior-easy-read, mdtest-easy-stat, ior-hard-read, mdtest-hard-stat, mdtest-easy-delete, "
        "mdtest-hard-read, mdtest-hard-delete");
  CHECK(step.at("warnings").dump().find("checkpoint") == std::string::npos);
  CHECK_FALSE(was_frozen(loop.mount_point()));
}

TEST_CASE("io500 checkpoint on tmpfs names the file system that cannot be frozen, once",
          "[kernel]") {
  if (::geteuid() != 0) {
    WARN("skipped: freezing a file system needs root (without it the reason is EPERM)");
    return;
  }
  const test::ScopedTmpfs tmpfs("256m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs was refused");
    return;
  }
  const test::TempDir out("io500-checkpoint-tmpfs");
  const std::string json = (out.path() / "r.json").string();
  const auto r = test::run_cli({"run", "io500-quick", "-d", tmpfs.path().string(), "-q",
                                "cache_proof=true", "checkpoint=true", "-f", "json", "-o", json});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json step = step_of(json);
  // The data directory, named in the reason: TARGET/iobench.<pid>.<random>/datafiles.
  const std::string shown = tmpfs.path().string() + "/iobench.";
  const std::string why =
      "/datafiles: Operation not supported (this file system type cannot be frozen: tmpfs, "
      "overlayfs and NFS cannot)";
  CHECK_THAT(
      step.at("attributes").at("cache_proof").get<std::string>(),
      Catch::Contains("; journal NOT checkpointed before ior-easy-write: FIFREEZE of " + shown) &&
          Catch::EndsWith(why + " (not tried again)") &&
          Catch::Contains("page cache dropped (sync, then 3 > /proc/sys/vm/drop_caches)"));
  const std::string warnings = step.at("warnings").dump();
  const std::string warned = "checkpoint=true: " + shown;
  const std::size_t first = warnings.find(warned);
  REQUIRE(first != std::string::npos);
  CHECK(warnings.find(warned, first + 1) == std::string::npos);
  CHECK_THAT(warnings, Catch::Contains(" not frozen before 'ior-easy-write' nor any later phase: "
                                       "FIFREEZE of ") &&
                           Catch::Contains(why + "; drop checkpoint=true where the file system "
                                                 "cannot be frozen"));
}
