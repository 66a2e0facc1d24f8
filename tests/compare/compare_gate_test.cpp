// What `iobench compare --fail-if-worse` reads from results that did not end ok, and how the
// outputs show it: a failure counter's counts in failed results (JSON).
#include <catch2/catch.hpp>
#include <iobench/compare.hpp>
#include <nlohmann/json.hpp>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;

TEST_CASE("compare's JSON carries a failure counter's counts in failed results",
          "[compare][cli][counters]") {
  // Three inputs: the baseline's and #1's read ended ok with 0 mismatches, #2's failed with 3
  // (its only read result: no ok one).
  TempDir dir("compare-gate-json");
  const std::string clean = write_document(dir, "clean.json", counter_document(0, 40));
  const std::string also = write_document(dir, "also.json", counter_document(0, 40));
  const std::string broken = write_document(dir, "broken.json", failed_read_document());
  const CliResult json =
      run_cli({"compare", clean, also, broken, "-f", "json", "--phases", "read"});
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  REQUIRE(j.at("phases").size() == 1);
  const nlohmann::json& mismatches = counter_entry(j.at("phases").at(0), "mismatches");
  CHECK(mismatches.at("worse") == nlohmann::json::array({2}));
  const nlohmann::json& inputs = mismatches.at("inputs");
  REQUIRE(inputs.size() == 3);
  // The baseline: one ok result of 0, no failed one; the gate's mean 0.
  CHECK(inputs.at(0) == nlohmann::json::parse(R"({"n": 1, "total": 0, "mean": 0.0,
      "values": [0], "failed": null, "gate_mean": 0.0})"));
  CHECK(inputs.at(1) == inputs.at(0));
  // #2: no ok result, so nothing over the ok results, but the failed result's 3 mismatches and
  // the mean the gate compared (3 > 0: worse).
  CHECK(inputs.at(2) == nlohmann::json::parse(R"({"n": 0, "total": null, "mean": null,
      "values": [], "failed": {"n": 1, "total": 3, "mean": 3.0, "values": [3]},
      "gate_mean": 3.0})"));
  // The same figures as the gate's reason on stderr.
  const CliResult gate =
      run_cli({"compare", clean, also, broken, "--fail-if-worse", "1000", "--phases", "read"});
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Contains("failure counter mismatches is higher in #2 (" + broken +
                                ") than in the baseline: step md, phase read: 3 in failed "
                                "results > 0"));
}

