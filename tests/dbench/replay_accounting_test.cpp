// Bytes are bytes moved: short reads count what was read, failed writes name their errno, a run
// with problems says so in a warning, and the free-space check counts what a loadfile writes.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <iobench/error.hpp>

#include "tests/dbench/dbench_test_support.hpp"
#include "tests/support/planting.hpp"

using dbench_test::counter;
using dbench_test::Fixture;
using dbench_test::op;
using iobench::Status;

namespace {

constexpr const char* kAccountingPrologue = R"(Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
NTCreateX "\clients\client1\f" 0x40 0x5 1 NT_STATUS_OK
)";

std::map<std::string, std::string> once(const std::string& loadfile,
                                        std::map<std::string, std::string> more = {}) {
  more["loadfile"] = loadfile;
  more["run_once"] = "true";
  more.emplace("time_limit", "60s");
  more.emplace("warmup", "0s");  // a loadfile replayed once must not end inside a warm-up
  return more;
}

/// `count` sequential 16 KiB writes to handle 1.
std::string writes(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    text += "WriteX 1 " + std::to_string(i * 16384) + " 16384 16384 NT_STATUS_OK\n";
  }
  return text;
}

}  // namespace

TEST_CASE("a short ReadX counts the bytes really read", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(std::string(kAccountingPrologue) +
                              "WriteX 1 0 1000 1000 NT_STATUS_OK\n"
                              "ReadX 1 0 4096 4096 NT_STATUS_OK\n"
                              "ReadX 1 500 4096 4096 NT_STATUS_OK\n"
                              "ReadX 1 0 1000 1000 NT_STATUS_OK\n"
                              "Close 1 NT_STATUS_OK\n");
  const auto step = fx.run(once(lf), false);
  REQUIRE(step.status == Status::kOk);
  CHECK(op(step, "ReadX").ops == 3);
  CHECK(op(step, "ReadX").bytes == 1000 + 500 + 1000);  // dbench would count 9192
  CHECK(counter(step, "short_read.ReadX") == 2);
  // Not a clean "ok": the step says what did not go as the loadfile expects.
  REQUIRE(step.warnings.size() == 1);
  CHECK_THAT(step.warnings[0], Catch::Contains("dbench: 2 operations did not go as the loadfile "
                                               "expects (short_read.ReadX 2; warm-up included)"));
  CHECK_THAT(step.warnings[0],
             Catch::Contains(lf + " line 5: ReadX of 4096 bytes at offset 0 on handle 1 (") &&
                 Catch::Contains("read 1000 bytes, expected 4096"));
}

TEST_CASE("status_mismatch=count warns with the counts and the first problem", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(std::string(kAccountingPrologue) +
                              "Unlink \"\\clients\\client1\\missing.doc\" 0x6 NT_STATUS_OK\n"
                              "Rmdir \"\\clients\\client1\\none\" NT_STATUS_OK\n"
                              "Close 9 NT_STATUS_OK\n"
                              "Close 1 NT_STATUS_OK\n");
  const auto step = fx.run(once(lf, {{"status_mismatch", "count"}, {"procs", "2"}}), false);
  REQUIRE(step.status == Status::kOk);
  REQUIRE(step.warnings.size() == 1);
  const std::string& w = step.warnings[0];
  CHECK_THAT(w, Catch::Contains("dbench: 6 operations did not go as the loadfile expects "
                                "(mismatch.Unlink 2, mismatch.Rmdir 2, missing_handle 2;"));
  CHECK_THAT(w, Catch::Contains(" line 4: Unlink "));
  CHECK_THAT(w, Catch::Contains("missing.doc failed (No such file or directory), expected "
                                "NT_STATUS_OK"));
  // A clean run has no such warning.
  const auto clean = fx.loadfile(
      std::string(kAccountingPrologue) + writes(2) + "Close 1 NT_STATUS_OK\n", "clean.txt");
  CHECK(fx.run(once(clean, {{"status_mismatch", "count"}}), false).warnings.empty());
}

