// The steady-state detector: fio's rules against fio's own decisions (runs of fio 3.33 with
// ss=/ss_dur/ss_ramp recorded in tests/data/steady_state, their "job options" saying how), and
// SNIA PTS 2.0's limits hit exactly on constructed windows.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/steady_state.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using iobench::SteadyStateConfig;
using iobench::SteadyStateCriterion;
using iobench::SteadyStateRule;

namespace {

SteadyStateCriterion criterion(const std::string& text) {
  return iobench::parse_steady_state_criterion(text, "test: steady_state");
}

nlohmann::json fio_run(const std::string& name) {
  std::ifstream in(std::string(IOBENCH_STEADY_STATE_DATA_DIR) + "/" + name);
  REQUIRE(in.good());
  return nlohmann::json::parse(in).at("steadystate");
}

}  // namespace

TEST_CASE("fio's recorded windows give fio's steady-state decision and criterion",
          "[steady_state]") {
  const auto name = GENERATE(as<std::string>{}, "iops_attained.json", "iops_not_attained.json",
                             "iops_slope_abs.json", "bw_slope_attained.json",
                             "bw_slope_not_attained.json", "bw_abs_not_attained.json");
  CAPTURE(name);
  const nlohmann::json ss = fio_run(name);
  const SteadyStateCriterion rule = criterion(ss.at("ss").get<std::string>());
  const char* metric = rule.metric == iobench::SteadyStateMetric::kIops ? "iops" : "bw";
  const auto window = ss.at("data").at(metric).get<std::vector<double>>();
  REQUIRE(window.size() == ss.at("duration").get<std::size_t>());  // ss_dur / 1 s

  const iobench::SteadyStateFigures figures = iobench::judge_window(rule, window);
  CHECK(figures.steady == (ss.at("attained").get<int>() == 1));
  // fio prints its criterion with %f: the slope's signed, ours is its absolute value.
  const double fio_criterion = std::fabs(std::stod(ss.at("criterion").get<std::string>()));
  CHECK(figures.criterion_value == Approx(fio_criterion).margin(1e-5).epsilon(1e-6));
  if (rule.rule == SteadyStateRule::kSlope) {
    CHECK(figures.slope == Approx(ss.at("slope").get<double>()).margin(0.1));
  } else {
    CHECK(figures.max_deviation == Approx(ss.at("max_deviation").get<double>()).margin(1e-5));
  }

  // Fed one sample a second, the detector decides on the same (last) window.
  SteadyStateConfig config{.criterion = rule,
                           .window = std::chrono::seconds(ss.at("duration").get<int>())};
  iobench::validate(config, "test");
  iobench::SteadyStateDetector detector(config);
  for (double y : window) detector.add(y);
  CHECK(detector.steady() == figures.steady);
  CHECK(detector.samples() == window.size());
  CHECK(detector.window() == window);
}

TEST_CASE("fio's deviation and slope limits are strict, in % of the mean or absolute",
          "[steady_state]") {
  const std::vector<double> window{90, 110, 100, 100, 100};  // mean 100, max deviation 10
  CHECK_FALSE(iobench::judge_window(criterion("iops:10%"), window).steady);
  CHECK(iobench::judge_window(criterion("iops:10.01%"), window).steady);
  CHECK_FALSE(iobench::judge_window(criterion("bw:10"), window).steady);
  CHECK(iobench::judge_window(criterion("bw:10.001"), window).steady);
  // slope over x = 0..4: (-2 * -10 + -1 * 10) / 10 = 1 per sample, 1 % of the mean
  const auto slope = iobench::judge_window(criterion("lat_slope:1%"), window);
  CHECK(slope.slope == Approx(1.0));
  CHECK(slope.criterion_value == Approx(1.0));
  CHECK_FALSE(slope.steady);
  CHECK(iobench::judge_window(criterion("lat_slope:1.01"), window).steady);
  // A falling series counts by its slope's absolute value.
  const std::vector<double> falling{104, 102, 100, 98, 96};
  CHECK(iobench::judge_window(criterion("iops_slope:2.01"), falling).steady);
  CHECK_FALSE(iobench::judge_window(criterion("iops_slope:2"), falling).steady);
}

