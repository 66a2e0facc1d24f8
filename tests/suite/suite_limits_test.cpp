// A suite whose plan is absurd (millions of runs, years of time limits) is refused as bad input
// before its runs are built, instead of running out of memory (std::bad_alloc, exit 1).
#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/suite.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_support.hpp"

using iobench::test::TempDir;

namespace {

std::string plan_error(const std::string& text, const std::filesystem::path& dir) {
  static const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::SuiteOverrides overrides;
  overrides.default_target = dir;
  try {
    (void)iobench::plan_suite(iobench::parse_suite(text, "big.json"), registry, overrides, {});
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string sweep_suite(std::size_t values, unsigned repeat) {
  nlohmann::json sweep = nlohmann::json::array();
  for (std::size_t v = 1; v <= values; ++v) sweep.push_back(v);
  return nlohmann::json{{"steps",
                         {{{"workload", "disk"},
                           {"repeat", repeat},
                           {"sweep", {{"param", "blocks"}, {"values", sweep}}}}}}}
      .dump();
}

}  // namespace

TEST_CASE("a suite planning too many runs is refused before any is built", "[suite]") {
  TempDir dir("limits");
  // 20,000 points x 1000 repetitions: twenty million runs.
  const std::string error = plan_error(sweep_suite(20'000, 1000), dir.path());
  CHECK(error ==
        "big.json: /steps/0: the suite plans more than 10000 runs (20000000 from this step: "
        "20000 point(s) x repeat 1000); sweep fewer values or repeat less");
  // The limit itself is fine.
  CHECK(plan_error(sweep_suite(10, 1000), dir.path()).empty());
}

TEST_CASE("a suite whose time limits and pauses come to years is refused", "[suite]") {
  TempDir dir("limits");
  const std::string error = plan_error(
      R"({"pause": "200000h", "steps": [{"workload": "disk", "repeat": 1000},
          {"workload": "disk", "time": "1000000h", "warmup": "10s"}]})",
      dir.path());
  CHECK(error ==
        "big.json: /steps: the suite's time limits, warm-ups and pauses alone come to 213503 "
        "days over 1001 runs, more than a year; shorten them or plan fewer runs");
  CHECK(plan_error(R"({"pause": "1h", "steps": [{"workload": "disk", "repeat": 24}]})", dir.path())
            .empty());
}
