// The HTML report's SNIA PTS plots in real headless Chromium: a small run of every PTS test and
// a steady_state= phase; each plot is an SVG whose data points (class "point") the page counts
// into its self-check. This test compares those counts with the points it reads from the JSON
// itself (the tracked rounds, the matrix cells, WSAT's rounds, DIRTH's TC x QD cells and
// histogram bins, the steady-state window), requires no script error, and saves a screenshot.
// Skipped, with the reason printed, only where Chromium cannot start.
#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>

#include "tests/html_report/chromium_support.hpp"
#include "tests/html_report/pts_report_support.hpp"

// In the support's namespace, named apart: the unity build puts browser_test.cpp's helpers
// beside these.
namespace iobench::pts_report_test {
namespace pts_browser {

// The page's self-check entries of the PTS and steady-state plots: key -> {expected, drawn}.
std::map<std::string, std::pair<std::size_t, std::size_t>> pts_checks(const std::string& dom) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> out;
  const std::regex span(R"re(<span class="check" ([^>]*)>)re");
  const std::regex attr(R"re(data-([a-z]+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), span); it != std::sregex_iterator();
       ++it) {
    const std::string attrs = (*it)[1];
    std::map<std::string, std::string> a;
    for (auto at = std::sregex_iterator(attrs.begin(), attrs.end(), attr);
         at != std::sregex_iterator(); ++at) {
      a[(*at)[1]] = (*at)[2];
    }
    const std::string kind = a["kind"];
    if (!kind.starts_with("pts_") && kind != "steady_state") continue;
    std::string key = kind + "|" + a["step"];
    if (kind == "steady_state") key += "|" + a["phase"];
    if (a.count("chart") != 0) key += "|" + a["chart"];
    out[key] = {std::stoul(a["expected"]), std::stoul(a["drawn"])};
  }
  return out;
}

std::string self_check(const std::string& dom, const std::string& name) {
  std::smatch m;
  const std::regex re("id=\"iobench-selfcheck\"[^>]*" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? std::string(m[1]) : std::string("(absent)");
}

}  // namespace pts_browser

TEST_CASE("the PTS plots are SVG charts with every point in headless Chromium") {
  test::TempDir dir("pts-browser");
  const std::string profile = (dir.path() / "profile").string();
  if (!test::chromium_starts(profile)) return;
  test::TempDir target("pts-browser-target");
  const std::string json = run_pts_suite(dir, target.path().string());
  const std::string html = (dir.path() / "pts.html").string();
  const test::CliResult report = test::run_cli({"report", json, "-o", html});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  const test::CliResult dom =
      test::run_command(test::chromium_argv(profile, {"--dump-dom", "file://" + html}));
  REQUIRE(dom.exit_code == 0);
  CHECK(pts_browser::self_check(dom.out, "data-errors") == "0");
  CHECK(pts_browser::self_check(dom.out, "data-status") == "ok");
  const std::map<std::string, std::size_t> expected =
      expected_pts_points(RawJson::parse(test::read_file(json)));
  const auto drawn = pts_browser::pts_checks(dom.out);
  for (const auto& [key, points] : expected) {
    INFO("plot " << key);
    REQUIRE(drawn.count(key) == 1);
    CHECK(drawn.at(key).first == points);
    CHECK(drawn.at(key).second == points);
  }
  for (const auto& [key, counts] : drawn) {
    INFO("plot on the page: " << key);
    CHECK(expected.count(key) == 1);
  }
  // Every PTS test's plot kind is there (the run is complete), and the heat map's cells and
  // DIRTH's curves are SVG elements of the page.
  for (const char* kind : {"pts_rounds|0", "pts_iops_bs|0", "pts_heatmap|0", "pts_bars|1|0",
                           "pts_bars|2|2", "pts_wsat_time|3", "pts_wsat_written|3", "pts_dirth|4",
                           "pts_histogram|4|0", "pts_histogram|4|1", "steady_state|5|0"}) {
    CHECK(expected.count(kind) == 1);
  }
  CHECK(dom.out.find("class=\"point cell\"") != std::string::npos);
  CHECK(dom.out.find("<svg") != std::string::npos);
  const std::string png = std::string(IOBENCH_BROWSER_OUTPUT_DIR) + "/pts_report.png";
  const test::CliResult shot = test::run_command(test::chromium_argv(
      profile,
      {"--hide-scrollbars", "--window-size=1200,4000", "--screenshot=" + png, "file://" + html}));
  CHECK(shot.exit_code == 0);
  std::printf("html_browser: PTS plots screenshot %s\n", png.c_str());
}

}  // namespace iobench::pts_report_test