TEST_CASE("a full filesystem names ENOSPC and counts only the bytes written", "[dbench]") {
  const iobench::test::ScopedTmpfs small("1m");
  if (!small.mounted()) {
    WARN("skipped: mounting a 1 MiB tmpfs needs root");
    return;
  }
  Fixture fx;
  // 2 MiB through one handle on a 1 MiB filesystem.
  const auto lf =
      fx.loadfile(std::string(kAccountingPrologue) + writes(128) + "Close 1 NT_STATUS_OK\n");
  const iobench::Registry registry =
      iobench::test::registry_with_planting("dbench", [](std::size_t, auto) {});
  for (const bool lenient : {false, true}) {
    INFO((lenient ? "status_mismatch=count" : "status_mismatch=stop"));
    auto params = once(lf, {{"skip_cleanup", "true"}});
    if (lenient) params["status_mismatch"] = "count";
    const auto step = iobench::test::run_planted(registry, params, {small.path()},
                                                 {.keep_files = true, .skip_space_check = true});
    // What the file holds is what was counted.
    std::uint64_t file_bytes = 0;
    for (const auto& run : std::filesystem::directory_iterator(small.path())) {
      file_bytes = std::filesystem::file_size(run.path() / "clients" / "client0" / "f");
      std::filesystem::remove_all(run.path());
    }
    CHECK(file_bytes > 0);
    CHECK(file_bytes <= 1 << 20);
    CHECK(op(step, "WriteX").bytes == file_bytes);
    if (!lenient) {
      CHECK(step.status == Status::kFailed);
      CHECK_THAT(step.message, Catch::Contains(" on handle 1 (") &&
                                   Catch::Contains("clients/client0/f) failed after ") &&
                                   Catch::Contains(" bytes: No space left on device"));
    } else {
      CHECK(step.status == Status::kOk);
      CHECK(counter(step, "short_write.WriteX") > 1);
      REQUIRE(step.warnings.size() == 1);
      CHECK_THAT(step.warnings[0], Catch::Contains("No space left on device"));
      CHECK_THAT(step.warnings[0], Catch::Contains("short_write.WriteX"));
    }
  }
}

TEST_CASE("the free-space check counts what a loadfile writes, not its highest offset",
          "[dbench]") {
  const iobench::test::ScopedTmpfs small("8m");
  if (!small.mounted()) {
    WARN("skipped: mounting an 8 MiB tmpfs needs root");
    return;
  }
  Fixture fx;
  // 16 KiB at 5 GiB into a sparse file: accepted on 8 MiB, and it runs.
  const auto sparse = fx.loadfile(std::string(kAccountingPrologue) +
                                  "WriteX 1 5368709120 16384 16384 NT_STATUS_OK\n"
                                  "Close 1 NT_STATUS_OK\n");
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Step step{.workload = "dbench", .params = once(sparse), .targets = {small.path()}};
  iobench::test::CapturingReporter reporter;
  iobench::Runner(registry, {}).run(std::span<const iobench::Step>(&step, 1), reporter);
  REQUIRE(reporter.steps.size() == 1);
  CHECK(reporter.steps[0].status == Status::kOk);
  CHECK(op(reporter.steps[0], "WriteX").bytes == 16384);
  // 16 MiB really written is refused before anything runs.
  const auto big = fx.loadfile(
      std::string(kAccountingPrologue) + writes(1024) + "Close 1 NT_STATUS_OK\n", "big.txt");
  step.params = once(big);
  CHECK_THROWS_WITH(
      iobench::Runner(registry, {}).run(std::span<const iobench::Step>(&step, 1), reporter),
      Catch::Contains("not enough free space") && Catch::Contains("writes 16 MiB"));
  CHECK(iobench::test::TempDir::list(small.path()).empty());
}
