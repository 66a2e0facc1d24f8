// Faults that strike while the iobench CLI runs: the filesystem filling up, the device failing
// (EIO), the run directory removed, the target turning read-only. Each run must end with exit 1,
// the errno text, its partial results in the JSON, and nothing it created left behind where the
// filesystem still allows removal.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/faults/fault_fixtures.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

using ::iobench::test::kPrecious;

struct Outcome {
  test::CliResult cli;
  nlohmann::json json;
  std::filesystem::path run_dir;  ///< the run directory the CLI created
};

// Bytes the run's phases recorded, from its JSON result.
std::uint64_t bytes_measured(const nlohmann::json& json) {
  std::uint64_t bytes = 0;
  for (const auto& step : json.at("steps")) {
    for (const auto& phase : step.at("phases")) bytes += phase.at("bytes").get<std::uint64_t>();
  }
  return bytes;
}

// The iobench arguments for `args` writing JSON to `json_path`, quiet.
std::vector<std::string> with_json(std::vector<std::string> args,
                                   const std::filesystem::path& json_path) {
  args.insert(args.end(), {"--format", "json", "-o", json_path.string(), "-q"});
  return args;
}

// Runs the CLI; once its run directory holds `file`, waits `delay` and calls `strike`. With
// `paused`, the CLI is stopped (SIGSTOP) while `strike` runs, so that a strike that takes a
// while (a loop device shrunk again and again while writeback re-extends its image) still lands
// before the run ends.
template <typename Strike>
Outcome run_and_strike(const std::vector<std::string>& args, const std::filesystem::path& target,
                       const std::string& file, std::chrono::milliseconds delay, Strike strike,
                       bool paused = false) {
  test::TempDir out("faultjson");
  const auto json_path = out.path() / "result.json";
  test::CliProcess cli(with_json(args, json_path));
  const auto run_dir = test::wait_for_run_dir(target, file);
  REQUIRE_FALSE(run_dir.empty());
  std::this_thread::sleep_for(delay);
  if (paused) REQUIRE(cli.stop());
  strike(run_dir);
  if (paused) cli.resume();
  Outcome outcome;
  outcome.run_dir = run_dir;
  outcome.cli = cli.wait();
  const std::string text = test::read_file(json_path);
  INFO("stdout: " << outcome.cli.out << "\nstderr: " << outcome.cli.err);
  REQUIRE_FALSE(text.empty());
  outcome.json = nlohmann::json::parse(text);
  return outcome;
}

// The checks every fault shares: exit 1, the errno text in the step message, partial results.
void check_failed_run(const Outcome& o, const std::string& errno_text) {
  INFO("stdout: " << o.cli.out << "\nstderr: " << o.cli.err);
  CHECK(o.cli.exit_code == 1);
  const auto& step = o.json.at("steps").at(0);
  CHECK(step.at("status") == "failed");
  CHECK_THAT(step.at("message").get<std::string>(), Catch::Contains(errno_text));
  CHECK_THAT(o.cli.out, Catch::Contains(errno_text));
  CHECK(bytes_measured(o.json) > 0);
}

// "nothing left that the run created": the target as before, or (where the filesystem no
// longer allows removal) a warning naming what could not be removed.
// Names only: on a failing device the old files' data may no longer read back, nor may a
// directory the run never touched list (lost+found's block beyond a shrunk loop device): where
// the listing itself fails, what the run created must be gone all the same, and what was there
// before must still be there.
void check_nothing_left(const Outcome& o, const std::filesystem::path& target,
                        const std::vector<std::string>& before) {
  const auto now = test::snapshot_tree(target, false);
  if (now == before) return;
  const auto& warnings = o.json.at("steps").at(0).at("warnings");
  bool warned = false;
  for (const auto& w : warnings) {
    warned = warned || w.get<std::string>().find("cannot remove") != std::string::npos;
  }
  std::string listed;
  for (const auto& entry : now) listed += " '" + entry + "'";
  INFO("left in the target:" << listed << "; warnings: " << warnings.dump());
  const bool unreadable = std::any_of(now.begin(), now.end(), [](const std::string& entry) {
    return entry.starts_with("<unreadable");
  });
  if (warned || !unreadable) {
    CHECK(warned);
    return;
  }
  std::error_code ec;
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(o.run_dir, ec)));
  CHECK(std::filesystem::is_regular_file(target / kPrecious, ec));
}

