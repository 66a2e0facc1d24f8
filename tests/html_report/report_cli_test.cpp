// `iobench report` end to end: the page on stdout or in -o's file (replaced only once complete),
// and bad input refused with exit 2, one message naming the file and the field, nothing written.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

using namespace iobench::test;
using Catch::Matchers::Contains;
using RawJson = nlohmann::json;

namespace {

std::string write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir.path() / name).string();
  std::ofstream(path) << text;
  return path;
}

void require_refused(const CliResult& result, const std::string& expected) {
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Contains(expected));
}

}  // namespace

TEST_CASE("iobench report writes the page to -o FILE or, with -o -, to stdout") {
  TempDir dir("report-cli");
  const std::string out = (dir.path() / "report.html").string();
  const CliResult to_file = run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, "-o", out});
  INFO(to_file.err);
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  CHECK(to_file.err.empty());
  const CliResult to_stdout = run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, "-o", "-"});
  REQUIRE(to_stdout.exit_code == 0);
  CHECK(to_stdout.out.starts_with("<!DOCTYPE html>"));
  CHECK(read_file(out) == to_stdout.out);
  // Only the page is left in the directory (its temporary file was renamed over it).
  CHECK(dir.entries() == std::vector<std::string>{"report.html"});
  // Two runs: the side-by-side comparison is in the page's data.
  const CliResult two =
      run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, IOBENCH_TIME_SERIES_FIXTURE, "-o", "-"});
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.out, Contains("\"comparison\":{\"labels\":["));
}

TEST_CASE("iobench report takes the classic tools' results, detected or named with --from") {
  const std::string data = IOBENCH_CLASSIC_DATA_DIR;
  const CliResult mixed = run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, data + "/bonnie_198.csv",
                                   data + "/seed002_dbench.txt", "-o", "-"});
  INFO(mixed.err);
  REQUIRE(mixed.exit_code == 0);
  CHECK_THAT(mixed.out, Contains("\"format\":\"bonnie-csv\""));
  CHECK_THAT(mixed.out, Contains("\"format\":\"dbench\""));
  const CliResult named =
      run_cli({"report", data + "/seed002_dbench.txt", "--from", "dbench", "-o", "-"});
  REQUIRE(named.exit_code == 0);
  CHECK_THAT(named.out, Contains("\"format\":\"dbench\""));
  // The wrong format named: the reader's FILE:LINE error, exit 2.
  require_refused(
      run_cli({"report", data + "/seed002_dbench.txt", "--from", "bonnie-csv", "-o", "-"}),
      "seed002_dbench.txt:");
  require_refused(run_cli({"report", data + "/bonnie_198.csv", "--from", "bonnie", "-o", "-"}),
                  "--from: unknown result format 'bonnie'");
  require_refused(run_cli({"report", data + "/bonnie_198.csv", data + "/bonnie_198.csv", "--from",
                           "bonnie-csv,dbench,fio-json", "-o", "-"}),
                  "--from names 3 formats for 2 files");
  require_refused(run_cli({"run", "disk", "--from", "dbench"}),
                  "--from goes with compare or report, not run");
}

TEST_CASE("iobench report refuses bad input with exit 2 and writes nothing") {
  TempDir dir("report-bad");
  const std::string out = (dir.path() / "report.html").string();
  std::ofstream(out) << "old page";

  require_refused(run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE}), "give -o REPORT.html");
  require_refused(run_cli({"report", "-o", out}), "report needs one or more result files");
  require_refused(run_cli({"report", (dir.path() / "missing.json").string(), "-o", out}),
                  "missing.json");
  const std::string not_result = write_text(dir, "empty.json", "{}");
  require_refused(run_cli({"report", not_result, "-o", out}), "empty.json");
  require_refused(run_cli({"report", dir.path().string(), "-o", out}), "Is a directory");

  RawJson doc = RawJson::parse(read_file(IOBENCH_TIME_SERIES_FIXTURE));
  doc["steps"][0]["phases"][0]["time_series"]["points"][3].erase("bytes");
  const std::string bad_series = write_text(dir, "bad-series.json", doc.dump());
  require_refused(run_cli({"report", bad_series, "-o", out}),
                  "bad-series.json: /steps/0/phases/0/time_series/points/3: the key \"bytes\" "
                  "is missing");

  require_refused(run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, "-o", dir.path().string()}),
                  "is a directory");
  require_refused(run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, "-o", out, "--format", "json"}),
                  "not report");
  require_refused(run_cli({"report", IOBENCH_TIME_SERIES_FIXTURE, "-o", out, "-d", "x"}),
                  "--dir goes with run or validate, not report");
  require_refused(
      run_cli({"compare", IOBENCH_TIME_SERIES_FIXTURE, IOBENCH_TIME_SERIES_FIXTURE, "--html", out}),
      "--html goes with run or validate, not compare");
  require_refused(run_cli({"validate", "disk", "--html", out}),
                  "--html goes with run, not validate");
  CHECK(read_file(out) == "old page");
  // No temporary file left beside it.
  CHECK(dir.entries() == std::vector<std::string>{"bad-series.json", "empty.json", "report.html"});
}
