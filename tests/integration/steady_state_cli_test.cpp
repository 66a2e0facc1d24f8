// steady_state= on the disk workload's timed phase, through the CLI: the decision in text and
// JSON (read back by the result reader), the early stop, and the refusal of bad values. The
// criteria are chosen so the decision cannot depend on scheduling: with 2 samples of a window,
// max |y - mean| <= mean always, so iops:101% is steady on the first full window whatever the
// rates; a window longer than the run never fills.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

namespace {

struct SteadyRun {
  iobench::test::CliResult cli;
  iobench::ResultDocument document;
};

SteadyRun run_disk(const std::vector<std::string>& extra) {
  TempDir dir("steady-cli");
  TempDir files("steady-cli-files");
  const auto json_path = files.path() / "r.json";
  std::vector<std::string> args{"run",
                                "disk",
                                "-d",
                                dir.path().string(),
                                "operation=read",
                                "size=1m",
                                "time_based=true",
                                "rate_iops=500"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--format", "json", "-o", json_path.string()});
  SteadyRun run{run_cli(args), {}};
  INFO(run.cli.out << run.cli.err);
  REQUIRE(run.cli.exit_code == 0);
  run.document = iobench::load_result_file(json_path);
  return run;
}

}  // namespace

TEST_CASE("a disk phase that reaches steady state stops before its time limit and says so",
          "[integration][steady_state]") {
  const SteadyRun run =
      run_disk({"steady_state=iops:101%", "ss_dur=400ms", "ss_interval=200ms", "--time", "60s"});
  INFO(run.cli.out << run.cli.err);
  CHECK_THAT(
      run.cli.out,
      Catch::Contains("phase read: steady: yes after 2 intervals (iops:101%: max deviation"));
  const iobench::PhaseResult& phase = run.document.run.steps.at(0).phases.at(0);
  REQUIRE(phase.steady_state.has_value());
  const iobench::SteadyStateResult& steady = *phase.steady_state;
  CHECK(steady.steady);
  CHECK(steady.samples == 2);
  CHECK(iobench::to_string(steady.config.criterion) == "iops:101%");
  CHECK(steady.config.window == std::chrono::milliseconds(400));
  CHECK(steady.config.interval == std::chrono::milliseconds(200));
  REQUIRE(steady.window.size() == 2);
  REQUIRE(steady.figures.has_value());
  CHECK(steady.figures->window_mean == Approx((steady.window[0] + steady.window[1]) / 2));
  CHECK(steady.figures->window_mean > 0);
  CHECK(steady.figures->criterion_value < 101.0);
  CHECK(steady.figures->limit == 101.0);
  // Stopped at the steady decision, far inside the 60 s limit.
  CHECK(phase.wall_ns < 30'000'000'000ULL);
  CHECK(phase.status == iobench::Status::kOk);
}

TEST_CASE("a disk phase whose steady-state window never fills says steady no with the count",
          "[integration][steady_state]") {
  const SteadyRun run =
      run_disk({"steady_state=bw_slope:5%", "ss_dur=100s", "ss_interval=200ms", "--time", "1s"});
  INFO(run.cli.out << run.cli.err);
  const iobench::PhaseResult& phase = run.document.run.steps.at(0).phases.at(0);
  REQUIRE(phase.steady_state.has_value());
  const iobench::SteadyStateResult& steady = *phase.steady_state;
  CHECK_FALSE(steady.steady);
  CHECK_FALSE(steady.figures.has_value());
  CHECK(steady.samples <= 5);
  CHECK(steady.window.size() == steady.samples);
  CHECK_THAT(run.cli.out,
             Catch::Contains(fmt::format("phase read: steady: no (bw_slope:5%: {} of 500 intervals "
                                         "sampled, the window never filled)",
                                         steady.samples)));
}

TEST_CASE("a disk phase keeps every steady-state sample, the judged window as their tail",
          "[integration][steady_state]") {
  // A 1e-6 % limit is never met by measured rates (their samples would have to agree to 9
  // digits), so the 2 s phase runs to its end: samples at 250 ms, 500 ms, ... of it.
  const SteadyRun run = run_disk(
      {"steady_state=iops:0.000001%", "ss_dur=750ms", "ss_interval=250ms", "--time", "2s"});
  INFO(run.cli.out << run.cli.err);
  const iobench::PhaseResult& phase = run.document.run.steps.at(0).phases.at(0);
  REQUIRE(phase.steady_state.has_value());
  const iobench::SteadyStateResult& steady = *phase.steady_state;
  CHECK_FALSE(steady.steady);
  // 8 interval ends in 2 s; a runner waking late under load may skip one or lose the last.
  CHECK(steady.samples >= 4);
  CHECK(steady.samples <= 8);
  CHECK(steady.series_dropped == 0);
  REQUIRE(steady.series.size() == steady.samples);
  REQUIRE(steady.window.size() == 3);
  CHECK(std::equal(steady.window.begin(), steady.window.end(), steady.series.end() - 3));
  // Every sample is a paced read rate (rate_iops=500); one sample may stall or catch up under
  // load, their mean cannot.
  double sum = 0;
  for (const double sample : steady.series) {
    CHECK(sample >= 0);
    sum += sample;
  }
  CHECK(sum / static_cast<double>(steady.series.size()) > 250);
  CHECK(sum / static_cast<double>(steady.series.size()) < 750);
  REQUIRE(steady.figures.has_value());
  CHECK(steady.figures->window_mean ==
        Approx((steady.series[steady.samples - 1] + steady.series[steady.samples - 2] +
                steady.series[steady.samples - 3]) /
               3));
}

TEST_CASE("a result file written before the steady-state series reads with an empty one",
          "[integration][steady_state]") {
  const SteadyRun run =
      run_disk({"steady_state=iops:101%", "ss_dur=400ms", "ss_interval=200ms", "--time", "60s"});
  nlohmann::json json = nlohmann::json::parse(iobench::to_json(run.document));
  nlohmann::json& steady = json["steps"][0]["phases"][0]["steady_state"];
  REQUIRE(steady.contains("series"));
  CHECK(steady["series"] == steady["window"]);  // steady on the first full window
  CHECK(steady["series_dropped"] == 0);
  steady.erase("series");
  steady.erase("series_dropped");
  const iobench::ResultDocument old = iobench::parse_result_json(json.dump());
  const iobench::SteadyStateResult& read = *old.run.steps.at(0).phases.at(0).steady_state;
  CHECK(read.series.empty());
  CHECK(read.series_dropped == 0);
  CHECK(read.window == run.document.run.steps.at(0).phases.at(0).steady_state->window);
  // A series that does not add up to the samples taken is refused, naming it.
  steady["series"] = {1.0};
  steady["series_dropped"] = 0;
  CHECK_THROWS_WITH(iobench::parse_result_json(json.dump()),
                    Catch::Contains("/steady_state/series") &&
                        Catch::Contains("1 samples kept and 0 dropped are not the 2 taken"));
}

TEST_CASE("bad steady-state values exit 2 naming the param, the value and the fix",
          "[integration][steady_state]") {
  TempDir dir("steady-bad");
  struct Case {
    std::vector<std::string> params;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"steady_state=iops:ten%"},
       "disk: steady_state: 'iops:ten%' has a limit that is not a number; use one of iops:LIMIT"},
      {{"steady_state=iopz:10%"},
       "disk: steady_state: 'iopz:10%' is not a steady-state criterion; use one of"},
      {{"steady_state=lat:10%"}, "a phase samples IOPS and throughput only, not latency"},
      {{"steady_state=bw_slope:1%", "ss_dur=1500ms", "ss_interval=1s"},
       "disk: ss_dur=1.50 s is not a multiple (at least 2x) of ss_interval=1.00 s"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"run", "disk", "-d", dir.path().string(), "size=1m"};
    args.insert(args.end(), c.params.begin(), c.params.end());
    const auto result = run_cli(args);
    INFO(result.out << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(c.message));
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("a tiotest write phase stops once steady, before its file is written",
          "[integration][steady_state]") {
  TempDir dir("steady-tiotest");
  TempDir files("steady-tiotest-files");
  const auto json_path = files.path() / "r.json";
  const auto cli =
      run_cli({"run", "tiotest", "-d", dir.path().string(), "threads=1", "size=1m",
               "skip=read,random_read,random_write", "rate_iops=1000", "steady_state=iops:101%",
               "ss_dur=40ms", "ss_interval=20ms", "--format", "json", "-o", json_path.string()});
  INFO(cli.out << cli.err);
  REQUIRE(cli.exit_code == 0);
  CHECK_THAT(cli.out, Catch::Contains("phase Write: steady: yes after 2 intervals (iops:101%"));
  const iobench::ResultDocument document = iobench::load_result_file(json_path);
  const iobench::PhaseResult& write = document.run.steps.at(0).phases.at(0);
  REQUIRE(write.steady_state.has_value());
  CHECK(write.steady_state->steady);
  CHECK(write.steady_state->samples == 2);
  // 256 blocks of 4 KiB at 1000 IOPS take 256 ms; steady after 2 x 20 ms, it wrote fewer.
  CHECK(write.total_bytes() < 1024 * 1024);
  CHECK(write.total_bytes() % 4096 == 0);
}
