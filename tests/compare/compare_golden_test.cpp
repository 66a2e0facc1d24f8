// The printed comparison, exactly: text, Markdown, CSV and JSON of crafted document pairs (see
// golden/; IOBENCH_UPDATE_GOLDEN=1 rewrites them).
#include <catch2/catch.hpp>
#include <iobench/compare.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/report/golden.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;

namespace {

using ::iobench::test::kSecond;

// Kernel 6.1 on relatime against 6.8 on noatime: writes twice as fast, reads half as fast.
std::vector<CompareInput> improved_and_regressed() {
  Environment newer = compare_environment();
  newer.kernel = "Linux 6.8.0-1-amd64";
  newer.targets[0].mount_options = "rw,noatime";
  return {
      {"6.1.json",
       through_json(single_run_document(
           compare_environment(),
           {compare_step("seq", {compare_write_phase(kSecond), compare_read_phase(kSecond)})}))},
      {"6.8.json", through_json(single_run_document(
                       newer, {compare_step("seq", {compare_write_phase(kSecond / 2),
                                                    compare_read_phase(2 * kSecond, 75'000)})}))}};
}

// Three repetitions a side: the write within noise, the read 20 % slower beyond it.
std::vector<CompareInput> repetitions() {
  return {
      {"base.json", through_json(repeated_document(
                        compare_environment(),
                        {{compare_write_phase(1'000'000'000), compare_read_phase(1'000'000'000)},
                         {compare_write_phase(1'020'000'000), compare_read_phase(1'010'000'000)},
                         {compare_write_phase(980'000'000), compare_read_phase(990'000'000)}}))},
      {"patched.json",
       through_json(repeated_document(
           compare_environment(),
           {{compare_write_phase(1'010'000'000), compare_read_phase(1'250'000'000)},
            {compare_write_phase(990'000'000), compare_read_phase(1'240'000'000)},
            {compare_write_phase(1'030'000'000), compare_read_phase(1'260'000'000)}}))}};
}

// Three inputs; "meta" only in the first, "rand" failed in the third, "read" missing in the second.
std::vector<CompareInput> mismatched() {
  StepResult failed = compare_step("rand", {});
  failed.status = Status::kFailed;
  failed.message = "pwrite: No space left on device";
  return {{"a.json",
           through_json(single_run_document(
               compare_environment(),
               {compare_step("seq", {compare_write_phase(kSecond), compare_read_phase(kSecond)}),
                compare_step("meta", {compare_phase("create", kSecond, 100, 0, 20'000)})}))},
          {"b.json",
           through_json(single_run_document(
               compare_environment(), {compare_step("seq", {compare_write_phase(kSecond)})}))},
          {"c.json", through_json(single_run_document(
                         compare_environment(), {compare_step("seq", {compare_write_phase(kSecond),
                                                                      compare_read_phase(kSecond)}),
                                                 failed}))}};
}

}  // namespace

TEST_CASE("golden: an improved and a regressed phase, differing environments",
          "[compare][golden]") {
  const Comparison c = compare_results(improved_and_regressed());
  check_golden("improved_regressed.txt", comparison_text(c));
  std::ostringstream markdown;
  write_comparison_markdown(c, markdown);
  check_golden("improved_regressed.md", markdown.str());
  std::ostringstream csv;
  write_comparison_csv(c, csv);
  check_golden("improved_regressed.csv", csv.str());
  const std::string json = comparison_to_json(c);
  check_golden("improved_regressed.json", json + "\n");

  // The CSV and JSON carry the figures in their own units: read them back.
  const std::vector<CsvRecord> rows = parse_csv(csv.str());
  REQUIRE(rows.size() == 1 + 2 * 8);
  CHECK(rows[1][0] == "seq");
  CHECK(rows[1][3] == "write");
  CHECK(rows[1][4] == "throughput");
  CHECK(rows[1][5] == "bytes/s");
  CHECK(std::stod(rows[1][10]) == 1000.0 * (1 << 20));
  CHECK(std::stod(rows[1][13]) == 2000.0 * (1 << 20));
  CHECK(std::stod(rows[1][15]) == 100.0);
  CHECK(rows[1][16] == "better");
  CHECK(rows[1][17] == "n=1: no noise estimate");
  const auto j = nlohmann::json::parse(json);
  CHECK(j.at("environment").size() == 2);
  CHECK(j.at("phases").at(1).at("metrics").at(1).at("changes").at(0).at("direction") == "worse");
}

TEST_CASE("golden: repetitions, within noise and significant", "[compare][golden]") {
  check_golden("repetitions.txt", comparison_text(compare_results(repetitions())));
}

TEST_CASE("golden: mismatched steps over three inputs", "[compare][golden]") {
  const Comparison c = compare_results(mismatched());
  check_golden("mismatched.txt", comparison_text(c));
  std::ostringstream markdown;
  write_comparison_markdown(c, markdown);
  check_golden("mismatched.md", markdown.str());
}