TEST_CASE("PTS data excursion passes at 20 % of the window mean and fails just above",
          "[steady_state]") {
  const SteadyStateCriterion pts = criterion("pts");
  // max - min = 20 exactly on a mean of 100 (the fit line's excursion is 4 %).
  const auto at = iobench::judge_window(pts, std::vector<double>{90, 110, 100, 100, 100});
  CHECK(at.data_excursion_percent == 20.0);
  CHECK(at.fit_excursion_percent == Approx(4.0));
  CHECK(at.steady);
  const auto below =
      iobench::judge_window(pts, std::vector<double>{90.005, 109.995, 100, 100, 100});
  CHECK(below.data_excursion_percent == Approx(19.99));
  CHECK(below.steady);
  const auto above =
      iobench::judge_window(pts, std::vector<double>{89.995, 110.005, 100, 100, 100});
  CHECK(above.data_excursion_percent == Approx(20.01));
  CHECK(above.fit_excursion_percent < 10.0);
  CHECK_FALSE(above.steady);
}

TEST_CASE("PTS best-fit excursion passes at 10 % of the window mean and fails just above",
          "[steady_state]") {
  const SteadyStateCriterion pts = criterion("pts:bw");
  const auto line = [](double slope) {
    std::vector<double> window;
    for (int i = 0; i < 5; ++i) window.push_back(100 + slope * (i - 2));
    return window;
  };
  const auto at = iobench::judge_window(pts, line(2.5));  // 2.5 x 4 rounds = 10
  CHECK(at.fit_excursion_percent == 10.0);
  CHECK(at.steady);
  const auto below = iobench::judge_window(pts, line(2.4975));
  CHECK(below.fit_excursion_percent == Approx(9.99));
  CHECK(below.steady);
  const auto above = iobench::judge_window(pts, line(2.5025));
  CHECK(above.fit_excursion_percent == Approx(10.01));
  CHECK(above.data_excursion_percent < 20.0);
  CHECK_FALSE(above.steady);
}

TEST_CASE("PTS judges the last 5 rounds and gives up after 25", "[steady_state]") {
  const SteadyStateConfig config{.criterion = criterion("pts")};
  REQUIRE(config.window_samples() == 5);
  iobench::SteadyStateDetector growing(config);
  for (int round = 1; round <= 30; ++round) growing.add(100.0 * round);  // never steady
  CHECK_FALSE(growing.steady());
  CHECK(growing.done());
  CHECK(growing.samples() == 25);
  CHECK(growing.window() == std::vector<double>{2100, 2200, 2300, 2400, 2500});

  // Steady on round 7: rounds 3..7 are within the limits, rounds 2..6 were not.
  iobench::SteadyStateDetector settling(config);
  const std::vector<double> rounds{10, 50, 100, 101, 99, 100, 100, 500};
  std::size_t steady_at = 0;
  for (std::size_t i = 0; i < rounds.size() && steady_at == 0; ++i) {
    if (settling.add(rounds[i])) steady_at = i + 1;
  }
  CHECK(steady_at == 7);
  CHECK(settling.samples() == 7);
  settling.add(500);  // ignored once steady
  CHECK(settling.window() == std::vector<double>{100, 101, 99, 100, 100});
  REQUIRE(settling.figures().has_value());
  CHECK(settling.figures()->window_mean == Approx(100.0));
}

TEST_CASE("steady-state criteria parse as fio writes them and bad ones name the fix",
          "[steady_state]") {
  const auto parsed = criterion("bw_slope:0.5%");
  CHECK(parsed.rule == SteadyStateRule::kSlope);
  CHECK(parsed.metric == iobench::SteadyStateMetric::kThroughput);
  CHECK(parsed.limit == 0.5);
  CHECK(parsed.limit_percent);
  CHECK(iobench::to_string(criterion("lat:200")) == "lat:200");
  CHECK(iobench::to_string(criterion("iops:10.000000%")) == "iops:10%");
  CHECK(iobench::to_string(criterion("pts")) == "pts:iops");
  CHECK(iobench::to_string(criterion("pts:lat")) == "pts:lat");
  for (const char* bad :
       {"iops", "iops:", "iops:x%", "iops:-1", "iops:0%", "io:10%", "pts:10%", "bw_slopes:1", ""}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(criterion(bad),
                      Catch::Contains("test: steady_state: '" + std::string(bad) + "'") &&
                          Catch::Contains("use one of iops:LIMIT"));
  }
}

