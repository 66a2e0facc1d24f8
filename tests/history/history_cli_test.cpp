#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_support.hpp"

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using iobench::test::run_cli;

// One small disk run stored into `db`, in `target`.
iobench::test::CliResult stored_run(const std::filesystem::path& target,
                                    const std::filesystem::path& db, const std::string& size) {
  return run_cli({"run", "disk", "-d", target.string(), "size=" + size, "bs=64k", "--store",
                  db.string(), "--progress", "0"});
}

}  // namespace

TEST_CASE("run --store keeps each run, history lists them, compare and report read db:FILE#ID",
          "[history][cli]") {
  iobench::test::TempDir dir;
  const auto db = dir.path() / "runs.db";
  const auto first = stored_run(dir.path(), db, "256k");
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.err, Contains("stored as run #1 in"));
  REQUIRE(stored_run(dir.path(), db, "512k").exit_code == 0);

  const auto listed = run_cli({"history", db.string(), "-f", "json"});
  REQUIRE(listed.exit_code == 0);
  const auto runs = nlohmann::json::parse(listed.out);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0]["id"] == 1);
  CHECK(runs[1]["id"] == 2);
  CHECK(runs[1]["workloads"] == "disk");
  CHECK(runs[1]["status"] == "ok");

  // The stored document is the run's own: its size param is the one given.
  const auto compared =
      run_cli({"compare", "db:" + db.string() + "#1", "db:" + db.string() + "#2", "-f", "json"});
  REQUIRE(compared.exit_code == 0);
  const auto comparison = nlohmann::json::parse(compared.out);
  CHECK(comparison.dump().find("512k") != std::string::npos);

  const auto last = run_cli({"history", db.string(), "last=1", "-f", "csv"});
  REQUIRE(last.exit_code == 0);
  const auto rows = iobench::test::parse_csv(last.out);
  REQUIRE(rows.size() == 2);  // header + the newest run
  CHECK(rows[1][0] == "2");

  // The text listing (formats/text.cpp): a header line, a line per run, the count.
  const auto text = run_cli({"history", db.string()});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, StartsWith("  run  stored (UTC)"));
  CHECK_THAT(text.out, Contains("\n   #1  ") && Contains("\n   #2  ") && EndsWith("\n2 run(s)\n"));

  iobench::test::TempDir out_dir("history-out");
  const auto html = out_dir.path() / "trend.html";
  const auto report = run_cli({"history", db.string(), "workload=disk", "--html", html.string()});
  REQUIRE(report.exit_code == 0);
  const std::string page = iobench::test::read_file(html);
  CHECK_THAT(page, Contains("<!DOCTYPE html>") && Contains("run 1, ") && Contains("run 2, "));
  const auto single = run_cli({"report", "db:" + db.string() + "#2", "-o", "-"});
  REQUIRE(single.exit_code == 0);
  CHECK_THAT(single.out, Contains("<!DOCTYPE html>"));

  // Every run directory was removed; only the history is left beside the (removed) runs.
  std::size_t entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CAPTURE(entry.path());
    CHECK(entry.path().filename().string().rfind("runs.db", 0) == 0);  // runs.db, -wal, -shm
    ++entries;
  }
  CHECK(entries >= 1);
}

TEST_CASE("run --store with a file that is not a history is refused before the run",
          "[history][cli]") {
  iobench::test::TempDir dir;
  const auto notes = dir.path() / "notes.txt";
  std::ofstream(notes) << "my notes\n";
  const auto result = stored_run(dir.path(), notes, "256k");
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Contains("notes.txt") && Contains("not an iobench history"));
  CHECK(iobench::test::read_file(notes) == "my notes\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  CHECK(entries == 1);  // no run directory was made

  CHECK(run_cli({"history", (dir.path() / "none.db").string()}).exit_code == 2);
  CHECK(run_cli({"history", notes.string(), "colour=red"}).exit_code == 2);
  // history's --format names are those of its table entries; compare's markdown is not one.
  const auto markdown = run_cli({"history", notes.string(), "--format", "markdown"});
  CHECK(markdown.exit_code == 2);
  CHECK_THAT(markdown.err, Contains("--format 'markdown' is not one of text, json, csv"));
  const auto missing = run_cli({"compare", "db:" + notes.string() + "#1", "x.json"});
  CHECK(missing.exit_code == 2);
  CHECK(run_cli({"validate", "disk", "--store", (dir.path() / "r.db").string()}).exit_code == 2);
}
