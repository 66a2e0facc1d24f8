// The HTML report of two runs shows, per aligned phase, both runs' explanations side by side
// (issue 29) as `compare` does: the findings that differ first, then the storage, device figures
// and findings of each run, numbered as the page numbers its runs (#1 the baseline). Read back
// from the page's embedded model.
#include <catch2/catch.hpp>
#include <iobench/html_report.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using RawJson = nlohmann::json;

namespace {

// A one-phase run (compare_read_phase, 1 s) with `explanation` (none: a result without one).
ReportInput read_input(const std::string& label,
                       std::optional<explain::PhaseExplanation> explanation) {
  PhaseResult phase = test::compare_read_phase(test::kSecond);
  phase.explanation = std::move(explanation);
  const ResultDocument doc = test::single_run_document(
      test::compare_environment(), {test::compare_step("seq", {std::move(phase)})});
  const std::string text = to_json(doc);
  return ReportInput{.label = label, .document = parse_result_json(text), .json_text = text};
}

// The page's embedded model.comparison.
RawJson page_comparison(const std::vector<ReportInput>& inputs) {
  std::ostringstream out;
  write_html_report(inputs, out);
  const std::string page = out.str();
  const std::string open = "<script type=\"application/json\" id=\"iobench-data\">";
  const std::size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const std::size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return RawJson::parse(page.substr(start + open.size(), end - start - open.size()))["comparison"];
}

}  // namespace

TEST_CASE("the HTML report's runs side by side show both explanations, differing findings first") {
  // #1: 614 sectors (307 KiB) of the 256 MiB read from loop0; #2: all 256 MiB, loop0 busy 2 s.
  const RawJson c =
      page_comparison({read_input("cached.json", test::loop_read_explanation(614, 40)),
                       read_input("dropped.json", test::loop_read_explanation(
                                                      test::kLoopReadAppBytes / 512, 2000))});
  REQUIRE(c["phases"].size() == 1);
  const RawJson& e = c["phases"][0]["explain"];
  REQUIRE(e.is_object());
  CHECK(e["findings"] == RawJson::array({"#2's reads came from the device (device_reads), #1's "
                                         "from the page cache (page_cache_reads)",
                                         "only in #2, not in #1: device_saturated"}));
  // 614 x 512 = 314368 B = 307 KiB; 100 x (1 - 314368 / 268435456) = 99.88 %; 40 ms of 2 s.
  const RawJson figures = RawJson::array({
      {"storage", "ext4 on loop0 > vda", "ext4 on loop0 > vda"},
      {"device read", "307 KiB", "256 MiB"},
      {"device written", "0 B", "0 B"},
      {"page cache reads", "99.9 %", "0.0 %"},
      {"read amplification", "x0.001", "x1.000"},
      {"write amplification", "-", "-"},
      {"device util", "2.0 % (loop0)", "100.0 % (loop0)"},
      {"findings", "page_cache_reads", "device_reads, device_saturated"},
  });
  CHECK(e["figures"] == figures);
  // The figures as numbers, and the differences by input index (from 0, as compare's JSON).
  REQUIRE(e["inputs"].size() == 2);
  CHECK(e["inputs"][0]["device_read_bytes"] == 314368);
  CHECK(e["inputs"][1]["device_read_bytes"] == test::kLoopReadAppBytes);
  CHECK(e["inputs"][1]["util_percent"].get<double>() == Approx(100.0));
  CHECK(e["inputs"][0]["page_cache_read_percent"].get<double>() ==
        Approx(100.0 * (1.0 - 314368.0 / 268435456.0)));
  REQUIRE(e["differences"].size() == 1);
  CHECK(e["differences"][0]["input"] == 1);
  CHECK(e["differences"][0]["contrasts"][0]["input_finding"] == "device_reads");
  CHECK(e["differences"][0]["contrasts"][0]["baseline_finding"] == "page_cache_reads");
  CHECK(e["differences"][0]["only_input"] == RawJson::array({"device_saturated"}));
  // The metrics are still there, after the explanation.
  CHECK_FALSE(c["phases"][0]["metrics"].empty());
}

TEST_CASE("the HTML report's runs side by side have no explanation where a run lacks one") {
  const RawJson older =
      page_comparison({read_input("a.json", std::nullopt), read_input("b.json", std::nullopt)});
  CHECK(older["phases"].at(0)["explain"].is_null());
  const RawJson mixed = page_comparison({read_input("a.json", std::nullopt),
                                         read_input("b.json", test::loop_read_explanation(8, 1))});
  CHECK(mixed["phases"].at(0)["explain"].is_null());
}