TEST_CASE("a steady-state window must be a whole number of intervals", "[steady_state]") {
  using namespace std::chrono_literals;
  SteadyStateConfig config{.criterion = criterion("iops_slope:1%"), .window = 1s, .interval = 1s};
  CHECK_THROWS_WITH(iobench::validate(config, "disk"),
                    Catch::Contains("disk: ss_dur=1.00 s is not a multiple (at least 2x) of "
                                    "ss_interval=1.00 s"));
  config.window = 2500ms;
  CHECK_THROWS_WITH(iobench::validate(config, "disk"), Catch::Contains("ss_dur=2.50 s"));
  config.window = 3s;
  CHECK_NOTHROW(iobench::validate(config, "disk"));
  CHECK(config.window_samples() == 3);
  config.criterion = criterion("iops:5%");
  config.window = 1s;
  CHECK_NOTHROW(iobench::validate(config, "disk"));
  config.interval = 0s;
  CHECK_THROWS_WITH(iobench::validate(config, "disk"),
                    Catch::Contains("ss_interval must be above 0"));
}

TEST_CASE("describe says steady yes or no with the window's figures", "[steady_state]") {
  iobench::SteadyStateResult result;
  result.config.criterion = criterion("iops:10%");
  result.config.window = std::chrono::seconds(5);
  result.samples = 3;
  CHECK(iobench::describe(result) ==
        "steady: no (iops:10%: 3 of 5 intervals sampled, the window never filled)");
  result.samples = 9;
  result.steady = true;
  result.figures =
      iobench::judge_window(result.config.criterion, std::vector<double>{95, 105, 100, 100, 100});
  CHECK(iobench::describe(result) ==
        "steady: yes after 9 intervals (iops:10%: max deviation 5 % < 10 %, window mean 100)");
}

TEST_CASE("the detector keeps every sample it took, the window as the series' tail",
          "[steady_state]") {
  // 250 ms samples judged over 750 ms: steady on the 7th sample, whose window (the last 3) is
  // within 10 % of its mean and the windows before were not.
  const SteadyStateConfig config{.criterion = criterion("iops:10%"),
                                 .window = std::chrono::milliseconds(750),
                                 .interval = std::chrono::milliseconds(250)};
  iobench::SteadyStateDetector detector(config);
  const std::vector<double> samples{400, 900, 100, 700, 500, 510, 490, 1000};
  for (const double sample : samples) detector.add(sample);
  CHECK(detector.steady());
  CHECK(detector.samples() == 7);
  CHECK(detector.series() == std::vector<double>{400, 900, 100, 700, 500, 510, 490});
  CHECK(detector.series_dropped() == 0);
  CHECK(detector.window() == std::vector<double>{500, 510, 490});
}

TEST_CASE("the detector's series keeps the last 10000 samples and counts the older ones",
          "[steady_state]") {
  // Alternating ~100 and ~300 (+ i / 1000 to tell them apart): every window's samples are ~50 %
  // off its mean, never steady.
  const SteadyStateConfig config{.criterion = criterion("iops:10%"),
                                 .window = std::chrono::seconds(2),
                                 .interval = std::chrono::seconds(1)};
  iobench::SteadyStateDetector detector(config);
  const std::size_t taken = iobench::kSteadyStateSeriesMax + 5;
  for (std::size_t i = 0; i < taken; ++i) {
    const double tag = static_cast<double>(i) / 1000;
    detector.add(i % 2 == 0 ? 100.0 + tag : 300.0 + tag);
  }
  CHECK_FALSE(detector.steady());
  CHECK(detector.samples() == taken);
  CHECK(detector.series_dropped() == 5);
  const std::vector<double> series = detector.series();
  REQUIRE(series.size() == iobench::kSteadyStateSeriesMax);
  CHECK(series.front() == Approx(300.005));  // the 6th sample (i = 5)
  CHECK(series.back() == Approx(110.004));   // i = 10004, even
  CHECK(detector.window() == std::vector<double>(series.end() - 2, series.end()));
}
