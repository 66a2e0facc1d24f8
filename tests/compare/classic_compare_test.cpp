// compare over the classic tools' results: goldens of a bonnie++ CSV pair and a fio pair, a
// mixed compare (iobench JSON against bonnie++ CSV) on the phases they share, and the CLI's
// --from and exit 2 with file:line.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>
#include <sstream>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/report/golden.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;

namespace {

using ::iobench::test::kSecond;

std::string data_file(const std::string& name) {
  return (std::filesystem::path(IOBENCH_COMPARE_DATA_DIR) / name).string();
}

// Labelled by file name, so the goldens do not depend on where the tree is.
CompareInput input(const std::string& name) {
  return CompareInput{.label = name, .document = read_result_file(data_file(name))};
}

const PhaseComparison* find(const Comparison& c, const std::string& phase) {
  for (const PhaseComparison& p : c.phases) {
    if (p.phase == phase) return &p;
  }
  return nullptr;
}

const MetricRow* find_row(const PhaseComparison& p, CompareMetric metric) {
  for (const MetricRow& row : p.metrics) {
    if (row.metric == metric) return &row;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("golden: a bonnie++ CSV pair of seed 002 (without, with the speedup patch)",
          "[compare][classic][golden]") {
  const std::vector<CompareInput> inputs{input("seed002_unpatched.csv"),
                                         input("seed002_patched.csv")};
  const Comparison c = compare_results(inputs);
  check_golden("classic_bonnie_csv.txt", comparison_text(c));
  // putc: 21468 -> 37048 K/sec, +72.57 %; seq_stat "+++++" on both sides: shown, not compared.
  const PhaseComparison* putc = find(c, "putc");
  REQUIRE(putc != nullptr);
  const MetricRow* throughput = find_row(*putc, CompareMetric::kThroughput);
  REQUIRE(throughput != nullptr);
  CHECK(throughput->inputs[0].values == std::vector<double>{21468 * 1024.0});
  CHECK(*throughput->changes[0]->change_percent == Approx((37048.0 - 21468.0) / 21468.0 * 100));
  const PhaseComparison* stat = find(c, "seq_stat");
  REQUIRE(stat != nullptr);
  const MetricRow* iops = find_row(*stat, CompareMetric::kIops);
  REQUIRE(iops != nullptr);
  CHECK(iops->inputs[0].unavailable == Unavailable::kTooFast);
  CHECK(iops->inputs[0].values.empty());
  CHECK_FALSE(iops->changes[0].has_value());
  CHECK(regressions(c, 0).size() > 0);  // e.g. ran_create's files/s
}

TEST_CASE("golden: a fio pair", "[compare][classic][golden]") {
  const std::vector<CompareInput> inputs{input("fio_a.json"), input("fio_b.json")};
  const Comparison c = compare_results(inputs);
  check_golden("classic_fio.txt", comparison_text(c));
  std::ostringstream markdown;
  write_comparison_markdown(c, markdown);
  check_golden("classic_fio.md", markdown.str());
  check_golden("classic_fio.json", comparison_to_json(c) + "\n");
  REQUIRE(c.phases.size() == 2);
  CHECK(c.phases[0].step == "seqwrite");
  CHECK(c.phases[1].phase == "read");
  // lat_p50/p99/p99.9 come from clat_ns percentiles: all eight metrics are there.
  CHECK(c.phases[0].metrics.size() == 8);
}

TEST_CASE("mixed compare: iobench JSON against bonnie++ CSV on the phases they share",
          "[compare][classic]") {
  StepResult step =
      compare_step("bonnie", {compare_phase("put_block", kSecond, 3565, 8192, 1000),
                              compare_phase("get_block", kSecond, 10000, 8192, 1000)});
  step.workload = "bonnie";
  const std::vector<CompareInput> inputs{
      {"iobench.json", through_json(single_run_document(compare_environment(), {step}))},
      input("seed002_unpatched.csv")};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.phases.size() == 2);
  const MetricRow* put = find_row(c.phases[0], CompareMetric::kThroughput);
  REQUIRE(put != nullptr);
  CHECK(put->inputs[0].values == std::vector<double>{3565.0 * 8192});
  CHECK(put->inputs[1].values == std::vector<double>{28510 * 1024.0});
  REQUIRE(put->changes[0].has_value());
  // bonnie++ 1.0x has no latency: not available in #1, listed, never 0.
  const MetricRow* p99 = find_row(c.phases[0], CompareMetric::kLatencyP99);
  REQUIRE(p99 != nullptr);
  CHECK(p99->inputs[1].unavailable == Unavailable::kNotReported);
  CHECK_FALSE(p99->changes[0].has_value());
  bool listed = false;
  for (const NotAvailable& entry : c.not_available) {
    listed = listed || (entry.input == 1 && entry.metric == CompareMetric::kLatencyP99);
  }
  CHECK(listed);
  // The other ten bonnie++ phases only #1 has: listed as unmatched.
  std::size_t unmatched = 0;
  for (const UnmatchedPart& part : c.unmatched)
    unmatched += part.missing == std::vector<std::size_t>{0};
  CHECK(unmatched == 10);
  // The environment difference names the sources.
  bool source = false;
  for (const EnvironmentDifference& d : c.environment) {
    source = source || (d.field == "source" && d.values[1] == "bonnie-csv (1.0x)");
  }
  CHECK(source);
  const std::string text = comparison_text(c);
  CHECK_THAT(text, Contains("n/a in #1: not reported"));
}

TEST_CASE("compare CLI: classic inputs, --from, exit 2 with file:line", "[compare][classic][cli]") {
  const CliResult ok =
      run_cli({"compare", data_file("seed002_unpatched.csv"),
               data_file("seed002_bonnie_patched.txt"), "--metrics", "throughput"});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Contains("phase put_block"));
  const CliResult named = run_cli({"compare", data_file("seed003_pre9-3.txt"),
                                   data_file("seed003_2.3.42.txt"), "--from", "bonnie-text"});
  CHECK(named.exit_code == 0);
  const CliResult each =
      run_cli({"compare", data_file("seed002_unpatched.csv"),
               data_file("seed002_bonnie_patched.txt"), "--from", "bonnie-csv,bonnie-text"});
  CHECK(each.exit_code == 0);
  // A bonnie++ CSV read as tiotest: exit 2, nothing on stdout, the file and line named.
  const CliResult wrong = run_cli({"compare", data_file("seed002_unpatched.csv"),
                                   data_file("seed002_patched.csv"), "--from", "tiotest"});
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.out.empty());
  CHECK_THAT(wrong.err,
             Contains(data_file("seed002_unpatched.csv") + ":1: expected tiotest output"));
  const TempDir dir("classic_cli");
  const std::string broken = (dir.path() / "broken.csv").string();
  {
    std::ofstream out(broken);
    out << "1.98,2.00a,vm,1,1796199234,16M,,8192,5,662,36\n";
  }
  const CliResult bad = run_cli({"compare", data_file("bonnie_198.csv"), broken});
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Contains(broken + ":1: expected 50 fields in a bonnie++ 1.98 CSV line"));
}
