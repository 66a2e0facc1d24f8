// mdtest's SUMMARY tables: written from an mdtest step, parsed back, and parsed from mdtest's
// own output.

#include "plugins/mdtest/summary.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <sstream>
#include <string>
#include <variant>

#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using namespace iobench::plugins::mdtest;
using iobench::test::TempDir;

namespace {

// The end of `mpirun -np 2 mdtest -d t -n 10 -i 2 -P -w 100 -e 100 -N 1` (mdtest-4.1.0+dev).
constexpr const char* kMdtestOutput = R"(2 tasks, 20 files/directories

SUMMARY rate (in ops/sec): (of 2 iterations)
   Operation                     Max            Min           Mean        Std Dev
   ---------                     ---            ---           ----        -------
   Directory creation          46192.775      44644.002      45418.389       1095.148
   Directory stat             806596.923     716975.043     761785.983      63372.239
   Directory rename           114286.213     112447.828     113367.020       1299.934
   Directory removal             219.652        196.389        208.021         16.450
   File creation               66000.063       1769.450      33884.756      45417.902
   File stat                  693273.388       1831.494     347552.441     488923.252
   File read                  290263.253      78692.383     184477.818     149603.197
   File removal               131482.884     120525.977     126004.431       7747.703
   Tree creation               27776.848      10754.626      19265.737      12036.529
   Tree removal                  280.649        229.410        255.030         36.232

SUMMARY time (in ms/op): (of 2 iterations)
   Operation                     Max            Min           Mean        Std Dev
   ---------                     ---            ---           ----        -------
   Directory creation              0.000          0.000          0.000          0.000
   Directory stat                  0.000          0.000          0.000          0.000
   Directory rename                0.000          0.000          0.000          0.000
   Directory removal               0.102          0.091          0.096          0.008
   File creation                   0.011          0.000          0.006          0.008
   File stat                       0.011          0.000          0.005          0.008
   File read                       0.000          0.000          0.000          0.000
   File removal                    0.000          0.000          0.000          0.000
   Tree creation                   0.000          0.000          0.000          0.000
   Tree removal                    0.004          0.004          0.004          0.001
-- finished at 12/06/2026 08:56:30 --
)";

}  // namespace

TEST_CASE("mdtest SUMMARY tables of mdtest's own output parse", "[mdtest][summary]") {
  const ParsedSummary parsed = parse_summary(kMdtestOutput);
  REQUIRE(parsed.rate);
  REQUIRE(parsed.time);
  CHECK(parsed.rate->iterations == 2);
  CHECK(parsed.rate->rows.size() == 10);
  const SummaryRow* create = parsed.rate->row("File creation");
  REQUIRE(create != nullptr);
  CHECK(create->max == Approx(66000.063));
  CHECK(create->min == Approx(1769.450));
  CHECK(create->stddev == Approx(45417.902));
  CHECK(parsed.time->row("Tree removal")->mean == Approx(0.004));
  CHECK(parsed.rate->row("Directory read") == nullptr);
}

