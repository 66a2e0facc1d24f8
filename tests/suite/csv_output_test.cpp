// --format csv writes one schema per file or stream: the generic rows, and each family's own CSV
// in a file of its own named after -o.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "tests/support/test_support.hpp"

using iobench::test::CsvRecord;
using iobench::test::parse_csv;
using iobench::test::read_file;
using iobench::test::run_cli;
using iobench::test::TempDir;

namespace {

constexpr const char* kMixedSuite = R"({"name": "mixed", "steps": [
  {"name": "disk write", "workload": "disk", "params": {"size": "1m", "fsync": false}},
  {"name": "bonnie, small", "workload": "bonnie",
   "params": {"size": "2m", "chunk_size": "4k", "seeks": "20", "seekers": "1", "per_char": "0",
              "files": "0", "ram": "0"}},
  {"name": "tiotest a", "workload": "tiotest",
   "params": {"threads": 1, "size": "256k", "random_ops": 8}},
  {"name": "tiotest b", "workload": "tiotest",
   "params": {"threads": 2, "size": "128k", "random_ops": 8}}]})";

const CsvRecord kGenericHeader = {
    "step", "workload", "phase", "worker", "target", "op", "ops", "bytes", "elapsed_ns",
    "throughput_bytes_per_s", "iops", "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_p99_9_ns",
    "lat_max_ns", "cpu_user_ns", "cpu_system_ns", "status",
    // The phase's device figures (issue 29).
    "dev_read_bytes", "dev_write_bytes", "dev_util_percent", "dev_r_await_ms", "dev_w_await_ms",
    "read_amplification", "write_amplification"};

}  // namespace

TEST_CASE("a mixed suite writes one csv file per schema named after -o", "[suite][csv]") {
  TempDir dir("csv-files");
  TempDir out_dir("csv-out");
  const auto suite = out_dir.path() / "mixed.json";
  { std::ofstream(suite) << kMixedSuite; }
  const auto csv = out_dir.path() / "result.csv";
  const auto run = run_cli({"run", suite.string(), "-d", dir.path().string(), "-q", "--seed", "3",
                            "--format", "csv", "-o", csv.string()});
  INFO(run.err << run.out);
  REQUIRE(run.exit_code == 0);
  CHECK(TempDir::list(out_dir.path()) == std::vector<std::string>{"mixed.json", "result.bonnie.csv",
                                                                  "result.csv",
                                                                  "result.tiotest.csv"});

  // The generic file: one header, every step, every record as wide as the header.
  const std::vector<CsvRecord> generic = parse_csv(read_file(csv));
  REQUIRE(generic.size() > 1);
  CHECK(generic[0] == kGenericHeader);
  std::set<std::string> steps;
  for (std::size_t i = 1; i < generic.size(); ++i) {
    CHECK(generic[i].size() == kGenericHeader.size());
    CHECK(generic[i] != kGenericHeader);
    steps.insert(generic[i][0]);
  }
  CHECK(steps == std::set<std::string>{"disk write", "bonnie, small", "tiotest a", "tiotest b"});

  // bonnie++'s own lines, headerless as bon_csv2html reads them: 50 fields (format 1.98).
  const std::vector<CsvRecord> bonnie = parse_csv(read_file(out_dir.path() / "result.bonnie.csv"));
  REQUIRE(bonnie.size() == 1);
  CHECK(bonnie[0].size() == 50);
  CHECK(bonnie[0][0] == "1.98");
  CHECK(bonnie[0][5] == "2M");  // bonnie++'s size column: 2 MiB, from size=2m

  // tiotest's table of both steps under one header: 5 rows per step.
  const std::vector<CsvRecord> tiotest =
      parse_csv(read_file(out_dir.path() / "result.tiotest.csv"));
  REQUIRE(tiotest.size() == 1 + 2 * 5);
  CHECK(tiotest[0][0] == "step");
  CHECK(tiotest[0][1] == "item");
  for (std::size_t i = 1; i < tiotest.size(); ++i) {
    CHECK(tiotest[i].size() == tiotest[0].size());
    CHECK(tiotest[i][0] == (i <= 5 ? "tiotest a" : "tiotest b"));
  }
  CHECK(tiotest[5][1] == "Total");
  CHECK(dir.entries().empty());
}

TEST_CASE("csv on stdout holds one schema", "[suite][csv]") {
  TempDir dir("csv-stdout");
  TempDir out_dir("csv-stdout-suite");
  const auto suite = out_dir.path() / "mixed.json";
  { std::ofstream(suite) << kMixedSuite; }
  // Several workloads: the generic rows only, and a note naming the CSVs left to -o.
  const auto mixed = run_cli(
      {"run", suite.string(), "-d", dir.path().string(), "-q", "--format", "csv", "--seed", "3"});
  INFO(mixed.err);
  REQUIRE(mixed.exit_code == 0);
  const std::vector<CsvRecord> generic = parse_csv(mixed.out);
  REQUIRE(generic.size() > 1);
  CHECK(generic[0] == kGenericHeader);
  for (const CsvRecord& record : generic) CHECK(record.size() == kGenericHeader.size());
  CHECK_THAT(mixed.err, Catch::Contains("the own CSV of bonnie, tiotest is written with -o"));

  // One bonnie step: bonnie++'s line, for `| bon_csv2html`.
  const auto bonnie =
      run_cli({"run", "bonnie", "-d", dir.path().string(), "-q", "--format", "csv", "size=2m",
               "chunk_size=4k", "seeks=20", "seekers=1", "per_char=0", "files=0", "ram=0"});
  INFO(bonnie.err);
  REQUIRE(bonnie.exit_code == 0);
  const std::vector<CsvRecord> lines = parse_csv(bonnie.out);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].size() == 50);
  CHECK_THAT(bonnie.err, !Catch::Contains("generic rows"));  // the text goes to stderr
}