void plant_precious(const std::filesystem::path& target) {
  std::ofstream(target / kPrecious) << "keep me";
}

}  // namespace

TEST_CASE("a filesystem filling up during a run ends it with ENOSPC on every engine",
          "[faults][enospc][cli]") {
  struct Case {
    const char* label;
    std::vector<std::string> args;
    const char* file;
  };
  const std::vector<Case> cases{
      {"disk, psync", {"run", "disk", "bs=4k", "size=8m"}, "bigfile"},
      {"disk, mode=mmap", {"run", "disk", "bs=4k", "size=8m", "mode=mmap"}, "bigfile"},
      {"disk, --engine mmap", {"run", "disk", "bs=4k", "size=8m", "--engine", "mmap"}, "bigfile"},
      {"tiotest, mmap=true",
       {"run", "tiotest", "threads=1", "size=8m", "random_ops=10", "mmap=true"},
       "_tiotest.thr0"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.label) {
      const test::ScopedTmpfs fs("16m");
      if (!fs.mounted()) {
        WARN("skipped: mounting a tmpfs needs root");
        return;
      }
      plant_precious(fs.path());
      const auto before = test::snapshot_tree(fs.path());
      // The run passes its free-space check, then is stopped (SIGSTOP) once its file holds
      // some data, the test takes every free block, and the run goes on. Where the stop came
      // too late (everything written), the run is tried again.
      std::optional<Outcome> outcome;
      for (int attempt = 0; attempt < 20 && !outcome; ++attempt) {
        test::TempDir out("faultjson");
        const auto json_path = out.path() / "result.json";
        auto args = c.args;
        args.insert(args.end(), {"-d", fs.path().string()});
        test::CliProcess cli(with_json(args, json_path));
        const auto run_dir = test::wait_for_run_dir(fs.path(), c.file, 20s);
        REQUIRE_FALSE(run_dir.empty());
        struct stat st {};
        for (int i = 0; i < 100000; ++i) {
          if (::stat((run_dir / c.file).c_str(), &st) != 0 || st.st_blocks > 0) break;
        }
        const bool early = cli.stop() && ::stat((run_dir / c.file).c_str(), &st) == 0 &&
                           st.st_blocks > 0 && st.st_blocks * 512 < (6 << 20);
        if (early) (void)test::fill_filesystem(fs.path(), "filler");
        cli.resume();
        test::CliResult result = cli.wait();
        std::filesystem::remove(fs.path() / "filler");
        if (!early) continue;
        outcome = Outcome{result, nlohmann::json::parse(test::read_file(json_path))};
      }
      REQUIRE(outcome);
      check_failed_run(*outcome, "No space left on device");
      CHECK(test::snapshot_tree(fs.path()) == before);
    }
  }
}

TEST_CASE("EIO in the middle of a phase ends the run with the errno text and partial results",
          "[faults][eio][cli]") {
  struct Case {
    const char* label;
    std::vector<std::string> params;
  };
  // Direct writes see EIO at once; buffered and mapped writes when they reach the device
  // (fsync / msync before close).
  const std::vector<Case> cases{
      {"direct", {"mode=direct"}},
      {"buffered", {}},
      {"mmap", {"mode=mmap"}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.label) {
      // No journal: ext4 would abort it at the first failed metadata write and turn EIO into
      // EROFS (or a silent fsync success on the now read-only filesystem) for later calls.
      test::LoopFs fs(64, "", false);
      if (!fs.ready()) {
        WARN("skipped: " << fs.skip_reason());
        return;
      }
      if (!fs.on_device_mapper()) {
        WARN("EIO from a shrunk loop device instead of a dm error target: "
             << test::device_mapper_missing_reason());
      }
      plant_precious(fs.path());
      const auto before = test::snapshot_tree(fs.path(), false);
      std::vector<std::string> args{
          "run",    "disk", "bs=64k", "size=8m",         "iterations=1000000",
          "--time", "1s",   "-d",     fs.path().string()};
      args.insert(args.end(), c.params.begin(), c.params.end());
      std::string how;
      const Outcome o = run_and_strike(
          args, fs.path(), "bigfile", 200ms,
          [&](const std::filesystem::path&) { how = fs.inject_eio(); }, /*paused=*/true);
      INFO("EIO injected by " << how);
      check_failed_run(o, "Input/output error");
      check_nothing_left(o, fs.path(), before);
    }
  }
}

