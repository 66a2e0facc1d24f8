// The HTML report of a real run of every SNIA PTS test (and a steady_state= phase): the page's
// embedded model holds each PTS plot's points, read back from the HTML and checked against the
// result's pts.* attributes (counts, values, the steady-state window, DIRTH's OIO and points).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>

#include "tests/html_report/pts_report_support.hpp"

// In the support's namespace: the unity build puts other tests' RawJson and helpers beside these.
namespace iobench::pts_report_test {
namespace {

// The page's model, parsed from its data element.
RawJson embedded_model(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"iobench-data\">";
  const std::size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const std::size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return RawJson::parse(page.substr(start + open.size(), end - start - open.size()));
}

// The steady-state chart of a pts step: every round's tracked value, the window and its bands.
void check_rounds(const RawJson& step, const RawJson& steady, double scale) {
  const auto rounds = static_cast<std::size_t>(attr(step, "pts.rounds"));
  REQUIRE(steady.at("rounds").size() == rounds);
  for (std::size_t r = 1; r <= rounds; ++r) {
    CHECK(steady["rounds"][r - 1][0] == r);
    CHECK(steady["rounds"][r - 1][1].get<double>() ==
          Approx(attr(step, fmt::format("pts.round.{}.tracked", r)) * scale));
  }
  if (!step.at("attributes").contains("pts.window.mean")) {
    CHECK(steady.at("first").is_null());
    return;
  }
  CHECK(steady.at("first") == attr(step, "pts.window.first_round"));
  CHECK(steady.at("last") == attr(step, "pts.window.last_round"));
  const double mean = attr(step, "pts.window.mean") * scale;
  CHECK(steady.at("mean").get<double>() == Approx(mean));
  CHECK(steady.at("slope").get<double>() ==
        Approx(attr(step, "pts.window.slope_per_round") * scale));
  REQUIRE(steady.at("bands").size() == 2);
  CHECK(steady["bands"][0]["low"].get<double>() == Approx(mean * 0.9));
  CHECK(steady["bands"][0]["high"].get<double>() == Approx(mean * 1.1));
  CHECK(steady["bands"][1]["low"].get<double>() == Approx(mean * 0.95));
  CHECK(steady["bands"][1]["high"].get<double>() == Approx(mean * 1.05));
  CHECK(steady.at("steady") == (text_attr(step, "pts.steady") == "yes"));
}

void check_dirth(const RawJson& step, const RawJson& dirth) {
  const RawJson& curves = dirth.at("curves");
  REQUIRE(curves.size() == 2);
  double max_iops = 0;
  for (std::size_t t = 0; t < curves.size(); ++t) {
    const int threads = curves[t]["threads"];
    CHECK(threads == static_cast<int>(t + 1));
    REQUIRE(curves[t]["points"].size() == 2);
    for (const RawJson& point : curves[t]["points"]) {
      const int depth = point[2];
      const std::string key = fmt::format("pts.cell.TC{}.QD{}.", threads, depth);
      CHECK(point[0].get<double>() == Approx(attr(step, key + "iops")));
      CHECK(point[1].get<double>() == Approx(attr(step, key + "mean_latency_ns") * 1e-6));
      max_iops = std::max(max_iops, point[0].get<double>());
    }
  }
  const RawJson& points = dirth.at("points");
  REQUIRE(points.size() == 2);
  CHECK(points[0]["name"] == "max_iops");
  CHECK(points[0]["iops"].get<double>() == Approx(max_iops));
  CHECK(points[0]["oio"].get<double>() ==
        points[0]["threads"].get<double>() * points[0]["queue_depth"].get<double>());
  // The histogram's bins hold every op of the point's window rounds, each bin [from, 2 x from).
  std::uint64_t ops = 0;
  for (const RawJson& bin : points[0]["bins"]) {
    if (bin[0].get<double>() > 0) CHECK(bin[1].get<double>() == Approx(2 * bin[0].get<double>()));
    ops += bin[2].get<std::uint64_t>();
  }
  CHECK(ops == static_cast<std::uint64_t>(
                   attr(step, fmt::format("pts.cell.TC{}.QD{}.ops", points[0]["threads"].get<int>(),
                                          points[0]["queue_depth"].get<int>()))));
}

}  // namespace

TEST_CASE("the HTML report of PTS runs carries each plot's points", "[html_report][pts]") {
  test::TempDir dir("pts-report");
  test::TempDir target("pts-report-target");
  const std::string json = run_pts_suite(dir, target.path().string());
  const std::string html = (dir.path() / "pts.html").string();
  const test::CliResult report = test::run_cli({"report", json, "-o", html});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  const RawJson doc = RawJson::parse(test::read_file(json));
  const RawJson model = embedded_model(test::read_file(html));
  const RawJson& steps = model.at("runs").at(0).at("steps");
  REQUIRE(steps.size() == 6);
  const std::map<std::string, std::size_t> expected = expected_pts_points(doc);
  for (std::size_t i = 0; i < 5; ++i) {
    const RawJson& step = doc["steps"][i];
    const RawJson& pts = steps[i].at("pts");
    const std::string test = text_attr(step, "pts.test");
    INFO(test);
    CHECK(pts.at("test") == test);
    check_rounds(step, pts.at("steady"), test == "throughput" || test == "latency" ? 1e-6 : 1.0);
    if (test == "iops" || test == "throughput" || test == "latency") {
      const RawJson& matrix = pts.at("matrix");
      for (std::size_t m = 0; m < matrix["metrics"].size(); ++m) {
        const RawJson& values = matrix["metrics"][m]["values"];
        std::size_t cells = 0;
        for (std::size_t r = 0; r < values.size(); ++r) {
          for (std::size_t c = 0; c < values[r].size(); ++c) {
            const std::string key =
                fmt::format("pts.cell.{}.{}.", matrix["mixes"][r].get<std::string>(),
                            matrix["block_sizes"][c].get<std::uint64_t>());
            const char* field =
                test == "iops" ? "iops"
                : test == "throughput"
                    ? "throughput_bytes_per_s"
                    : std::array{"mean_latency_ns", "p99_latency_ns", "max_latency_ns"}[m];
            CHECK(values[r][c].get<double>() ==
                  Approx(attr(step, key + field) * (test == "iops" ? 1.0 : 1e-6)));
            ++cells;
          }
        }
        const std::string chart = test == "iops" ? "pts_heatmap|" + std::to_string(i)
                                                 : fmt::format("pts_bars|{}|{}", i, m);
        CHECK(cells == expected.at(chart));
      }
      CHECK(matrix["metrics"].size() == (test == "latency" ? 3U : 1U));
    } else {
      CHECK(pts.at("matrix").is_null());
    }
    if (test == "wsat") {
      const RawJson& rows = pts.at("wsat").at("rows");
      REQUIRE(rows.size() == expected.at("pts_wsat_time|" + std::to_string(i)));
      for (std::size_t r = 0; r < rows.size(); ++r) {
        CHECK(rows[r][3].get<double>() * 1e9 ==
              Approx(attr(step, fmt::format("pts.round.{}.written_bytes", r + 1))));
      }
    }
    if (test == "dirth") check_dirth(step, pts.at("dirth"));
  }
  // The disk phase run with steady_state=: every sample as the rounds chart, the judged window
  // its last rounds.
  CHECK(steps[5].at("pts").is_null());
  const RawJson& phase = doc["steps"][5]["phases"][0];
  const RawJson& steady = steps[5]["phases"][0].at("steady_state");
  REQUIRE(steady.at("rounds").size() == expected.at("steady_state|5|0"));
  const RawJson& series = phase["steady_state"]["series"];
  REQUIRE(steady["rounds"].size() == series.size());
  const std::size_t samples = phase["steady_state"]["samples"];
  for (std::size_t i = 0; i < series.size(); ++i) {
    CHECK(steady["rounds"][i][0] == i + 1);
    CHECK(steady["rounds"][i][1].get<double>() == Approx(series[i].get<double>()));
  }
  CHECK(steady["last"] == samples);
  CHECK(steady["first"] == samples - phase["steady_state"]["window"].size() + 1);
  CHECK(steady["dropped"] == 0);
  CHECK(steady["mean"].get<double>() ==
        Approx(phase["steady_state"]["figures"]["window_mean"].get<double>()));
  REQUIRE(steady["bands"].size() == 1);  // iops:101%: mean +- 101 %
  CHECK(steady["bands"][0]["high"].get<double>() == Approx(steady["mean"].get<double>() * 2.01));
}

}  // namespace iobench::pts_report_test
