// compare's explain block: phases whose explanations come from explain_phase over crafted
// diskstats snapshots (ext4 on loop0 over vda, 2 s), written to JSON and read back as saved
// files would be; the differing findings first, the figures side by side, and old results
// without `explain` compared as before.
#include <catch2/catch.hpp>
#include <iobench/compare.hpp>
#include <iobench/explain.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;

namespace {

constexpr std::uint64_t kAppRead = kLoopReadAppBytes;  // the application read 256 MiB

explain::PhaseExplanation loop_read(std::uint64_t sectors, std::uint64_t io_ms) {
  return loop_read_explanation(sectors, io_ms);
}

PhaseResult explained_read(std::optional<explain::PhaseExplanation> explanation) {
  PhaseResult phase = compare_read_phase(kSecond);
  phase.explanation = std::move(explanation);
  return phase;
}

ResultDocument read_document(std::optional<explain::PhaseExplanation> explanation) {
  return single_run_document(compare_environment(),
                             {compare_step("seq", {explained_read(std::move(explanation))})});
}

Comparison compared(const ResultDocument& a, const ResultDocument& b) {
  const std::vector<CompareInput> inputs{{"cached.json", through_json(a)},
                                         {"dropped.json", through_json(b)}};
  return compare_results(inputs);
}

}  // namespace

TEST_CASE("compare says first which findings differ, then the explanations side by side",
          "[compare][explain]") {
  // #0: 614 sectors (307 KiB) of 256 MiB read from loop0; #1: all 256 MiB, loop0 busy 2 s.
  const Comparison c =
      compared(read_document(loop_read(614, 40)), read_document(loop_read(kAppRead / 512, 2000)));
  REQUIRE(c.phases.size() == 1);
  REQUIRE(c.phases[0].explain);
  const ExplainComparison& e = *c.phases[0].explain;
  REQUIRE(e.inputs.size() == 2);
  REQUIRE(e.inputs[0]);
  CHECK(e.inputs[0]->findings == std::vector<std::string>{"page_cache_reads"});
  CHECK(e.inputs[1]->findings == std::vector<std::string>{"device_reads", "device_saturated"});
  CHECK(e.inputs[1]->device_read_bytes == kAppRead);
  REQUIRE(e.differences.size() == 1);
  const FindingsDifference& d = e.differences[0];
  CHECK(d.input == 1);
  REQUIRE(d.contrasts.size() == 1);
  CHECK(d.contrasts[0].topic == "reads");
  CHECK(d.contrasts[0].input_finding == "device_reads");
  CHECK(d.contrasts[0].baseline_finding == "page_cache_reads");
  CHECK(d.only_input == std::vector<std::string>{"device_saturated"});
  CHECK(d.only_baseline.empty());
  CHECK(d.both.empty());

  const std::string text = comparison_text(c);
  // 614 x 512 = 314368 B = 307 KiB; 100 x (1 - 314368 / 268435456) = 99.88 %; 40 ms of 2 s.
  const std::string block =
      "== step seq (disk), phase read\n"
      "Explain (what the kernel and the devices did; findings that differ first):\n"
      "  #1's reads came from the device (device_reads), #0's from the page cache "
      "(page_cache_reads)\n"
      "  only in #1, not in #0: device_saturated\n"
      "                       #0                   #1\n"
      "  storage              ext4 on loop0 > vda  ext4 on loop0 > vda\n"
      "  device read          307 KiB              256 MiB\n"
      "  device written       0 B                  0 B\n"
      "  page cache reads     99.9 %               0.0 %\n"
      "  read amplification   x0.001               x1.000\n"
      "  write amplification  -                    -\n"
      "  device util          2.0 % (loop0)        100.0 % (loop0)\n"
      "\n"
      "  metric";
  CHECK_THAT(text, Catch::Matchers::Contains(block));
  // Before any significance test: the block precedes the phase's metric table.
  CHECK(text.find("#1's reads came from the device") < text.find("throughput (MiB/s)"));

  const nlohmann::json j = nlohmann::json::parse(comparison_to_json(c));
  const nlohmann::json& ej = j.at("phases").at(0).at("explain");
  CHECK(ej.at("inputs").at(0).at("device_read_bytes") == 314368);
  CHECK(ej.at("inputs").at(1).at("util_percent") == 100.0);
  CHECK(ej.at("inputs").at(0).at("storage") == "ext4 on loop0 > vda");
  const nlohmann::json& dj = ej.at("differences").at(0);
  CHECK(dj.at("input") == 1);
  CHECK(dj.at("baseline") == 0);
  CHECK(dj.at("contrasts").at(0).at("input_finding") == "device_reads");
  CHECK(dj.at("contrasts").at(0).at("baseline_finding") == "page_cache_reads");
  CHECK(dj.at("contrasts").at(0).at("sentence") ==
        "#1's reads came from the device (device_reads), #0's from the page cache "
        "(page_cache_reads)");
  CHECK(dj.at("only_input") == nlohmann::json::array({"device_saturated"}));
  CHECK(dj.at("only_baseline") == nlohmann::json::array());

  std::ostringstream md;
  write_comparison_markdown(c, md);
  CHECK_THAT(md.str(),
             Catch::Matchers::Contains(
                 "- #1's reads came from the device (device_reads), #0's from the page "
                 "cache (page_cache_reads)\n- only in #1, not in #0: device_saturated\n"));
  CHECK_THAT(md.str(), Catch::Matchers::Contains("| device read | 307 KiB | 256 MiB |\n"));
}

TEST_CASE("findings both inputs have are listed plainly and write bands contrast",
          "[compare][explain]") {
  explain::PhaseExplanation base = loop_read(614, 40);
  explain::PhaseExplanation other = loop_read(614, 40);
  base.findings.push_back({"writes_absorbed_by_page_cache", "absorbed"});
  other.findings.push_back({"writes_reached_device", "reached"});
  other.findings.push_back({"cpu_bound", "busy"});
  const Comparison c = compared(read_document(base), read_document(other));
  REQUIRE(c.phases.at(0).explain);
  const FindingsDifference& d = c.phases[0].explain->differences.at(0);
  CHECK(d.both == std::vector<std::string>{"page_cache_reads"});
  CHECK(d.only_input == std::vector<std::string>{"cpu_bound"});
  REQUIRE(d.contrasts.size() == 1);
  CHECK(d.contrasts[0].sentence ==
        "#1's writes reached the device (writes_reached_device), #0's were absorbed by the page "
        "cache (writes_absorbed_by_page_cache)");
  const std::string text = comparison_text(c);
  CHECK_THAT(text, Catch::Matchers::Contains(
                       "(writes_absorbed_by_page_cache)\n  only in #1, not in #0: cpu_bound\n"
                       "  in #0 and #1: page_cache_reads\n"));
}

TEST_CASE("results without explain compare as before, without the block", "[compare][explain]") {
  const Comparison old = compared(read_document(std::nullopt), read_document(std::nullopt));
  REQUIRE(old.phases.size() == 1);
  CHECK_FALSE(old.phases[0].explain);
  // One side with an explanation, the other an older result: nothing to set side by side.
  const Comparison mixed = compared(read_document(std::nullopt), read_document(loop_read(8, 1)));
  CHECK_FALSE(mixed.phases.at(0).explain);
  for (const Comparison* c : {&old, &mixed}) {
    CHECK(comparison_text(*c).find("Explain") == std::string::npos);
    CHECK_FALSE(
        nlohmann::json::parse(comparison_to_json(*c)).at("phases").at(0).contains("explain"));
  }
}