TEST_CASE("the run directory removed during a run ends it with ENOENT", "[faults][cli]") {
  struct Case {
    const char* label;
    std::vector<std::string> args;
    const char* file;
  };
  test::TempDir scratch("rmrun");
  const auto loadfile = scratch.path() / "tiny.load";
  { std::ofstream(loadfile) << test::kTinyLoadfile; }
  const std::vector<Case> cases{
      {"disk (one open file)",
       {"run", "disk", "bs=64k", "size=4m", "iterations=1000000", "--time", "1s"},
       "bigfile"},
      {"tiotest (the next phase opens its file)",
       {"run", "tiotest", "threads=1", "size=4m", "random_ops=100000000", "--time", "1s"},
       "_tiotest.thr0"},
      {"dbench (the next operation)",
       {"run", "dbench", "loadfile=" + loadfile.string(), "--time", "1s", "--warmup", "0s"},
       "clients"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.label) {
      test::TempDir target("rmrun");
      plant_precious(target.path());
      const auto before = test::snapshot_tree(target.path());
      auto args = c.args;
      args.insert(args.end(), {"-d", target.path().string()});
      const Outcome o = run_and_strike(
          args, target.path(), c.file, 200ms, [](const std::filesystem::path& run_dir) {
            // The workload may create entries while they are removed: repeat until gone.
            std::error_code ec;
            for (int i = 0; i < 1000 && std::filesystem::exists(run_dir); ++i) {
              std::filesystem::remove_all(run_dir, ec);
            }
          });
      check_failed_run(o, "No such file or directory");
      CHECK(test::snapshot_tree(target.path()) == before);
    }
  }
}

TEST_CASE("a target turning read-only during a run ends it with EROFS", "[faults][erofs][cli]") {
  SECTION("ext4 remounting itself read-only under open files (errors=remount-ro)") {
    for (const char* mode : {"buffered", "mmap"}) {
      DYNAMIC_SECTION("disk mode=" << mode) {
        test::LoopFs fs(64, "errors=remount-ro");
        if (!fs.ready()) {
          WARN("skipped: " << fs.skip_reason());
          return;
        }
        plant_precious(fs.path());
        const auto before = test::snapshot_tree(fs.path(), false);
        const Outcome o =
            run_and_strike({"run", "disk", "bs=64k", "size=8m", "iterations=1000000",
                            std::string("mode=") + mode, "--time", "1s", "-d", fs.path().string()},
                           fs.path(), "bigfile", 200ms,
                           [&](const std::filesystem::path&) { fs.make_read_only(); });
        check_failed_run(o, "Read-only file system");
        check_nothing_left(o, fs.path(), before);
      }
    }
  }
  SECTION("tmpfs remounted read-only between dbench's operations") {
    const test::ScopedTmpfs fs("16m");
    if (!fs.mounted()) {
      WARN("skipped: mounting a tmpfs needs root");
      return;
    }
    test::TempDir scratch("rofs");
    const auto loadfile = scratch.path() / "tiny.load";
    { std::ofstream(loadfile) << test::kTinyLoadfile; }
    plant_precious(fs.path());
    const auto before = test::snapshot_tree(fs.path(), false);
    const Outcome o = run_and_strike(
        {"run", "dbench", "loadfile=" + loadfile.string(), "--time", "3s", "--warmup", "0s", "-d",
         fs.path().string()},
        fs.path(), "clients", 200ms, [&](const std::filesystem::path&) {
          // remount,ro is refused (EBUSY) while a file is open for writing: try until dbench
          // is between a Close and its next create.
          for (int i = 0; i < 2000; ++i) {
            if (test::run_command("mount -o remount,ro " + fs.path().string()).status == 0) return;
          }
          FAIL("tmpfs never free of writers for remount,ro");
        });
    check_failed_run(o, "Read-only file system");
    check_nothing_left(o, fs.path(), before);
    (void)test::run_command("mount -o remount,rw " + fs.path().string());
  }
}
