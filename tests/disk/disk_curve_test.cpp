// curve= and latency_target= of the disk workload: the parsers, the bisection on a simulated
// knee, and a run whose open-loop rates and probes follow exactly from its closed-loop phase.
#include "plugins/disk/disk_curve.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plugins/disk/disk_formatter.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::disk;

namespace {

double attribute_number(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  REQUIRE(value != nullptr);
  if (const auto* d = std::get_if<double>(value)) return *d;
  return static_cast<double>(std::get<std::int64_t>(*value));
}

}  // namespace

TEST_CASE("curve= reads whole percentages and refuses anything else", "[disk][curve]") {
  CHECK(parse_curve("10,50,70,80,90,100") == std::vector<std::uint32_t>{10, 50, 70, 80, 90, 100});
  CHECK(parse_curve("120") == std::vector<std::uint32_t>{120});
  for (const char* bad : {"", "0", "10,,50", "10,", "1001", "5.5", "-10", "10%", "abc"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_curve(bad),
                      Catch::Contains("curve=") && Catch::Contains("whole percentage 1..1000"));
  }
}

TEST_CASE("latency_target= reads a percentile and a time", "[disk][curve]") {
  const LatencyTarget p99 = parse_latency_target("p99:2ms");
  CHECK(p99.percentile == 99.0);
  CHECK(p99.target_ns == 2'000'000);
  CHECK(p99.text == "p99:2ms");
  const LatencyTarget p999 = parse_latency_target("p99.9:500us");
  CHECK(p999.percentile == Approx(99.9));
  CHECK(p999.target_ns == 500'000);
  CHECK(parse_latency_target("p100:1s").target_ns == 1'000'000'000);
  for (const char* bad :
       {"99:2ms", "p99", "p:2ms", "p0:2ms", "p101:2ms", "p99:0", "p99:2xs", "q99:2ms", "p"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_latency_target(bad),
                      Catch::Contains("latency_target=") && Catch::Contains("p99:2ms"));
  }
}

TEST_CASE("the latency search's probes are fixed by its precision and confirmation runs",
          "[disk][curve]") {
  CurveConfig config;
  config.latency_target = parse_latency_target("p99:2ms");
  config.precision_percent = 1;  // 100 / 2^7 = 0.78 %
  config.confirm = 1;
  CHECK(config.search_steps() == 7);
  CHECK(config.probe_phases() == 14);
  config.precision_percent = 2;  // 100 / 2^6 = 1.56 %
  CHECK(config.search_steps() == 6);
  config.search_max_percent = 125;  // 125 / 2^6 = 1.95 %
  CHECK(config.search_steps() == 6);
  config.search_max_percent = 100;
  config.precision_percent = 50;
  CHECK(config.search_steps() == 1);
  config.confirm = 0;
  CHECK(config.probe_phases() == 1);
  config.latency_target.reset();
  CHECK(config.probe_phases() == 0);
}

TEST_CASE("the bisection ends within its precision below a knee", "[disk][curve]") {
  CurveConfig config;
  config.latency_target = parse_latency_target("p99:2ms");
  config.precision_percent = 1;
  config.confirm = 1;
  for (const double knee : {1.0, 137.0, 400.0, 431.0, 500.0}) {
    INFO(knee);
    LatencySearch search(config);
    search.start(500);
    std::vector<double> rates;
    for (std::size_t run = 0; run < config.probe_phases(); ++run) {
      rates.push_back(search.rate());
      search.record(search.rate() <= knee);
    }
    // Each rate is run twice (a probe and its confirmation): 250, 250, then 375 or 125, ...
    CHECK(rates.at(0) == 250.0);
    CHECK(rates.at(1) == 250.0);
    CHECK(rates.at(2) == (knee >= 250 ? 375.0 : 125.0));
    CHECK(search.result() <= knee);
    CHECK(search.upper() - search.result() == Approx(500.0 / 128));
    CHECK(knee - search.result() <= 500.0 / 128 + 1e-9);
  }
}

TEST_CASE("latency_search_max widens the bracket above the closed-loop IOPS", "[disk][curve]") {
  CurveConfig config;
  config.latency_target = parse_latency_target("p99:2ms");
  config.precision_percent = 2;
  config.confirm = 0;
  config.search_max_percent = 125;
  LatencySearch search(config);
  search.start(384);  // a closed-loop figure 4 % under a knee at 400
  CHECK(search.upper() == 480.0);
  for (std::size_t run = 0; run < config.probe_phases(); ++run) search.record(search.rate() <= 400);
  CHECK(search.result() <= 400.0);
  CHECK(400.0 - search.result() < 480.0 / 64);
  CHECK(search.upper() > 400.0);
}

TEST_CASE("a failed confirmation run fails its probe", "[disk][curve]") {
  CurveConfig config;
  config.latency_target = parse_latency_target("p99:2ms");
  config.precision_percent = 50;  // one probe
  config.confirm = 2;
  LatencySearch search(config);
  search.start(800);
  search.record(true);
  search.record(false);  // the first confirmation fails
  search.record(true);
  CHECK(search.result() == 0.0);
  CHECK(search.upper() == 400.0);
}

TEST_CASE("a probe passes only on its completions, its percentile and its lateness's growth",
          "[disk][curve]") {
  // A probe at 400 IOPS measured for 2 s, judged against p90:50ms at 1 % precision.
  CurvePoint point;
  point.iops = 396;
  point.target_percentile_ns = 300'000;
  point.measured_ns = 2'000'000'000;
  point.growth_ns = 5'000'000;  // 0.25 % of its time
  const auto judge = [&] { return judge_probe(400, point, 50'000'000, 1); };
  CHECK(judge().pass());
  // (a) Completions: at least 95 % of the 800 reads due (380 IOPS), else it fails.
  point.iops = 380;
  CHECK(judge().completed);
  point.iops = 379.9;
  CHECK_FALSE(judge().completed);
  CHECK_FALSE(judge().pass());
  point.iops = 0;
  CHECK_FALSE(judge().pass());
  point.iops = 396;
  // (b) The percentile: at the target passes, over it fails.
  point.target_percentile_ns = 50'000'000;
  CHECK(judge().pass());
  point.target_percentile_ns = 50'000'001;
  CHECK_FALSE(judge().percentile);
  CHECK(judge().completed);
  CHECK(judge().steady);
  CHECK_FALSE(judge().pass());
  point.target_percentile_ns = 300'000;
  // (c) Growth: 1 % of 2 s is 20 ms. A probe 2 % over a ceiling falls behind by 2/102 of its
  // time (39.2 ms in 2 s) and fails with a percentile and completions that both pass.
  point.growth_ns = 20'000'000;
  CHECK(judge().pass());
  point.growth_ns = 39'215'686;
  CHECK_FALSE(judge().steady);
  CHECK(judge().completed);
  CHECK(judge().percentile);
  CHECK_FALSE(judge().pass());
  CHECK(judge_probe(400, point, 50'000'000, 2).pass());  // 2 % precision: 40 ms allowed
  point.growth_ns = -30'000'000;                         // a backlog draining: no growth
  CHECK(judge().pass());
}

TEST_CASE("latency_ramp is a duration, 500ms by default, and not for a depth search",
          "[disk][curve]") {
  CHECK(CurveConfig{}.ramp == std::chrono::milliseconds(500));
  test::TempDir dir("disk-curve-ramp");
  const test::CliResult result = test::run_cli(
      {"run", "disk", "-d", dir.path().string(), "operation=read", "latency_target=p99:2ms",
       "latency_target_mode=depth", "iodepth=8", "engine=io_uring", "latency_ramp=1s"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("latency_ramp=1s") &&
                             Catch::Contains("(a rate search's) does not apply"));
  CHECK(dir.entries().empty());
}

TEST_CASE("a curve and a latency search run at rates scaled from the closed-loop phase",
          "[disk][curve]") {
  test::TempDir dir("disk-curve");
  test::CapturingReporter reporter;
  // p99 under an hour: a probe passes on its percentile, and on its completions and lateness's
  // growth if this machine's open loop keeps up with half or 3/4 of a page-cache closed loop
  // (a loaded one may not): the search climbs to 3/4 or falls to 1/4 as each probe's recorded
  // verdict says, and each verdict is what judge_probe() makes of its recorded figures.
  // latency_ramp=0: the schedule starts with the measurement, so it bounds the ops measured.
  const RunResult run =
      Runner(test::shared_full_registry(), RunOptions{})
          .run(std::vector<Step>{Step{.workload = "disk",
                                      .params = {{"operation", "read"},
                                                 {"bs", "4k"},
                                                 {"size", "256k"},
                                                 {"time_based", "true"},
                                                 {"curve", "50,100"},
                                                 {"latency_target", "p99:1h"},
                                                 {"latency_precision", "25"},
                                                 {"latency_ramp", "0"},
                                                 {"latency_confirm", "0"}},
                                      .targets = {dir.path()},
                                      .time_limit = std::chrono::milliseconds(150)}},
               reporter);
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.phases.size() == 5);
  CHECK(step.phases[0].name == "read");
  CHECK(step.phases[1].name == "read at 50%");
  CHECK(step.phases[2].name == "read at 100%");
  CHECK(step.phases[3].name == "read probe 1");
  CHECK(step.phases[4].name == "read probe 2");
  CHECK_FALSE(step.phases[0].pacing.paced);
  const double max = static_cast<double>(step.phases[0].ops[0].ops) * 1e9 /
                     static_cast<double>(step.phases[0].wall_ns);
  REQUIRE(max > 0);
  CHECK(attribute_number(step, "curve.max_iops") == max);
  // The second probe's rate: 3/4 of the maximum after a first that passed, else 1/4.
  const double probe2 =
      std::get<std::string>(*step.attribute("latency_search.probe.1.result")) == "pass"
          ? max * 3 / 4
          : max / 4;
  CHECK(attribute_number(step, "curve.50%.target_iops") == max * 50 / 100.0);
  CHECK(attribute_number(step, "curve.100%.target_iops") == max * 100 / 100.0);
  for (std::size_t p = 1; p < 5; ++p) {
    const PhaseResult& phase = step.phases[p];
    CHECK(phase.pacing.paced);
    // The schedule bounds an open loop: at most one op more than its rate over the wall time.
    const double rate = p == 1 ? max / 2 : p == 2 ? max : p == 3 ? max / 2 : probe2;
    CHECK(static_cast<double>(phase.ops[0].ops) <=
          rate * static_cast<double>(phase.wall_ns) / 1e9 + 1);
  }
  CHECK(attribute_number(step, "curve.50%.iops") ==
        static_cast<double>(step.phases[1].ops[0].ops) * 1e9 /
            static_cast<double>(step.phases[1].wall_ns));
  CHECK(attribute_number(step, "curve.100%.p99_ns") ==
        static_cast<double>(step.phases[2].ops[0].latency.percentile(99)));
  for (const std::size_t probe : {1, 2}) {
    INFO("probe " << probe);
    const std::string key = fmt::format("latency_search.probe.{}.", probe);
    const PhaseResult& phase = step.phases[2 + probe];
    CurvePoint point = measure_point(phase, 99);
    REQUIRE(step.attribute(key + "growth_ns") != nullptr);
    point.growth_ns = attribute_number(step, key + "growth_ns");
    CHECK(attribute_number(step, key + "iops") == point.iops);
    const ProbeVerdict verdict =
        judge_probe(attribute_number(step, key + "rate_iops"), point, 3'600'000'000'000, 25);
    CHECK(verdict.percentile);
    CHECK(std::get<std::string>(*step.attribute(key + "result")) ==
          (verdict.pass() ? "pass" : "fail"));
    CHECK((step.attribute(key + "failed") == nullptr) == verdict.pass());
  }
  const bool pass1 =
      std::get<std::string>(*step.attribute("latency_search.probe.1.result")) == "pass";
  const bool pass2 =
      std::get<std::string>(*step.attribute("latency_search.probe.2.result")) == "pass";
  CHECK(attribute_number(step, "latency_search.probe.1.rate_iops") == max / 2);
  CHECK(attribute_number(step, "latency_search.probe.2.rate_iops") == probe2);
  const double result = pass2 ? probe2 : pass1 ? max / 2 : 0;
  CHECK(attribute_number(step, "latency_search.result_iops") == result);
  CHECK(attribute_number(step, "latency_search.upper_iops") ==
        (pass1 ? (pass2 ? max : max * 3 / 4) : (pass2 ? max / 2 : max / 4)));
  std::ostringstream text;
  format_disk_text(step, text);
  CHECK_THAT(text.str(), Catch::Contains("curve (open loop, % of the closed-loop") &&
                             Catch::Contains("   50% ") && Catch::Contains("  100% ") &&
                             Catch::Contains("latency search (p99:1h in (0, ") &&
                             Catch::Contains("growth ms") &&
                             Catch::Contains(fmt::format("latency search result: {:.1f} IOPS "
                                                         "meet p99:1h",
                                                         result)));
}

TEST_CASE("the curve's points are in the JSON result", "[disk][curve][json]") {
  test::TempDir dir("disk-curve-json");
  const test::CliResult run = test::run_cli(
      {"run", "disk", "-d", dir.path().string(), "operation=read", "bs=4k", "size=128k",
       "time_based=true", "curve=10,100", "--time", "100ms", "--format", "json", "-q"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  const nlohmann::json& step = doc.at("steps").at(0);
  const nlohmann::json& attributes = step.at("attributes");
  const double max = attributes.at("curve.max_iops").get<double>();
  CHECK(max > 0);
  // max x PCT / 100 in the run, printed and read back: equal to the last digits.
  CHECK(attributes.at("curve.10%.target_iops").get<double>() ==
        Approx(max * 10 / 100.0).epsilon(1e-12));
  CHECK(attributes.at("curve.100%.target_iops").get<double>() == Approx(max).epsilon(1e-12));
  for (const char* key : {"iops", "mean_ns", "p50_ns", "p99_ns", "max_ns", "growth_ns"}) {
    INFO(key);
    CHECK(attributes.contains(fmt::format("curve.10%.{}", key)));
    CHECK(attributes.contains(fmt::format("curve.100%.{}", key)));
  }
  CHECK(step.at("phases").size() == 3);
  CHECK(step.at("phases").at(1).at("name").get<std::string>() == "read at 10%");
  CHECK(dir.entries().empty());
}

TEST_CASE("curve and latency_target refuse what they cannot measure, before any I/O",
          "[disk][curve]") {
  test::TempDir dir("disk-curve-refuse");
  const std::string d = dir.path().string();
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases{
      {{"run", "disk", "-d", d, "curve=10,50", "operation=write"},
       "curve=10,50 measures reads at open-loop rates"},
      {{"run", "disk", "-d", d, "latency_target=p99:2ms"},  // operation defaults to write
       "latency_target=p99:2ms measures reads"},
      {{"run", "disk", "-d", d, "operation=read", "curve=50", "rate_iops=100"},
       "so rate_iops cannot be given too"},
      {{"run", "disk", "-d", d, "operation=read", "curve=50", "latency_sample=4"},
       "drop latency_sample=4"},
      {{"run", "disk", "-d", d, "operation=read", "curve=50,x"}, "curve=50,x has 'x'"},
      {{"run", "disk", "-d", d, "operation=read", "latency_target=99:2ms"},
       "latency_target=99:2ms is not of the form"},
      {{"run", "disk", "-d", d, "operation=read", "latency_target=p99:2ms",
        "latency_precision=0.01"},
       "latency_precision=0.01 is outside 0.1..50"},
  };
  for (const Case& c : cases) {
    INFO(fmt::format("{}", fmt::join(c.args, " ")));
    const test::CliResult result = test::run_cli(c.args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("the queue-depth search bisects 1..iodepth to the highest depth meeting the target",
          "[disk][curve]") {
  CHECK(DepthSearch::steps(1) == 1);
  CHECK(DepthSearch::steps(2) == 2);
  CHECK(DepthSearch::steps(4) == 3);
  CHECK(DepthSearch::steps(32) == 6);
  CHECK(DepthSearch::steps(1024) == 11);
  // A knee at depth `knee` (deeper queues miss the target): the search ends on it, within
  // steps() probes, whatever the knee.
  for (const std::uint32_t knee : {0U, 1U, 7U, 12U, 31U, 32U}) {
    INFO("knee " << knee);
    DepthSearch search;
    search.start(32, 1);
    std::uint32_t probes = 0;
    while (!search.done()) {
      REQUIRE(search.depth() >= 1);
      REQUIRE(search.depth() <= 32);
      const bool pass = search.depth() <= knee;
      search.record(pass, pass ? 1000.0 * search.depth() : 0.0);
      ++probes;
    }
    CHECK(probes <= DepthSearch::steps(32));
    CHECK(search.result() == knee);
    CHECK(search.upper() == knee + 1);
    CHECK(search.result_iops() == 1000.0 * knee);
  }
  // Every run of a probe must pass: a failed confirmation fails the depth.
  DepthSearch confirmed;
  confirmed.start(4, 2);
  CHECK(confirmed.depth() == 2);
  confirmed.record(true, 10);
  confirmed.record(false, 10);
  CHECK(confirmed.depth() == 1);
  CHECK(confirmed.upper() == 2);
}

TEST_CASE("latency_target_mode=depth on a tmpfs file with io_uring reaches iodepth",
          "[disk][curve]") {
  const test::ScopedTmpfs tmpfs("16m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  if (const auto why = test::shared_full_registry().create_engine("io_uring")->unavailable_reason();
      !why.empty()) {
    WARN("skipped: io_uring: " << why);
    return;
  }
  const auto run_depth = [&](const std::string& target, const std::string& iodepth) {
    test::CapturingReporter reporter;
    return Runner(test::shared_full_registry(), RunOptions{})
        .run(std::vector<Step>{Step{.workload = "disk",
                                    .params = {{"operation", "read"},
                                               {"engine", "io_uring"},
                                               {"iodepth", iodepth},
                                               {"bs", "4k"},
                                               {"size", "1m"},
                                               {"time_based", "true"},
                                               {"latency_target", target},
                                               {"latency_target_mode", "depth"},
                                               {"latency_confirm", "0"}},
                                    .targets = {tmpfs.path()},
                                    .time_limit = std::chrono::milliseconds(60)}},
             reporter);
  };
  // Page-cache reads take microseconds: p99 under an hour at every depth, so the search climbs
  // 16, 24, 28, 30, 31, 32 and ends on iodepth.
  const RunResult run = run_depth("p99:1h", "32");
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.phases.size() == 7);
  CHECK(step.phases[0].name == "read");
  const std::vector<double> depths{16, 24, 28, 30, 31, 32};
  for (std::size_t probe = 1; probe <= depths.size(); ++probe) {
    INFO("probe " << probe);
    CHECK(step.phases[probe].name == fmt::format("read probe {}", probe));
    CHECK_FALSE(step.phases[probe].pacing.paced);  // closed loop
    CHECK(attribute_number(step, fmt::format("latency_search.probe.{}.depth", probe)) ==
          depths[probe - 1]);
    CHECK(attribute_number(step, fmt::format("latency_search.probe.{}.iops", probe)) > 0);
  }
  CHECK(attribute_number(step, "latency_search.max_depth") == 32);
  CHECK(attribute_number(step, "latency_search.result_depth") == 32);
  CHECK(attribute_number(step, "latency_search.upper_depth") == 33);
  CHECK(attribute_number(step, "latency_search.result_iops") ==
        attribute_number(step, "latency_search.probe.6.iops"));
  std::ostringstream text;
  format_disk_text(step, text);
  CHECK_THAT(text.str(),
             Catch::Contains("latency search (p99:1h by queue depth in 1..32, closed loop)") &&
                 Catch::Contains("latency search result: queue depth 32 meets p99:1h"));

  // A target no read meets (1 ns): depths 2 and 1 fail, the search is done after 2 of its 3
  // probes and skips the last, with depth 0 as the result.
  const RunResult none = run_depth("p99:1ns", "4");
  INFO(none.steps.at(0).message);
  REQUIRE(none.status == Status::kOk);
  const StepResult& failed = none.steps.at(0);
  CHECK(failed.phases.size() == 3);
  CHECK(attribute_number(failed, "latency_search.probe.1.depth") == 2);
  CHECK(attribute_number(failed, "latency_search.probe.2.depth") == 1);
  CHECK(attribute_number(failed, "latency_search.result_depth") == 0);
  CHECK(attribute_number(failed, "latency_search.upper_depth") == 1);
}

TEST_CASE("latency_target_mode=depth refuses what it cannot search, before any I/O",
          "[disk][curve]") {
  test::TempDir dir("disk-depth-refuse");
  const std::string d = dir.path().string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"run", "disk", "-d", d, "operation=read", "latency_target=p99:2ms",
        "latency_target_mode=depth", "iodepth=8", "engine=psync"},
       "engine psync does one I/O at a time"},  // the depth search needs an async engine
      {{"run", "disk", "-d", d, "operation=read", "latency_target=p99:2ms",
        "latency_target_mode=depth", "iodepth=8", "engine=io_uring", "curve=50"},
       "but curve=50 runs open-loop phases"},
      {{"run", "disk", "-d", d, "operation=read", "latency_target=p99:2ms",
        "latency_target_mode=depth", "engine=io_uring"},
       "iodepth=1 leaves nothing to search"},
      {{"run", "disk", "-d", d, "operation=read", "latency_target=p99:2ms",
        "latency_target_mode=depth", "iodepth=8", "engine=io_uring", "latency_precision=5"},
       "latency_precision=5 (a rate search's) does not apply"},
      {{"run", "disk", "-d", d, "operation=read", "latency_target_mode=depth", "iodepth=8",
        "engine=io_uring"},
       "latency_target, which is not given"},
      {{"run", "disk", "-d", d, "operation=read", "latency_target=p99:2ms", "latency_window=1s"},
       "latency_window=1s is the length of a queue-depth probe"},
  };
  for (const auto& [args, expected] : cases) {
    INFO(fmt::format("{}", fmt::join(args, " ")));
    const test::CliResult result = test::run_cli(args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(expected));
    CHECK(dir.entries().empty());
  }
}