TEST_CASE("mdtest text output parses back with the counts that were made", "[mdtest][summary]") {
  TempDir dir("mdtest_summary");
  const auto out = iobench::test::mdtest::run_mdtest(dir.path(), {{"ranks", "2"},
                                                                  {"worker_mode", "threads"},
                                                                  {"items_per_dir", "20"},
                                                                  {"branch", "3"},
                                                                  {"depth", "1"},
                                                                  {"iterations", "2"},
                                                                  {"files_only", "true"}});
  REQUIRE(out.step.status == Status::kOk);
  std::ostringstream text;
  format_mdtest_text(out.step, text);
  // 2 ranks x 4 directories x 20 files.
  CHECK_THAT(text.str(), Catch::Contains("\n2 tasks, 160 files\n"));
  const ParsedSummary parsed = parse_summary(text.str());
  REQUIRE(parsed.rate);
  REQUIRE(parsed.time);
  CHECK(parsed.rate->iterations == 2);
  std::vector<std::string> names;
  for (const SummaryRow& r : parsed.rate->rows) names.push_back(r.operation);
  CHECK(names == std::vector<std::string>{"File creation", "File stat", "File read", "File removal",
                                          "Tree creation", "Tree removal"});
  // The printed figures are the computed ones, to the 3 decimals printed.
  const SummaryTable rates = summary_rates(out.step);
  const SummaryTable times = summary_times(out.step);
  for (std::size_t i = 0; i < rates.rows.size(); ++i) {
    CHECK(parsed.rate->rows[i].max == Approx(rates.rows[i].max).margin(0.0006));
    CHECK(parsed.rate->rows[i].mean == Approx(rates.rows[i].mean).margin(0.0006));
    CHECK(parsed.time->rows[i].max == Approx(times.rows[i].max).margin(0.0006));
  }
  for (const char* op : {"File creation#1", "File stat#2", "File read#1", "File removal#2"}) {
    CHECK(iobench::test::mdtest::phase_ops(out.step, op) == 160);
  }
  // Per iteration: items over the phase's wall time; the tree rows count the tree's 4
  // directories, as mdtest's rank 0 does (not 4 x ranks).
  const auto rate_of = [&](const std::string& name, double items) {
    for (const PhaseResult& p : out.step.phases) {
      if (p.name == name) return items / (static_cast<double>(p.wall_ns) / 1e9);
    }
    FAIL("no phase " << name);
    return 0.0;
  };
  const double c1 = rate_of("File creation#1", 160);
  const double c2 = rate_of("File creation#2", 160);
  CHECK(rates.row("File creation")->max == Approx(std::max(c1, c2)));
  CHECK(rates.row("File creation")->min == Approx(std::min(c1, c2)));
  CHECK(rates.row("File creation")->stddev == Approx(std::abs(c1 - c2) / std::sqrt(2.0)));
  const double t1 = rate_of("Tree creation#1", 4);
  const double t2 = rate_of("Tree creation#2", 4);
  CHECK(rates.row("Tree creation")->mean == Approx((t1 + t2) / 2));
  // iobench's own tables come first.
  CHECK_THAT(text.str(), Catch::Contains("== step md: workload mdtest"));
}

TEST_CASE("mdtest compare reads iobench's mdtest JSON beside mdtest's own text", "[mdtest][cli]") {
  TempDir dir("mdtest_compare");
  const std::string json = (dir.path() / "ours.json").string();
  const auto run = iobench::test::run_cli({"run", "mdtest", "-d", dir.path().string(), "items=8",
                                           "files_only=true", "-f", "json", "-o", json, "-q"});
  REQUIRE(run.exit_code == 0);
  const std::string theirs = (dir.path() / "mdtest.txt").string();
  {
    std::ofstream out(theirs);
    out << "mdtest-4.1.0+dev was launched with 1 total task(s) on 1 node(s)\n"
           "1 tasks, 8 files\n\n"
           "SUMMARY rate (in ops/sec): (of 1 iterations)\n"
           "   Operation                     Max            Min           Mean        Std Dev\n"
           "   ---------                     ---            ---           ----        -------\n"
           "   File creation               1000.000       1000.000       1000.000          0.000\n"
           "   File stat                   5000.000       5000.000       5000.000          0.000\n"
           "   Tree creation                 10.000         10.000         10.000          0.000\n";
  }
  const auto cmp = iobench::test::run_cli({"compare", json, theirs});
  INFO(cmp.err);
  REQUIRE(cmp.exit_code == 0);
  CHECK_THAT(cmp.out, Catch::Contains("#1  mdtest (4.1.0+dev)"));
  CHECK_THAT(cmp.out, Catch::Contains("phase File creation"));
  CHECK_THAT(cmp.out, Catch::Contains("phase File stat"));
  CHECK_THAT(cmp.out, Catch::Contains("1000.0"));
}

