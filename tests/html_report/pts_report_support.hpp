#pragma once

// The HTML report's SNIA PTS plots: a small real run of every PTS test (at 100 ms rounds, cut
// matrices) and a disk phase with steady_state=, and the points each plot must hold, counted
// from the result's JSON (pts.* attributes, the phase's steady_state window).
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_support.hpp"

namespace iobench::pts_report_test {

using RawJson = nlohmann::json;

constexpr const char* kPtsSuite = R"json({
  "name": "pts-report-test",
  "steps": [
    {"name": "iops", "workload": "pts",
     "params": {"test": "iops", "mixes": "100/0,0/100", "block_sizes": "4k,8k",
                "capacity": "1m", "round_time": "100ms", "rounds": 5}},
    {"name": "throughput", "workload": "pts",
     "params": {"test": "throughput", "block_sizes": "128k", "capacity": "1m",
                "round_time": "100ms", "rounds": 5}},
    {"name": "latency", "workload": "pts",
     "params": {"test": "latency", "mixes": "100/0,0/100", "block_sizes": "4k",
                "capacity": "1m", "round_time": "100ms", "rounds": 5}},
    {"name": "wsat", "workload": "pts",
     "params": {"test": "wsat", "capacity": "256k", "round_time": "100ms"}},
    {"name": "dirth", "workload": "pts",
     "params": {"test": "dirth", "engine": "libaio", "threads": "1,2", "depths": "1,2",
                "capacity": "1m", "round_time": "100ms", "rounds": 5}},
    {"name": "steady", "workload": "disk",
     "params": {"operation": "read", "size": "1m", "time_based": true, "rate_iops": 500,
                "steady_state": "iops:101%", "ss_dur": "400ms", "ss_interval": "200ms"},
     "time": "60s"}
  ]
})json";

// Runs the suite on `target`; the JSON result's path (in `dir`).
inline std::string run_pts_suite(const test::TempDir& dir, const std::string& target) {
  const std::string suite = (dir.path() / "pts-suite.json").string();
  std::ofstream(suite) << kPtsSuite;
  const std::string json = (dir.path() / "pts-run.json").string();
  const test::CliResult run =
      test::run_cli({"run", suite, "-d", target, "-f", "json", "-o", json, "-q"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  return json;
}

inline double attr(const RawJson& step, const std::string& key) {
  INFO(key);
  REQUIRE(step.at("attributes").contains(key));
  return step.at("attributes").at(key).get<double>();
}

inline std::string text_attr(const RawJson& step, const std::string& key) {
  INFO(key);
  REQUIRE(step.at("attributes").contains(key));
  return step.at("attributes").at(key).get<std::string>();
}

inline std::size_t count_of(const std::string& list) {
  return list.empty() ? 0 : static_cast<std::size_t>(std::count(list.begin(), list.end(), ',')) + 1;
}

// "KIND|STEP" (or "KIND|STEP|CHART", "steady_state|STEP|PHASE") -> the points the plot holds:
// the tracked rounds, the matrix cells, WSAT's rounds, DIRTH's TC x QD cells and histogram bins,
// a steady_state= phase's samples (its series; the window in a file written before it).
inline std::map<std::string, std::size_t> expected_pts_points(const RawJson& doc) {
  std::map<std::string, std::size_t> expected;
  for (std::size_t i = 0; i < doc.at("steps").size(); ++i) {
    const RawJson& step = doc.at("steps").at(i);
    const std::string at = std::to_string(i);
    const auto& phases = step.at("phases");
    for (std::size_t p = 0; p < phases.size(); ++p) {
      if (phases[p].contains("steady_state")) {
        const RawJson& steady = phases[p].at("steady_state");
        expected[fmt::format("steady_state|{}|{}", i, p)] =
            steady.contains("series") ? steady.at("series").size() : steady.at("window").size();
      }
    }
    if (step.at("workload") != "pts") continue;
    const std::string test = text_attr(step, "pts.test");
    const auto rounds = static_cast<std::size_t>(attr(step, "pts.rounds"));
    expected["pts_rounds|" + at] = rounds;
    const std::size_t cells =
        count_of(text_attr(step, "pts.mixes")) * count_of(text_attr(step, "pts.block_sizes"));
    if (test == "iops") {
      expected["pts_iops_bs|" + at] = cells;
      expected["pts_heatmap|" + at] = cells;
    } else if (test == "throughput") {
      expected["pts_bars|" + at + "|0"] = cells;
    } else if (test == "latency") {
      for (int chart = 0; chart < 3; ++chart)
        expected[fmt::format("pts_bars|{}|{}", at, chart)] = cells;
    } else if (test == "wsat") {
      expected["pts_wsat_time|" + at] = rounds;
      expected["pts_wsat_written|" + at] = rounds;
    } else if (test == "dirth") {
      expected["pts_dirth|" + at] =
          count_of(text_attr(step, "pts.threads")) * count_of(text_attr(step, "pts.depths"));
      expected["pts_histogram|" + at + "|0"] =
          count_of(text_attr(step, "pts.dirth.max_iops.histogram"));
      expected["pts_histogram|" + at + "|1"] =
          count_of(text_attr(step, "pts.dirth.min_latency.histogram"));
    }
  }
  return expected;
}

}  // namespace iobench::pts_report_test