TEST_CASE("mdtest compare reads a verify_read run beside mdtest -X output with its errors",
          "[mdtest][cli][verify]") {
  TempDir dir("mdtest_compare_verify");
  const std::string json = (dir.path() / "ours.json").string();
  const auto run = iobench::test::run_cli({"run", "mdtest", "-d", dir.path().string(), "items=8",
                                           "files_only=true", "write_bytes=100", "read_bytes=100",
                                           "verify_read=true", "-f", "json", "-o", json, "-q"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::string theirs = (dir.path() / "mdtest.txt").string();
  {
    // mdtest -E -X's end when the files held another seed's pattern: its error line after the
    // tables (mdtest exits 0).
    std::ofstream out(theirs);
    out << "mdtest-4.1.0+dev was launched with 1 total task(s) on 1 node(s)\n"
           "1 tasks, 8 files\n\n"
           "SUMMARY rate (in ops/sec): (of 1 iterations)\n"
           "   Operation                     Max            Min           Mean        Std Dev\n"
           "   ---------                     ---            ---           ----        -------\n"
           "   File creation                   0.000          0.000          0.000          0.000\n"
           "   File read                   89717.733      89717.733      89717.733          0.000\n"
           "   Tree creation                   0.000          0.000          0.000          0.000\n"
           "\n"
           "ERROR: verifying the data on read (8 errors)! Take the performance values with care!\n"
           "\n"
           "-- finished at 12/07/2026 05:17:22 --\n";
  }
  const auto cmp = iobench::test::run_cli({"compare", json, theirs});
  INFO(cmp.err);
  REQUIRE(cmp.exit_code == 0);
  CHECK_THAT(cmp.out, Catch::Contains("phase File read"));
  CHECK_THAT(cmp.out, Catch::Contains("89717.7"));
  // Its 8 errors against our run's none fail the gate whatever PCT (no metric can be worse by
  // more than 1000 %); swapped, fewer errors than the baseline pass it.
  const auto gate = iobench::test::run_cli(
      {"compare", json, theirs, "--fail-if-worse", "1000", "--phases", "File read"});
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Catch::Contains("failure counter mismatches is higher in #1 (" + theirs +
                                       ") than in the baseline: step mdtest, phase File read: "
                                       "8 > 0"));
  CHECK(iobench::test::run_cli(
            {"compare", theirs, json, "--fail-if-worse", "1000", "--phases", "File read"})
            .exit_code == 0);
}

TEST_CASE(
    "mdtest tree rates, printed and from the JSON, are the tree's directories over the ops span",
    "[mdtest][cli][summary]") {
  TempDir dir("mdtest_tree_span");
  const std::string json = (dir.path() / "ours.json").string();
  // Beside the JSON file, the text report on stdout.
  const auto run = iobench::test::run_cli({"run", "mdtest", "-d", dir.path().string(), "items=6",
                                           "branch=2", "depth=1", "-f", "json", "-o", json});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  // The printed SUMMARY tables, parsed back.
  const ParsedSummary parsed = parse_summary(run.out);
  REQUIRE(parsed.rate);
  REQUIRE(parsed.time);
  const ResultDocument doc = load_result_file(json);
  const StepResult& step = doc.run.steps.at(0);
  // The JSON gives the same tables (what compare and report read).
  std::ostringstream from_json;
  format_mdtest_text(step, from_json);
  const ParsedSummary again = parse_summary(from_json.str());
  REQUIRE(again.rate);
  REQUIRE(again.rate->rows.size() == parsed.rate->rows.size());
  for (std::size_t i = 0; i < again.rate->rows.size(); ++i) {
    CHECK(again.rate->rows[i].operation == parsed.rate->rows[i].operation);
    CHECK(again.rate->rows[i].max == parsed.rate->rows[i].max);
    CHECK(again.time->rows[i].max == parsed.time->rows[i].max);
  }
  const AttributeValue* dirs = step.attribute("dirs_in_tree");
  REQUIRE(dirs != nullptr);
  CHECK(std::get<std::int64_t>(*dirs) == 3);  // -b 2 -z 1: the root and its 2 children
  for (const char* name : {"Tree creation", "Tree removal"}) {
    INFO(name);
    const PhaseResult* phase = nullptr;
    for (const PhaseResult& p : step.phases) {
      if (p.name == name) phase = &p;
    }
    REQUIRE(phase != nullptr);
    REQUIRE(phase->workers.size() == 1);
    REQUIRE(phase->wall_ns > 0);
    // The phase is timed from its first mkdir's (rmdir's) start to its last's end: the one
    // worker's ops back to back, not the runner's release of it.
    REQUIRE(phase->ops.size() == 1);
    CHECK(phase->wall_ns == phase->ops[0].latency.sum());
    const double seconds = static_cast<double>(phase->wall_ns) / 1e9;
    const SummaryRow* rate = parsed.rate->row(name);
    REQUIRE(rate != nullptr);
    // %14.3f: within half a unit of the last printed decimal (and its relative rounding).
    CHECK(rate->max == Approx(3.0 / seconds).margin(0.0006));
    CHECK(parsed.time->row(name)->max == Approx(seconds).margin(0.0006));
  }
}
