// The HTML report in real headless Chromium (Debian's chromium): a small real suite run by the
// CLI (disk at two block sizes, tiotest, dbench, a sweep, a repeated step, bonnie) and the
// crafted time-series fixture. The page writes its own self-check into the DOM (per chart the
// rows dygraphs drew, numRows()); this test compares those with the point counts it reads from
// the JSON files itself, requires no console message and no script error, and saves a PNG
// screenshot in the build tree. Skipped, with the reason printed, only where Chromium cannot
// start.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tests/html_report/chromium_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench::test;
using Catch::Matchers::Contains;
using RawJson = nlohmann::json;

namespace {

constexpr const char* kSuite = R"json({
  "name": "html-report-test",
  "steps": [
    {"name": "disk 4k", "workload": "disk",
     "params": {"operation": "write", "bs": "4k", "size": "1m"}},
    {"name": "disk 64k", "workload": "disk",
     "params": {"operation": "write", "bs": "64k", "size": "2m"}},
    {"name": "tiotest", "workload": "tiotest",
     "params": {"threads": 2, "size": "1m", "random_ops": 50}},
    {"name": "dbench", "workload": "dbench", "params": {"procs": 2, "loadfile": "@LOADFILE@"},
     "time": "500ms", "warmup": "0s"},
    {"name": "threads sweep", "workload": "tiotest",
     "params": {"size": "1m", "random_ops": 50}, "sweep": {"param": "threads", "values": [1, 2]}},
    {"name": "repeated", "workload": "disk",
     "params": {"operation": "write", "bs": "16k", "size": "1m"}, "repeat": 3},
    {"name": "bonnie", "workload": "bonnie",
     "params": {"size": "4m", "files": "1", "force": true, "per_char": "1m", "seeks": 500}}
  ]
})json";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string key(const std::vector<std::string>& parts) {
  std::string k;
  for (const std::string& part : parts) k += part + "|";
  return k;
}

// What each chart of the page must draw, read from the result documents (runs in page order).
std::map<std::string, std::size_t> expected_charts(const std::vector<RawJson>& docs) {
  std::map<std::string, std::size_t> expected;
  for (std::size_t r = 0; r < docs.size(); ++r) {
    const RawJson& doc = docs[r];
    const std::string run = std::to_string(r);
    for (std::size_t i = 0; i < doc["steps"].size(); ++i) {
      const RawJson& phases = doc["steps"][i]["phases"];
      for (std::size_t j = 0; j < phases.size(); ++j) {
        const RawJson& phase = phases[j];
        std::set<std::string> buckets;  // the latency curve: one point per bucket, all op kinds
        for (const auto& [kind, op] : phase["ops_by_kind"].items()) {
          if (!op["latency_ns"].contains("buckets")) continue;
          for (const auto& [lower, n] : op["latency_ns"]["buckets"].items()) buckets.insert(lower);
        }
        const std::vector<std::string> at = {run, std::to_string(i), std::to_string(j)};
        if (!buckets.empty()) expected[key({"latency_cdf", at[0], at[1], at[2]})] = buckets.size();
        if (phase.contains("time_series") && !phase["time_series"].is_null()) {
          const std::size_t points = phase["time_series"]["points"].size();
          expected[key({"time_series_throughput", at[0], at[1], at[2]})] = points;
          expected[key({"time_series_iops", at[0], at[1], at[2]})] = points;
          // The devices beside the application (issue 29): where any point has them.
          bool devices = false;
          for (const RawJson& point : phase["time_series"]["points"]) {
            devices = devices || (point.contains("devices") && !point["devices"].empty());
          }
          if (devices) {
            expected[key({"device_throughput", at[0], at[1], at[2]})] = points;
            expected[key({"device_util", at[0], at[1], at[2]})] = points;
          }
        }
      }
    }
    if (!doc.contains("suite")) continue;
    for (const RawJson& step : doc["suite"]["steps"]) {
      const std::string name = step["name"];
      for (const RawJson& row : step["sweep_table"]) {
        ++expected[key({"sweep", run, name, row["phase"].get<std::string>()})];
      }
      if (step["repeat"].get<int>() < 2) continue;
      for (const RawJson& point : step["points"]) {
        const std::string at_point =
            point["point"].get<std::string>().empty() ? "null" : point["point"].get<std::string>();
        for (const RawJson& phase : point["repetitions"]) {
          expected[key({"repetitions", run, name, phase["phase"].get<std::string>(), at_point})] =
              phase["metrics"]["throughput_bytes_per_s"]["count"].get<std::size_t>();
        }
      }
    }
  }
  return expected;
}

// The page's self-check: chart key -> rows drawn, and the status attributes.
struct SelfCheck {
  std::string status;
  std::string errors;
  std::map<std::string, std::size_t> drawn;
  std::map<std::string, std::size_t> held;  // rows the page's data held
};

SelfCheck read_self_check(const std::string& dom) {
  SelfCheck check;
  std::smatch m;
  const std::regex box(
      R"re(id="iobench-selfcheck" data-status="([a-z]+)" data-charts="\d+" data-errors="(\d+)")re");
  if (std::regex_search(dom, m, box)) {
    check.status = m[1];
    check.errors = m[2];
  }
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
    std::string k;
    if (a["kind"] == "sweep") {
      k = key({"sweep", a["run"], a["step"], a["phase"]});
    } else if (a["kind"] == "repetitions") {
      // A null point (no sweep) has no attribute.
      k = key({"repetitions", a["run"], a["step"], a["phase"],
               a["point"].empty() ? "null" : a["point"]});
    } else {
      k = key({a["kind"], a["run"], a["step"], a["phase"]});
    }
    check.drawn[k] = std::stoul(a["drawn"]);
    check.held[k] = std::stoul(a["expected"]);
  }
  return check;
}

// chromium_argv with the browser's log on stderr, where console_lines finds the page's messages.
std::vector<std::string> chromium(const std::string& profile,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> logged = {"--enable-logging=stderr", "--v=0"};
  logged.insert(logged.end(), args.begin(), args.end());
  return chromium_argv(profile, logged);
}

std::vector<std::string> console_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < err.size()) {
    const std::size_t end = err.find('\n', start);
    const std::string line = err.substr(start, end == std::string::npos ? end : end - start);
    if (line.find(":CONSOLE") != std::string::npos) lines.push_back(line);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void check_page(const std::string& dom, const std::string& err,
                const std::map<std::string, std::size_t>& expected, bool all_runs) {
  for (const std::string& line : console_lines(err)) UNSCOPED_INFO(line);
  CHECK(console_lines(err).empty());
  const SelfCheck check = read_self_check(dom);
  CHECK(check.status == "ok");
  CHECK(check.errors == "0");
  CHECK_THAT(dom, Contains("<pre id=\"iobench-errors\" hidden=\"\"></pre>"));
  // Every chart the JSON calls for was drawn with all its points, and no other chart exists.
  for (const auto& [k, n] : expected) {
    if (!all_runs && !k.starts_with("latency_cdf|0|") && k.find("|0|") == std::string::npos) {
      continue;
    }
    INFO("chart " << k);
    REQUIRE(check.drawn.count(k) == 1);
    CHECK(check.drawn.at(k) == n);
    CHECK(check.held.at(k) == n);
  }
  for (const auto& [k, n] : check.drawn) {
    INFO("chart on the page: " << k);
    CHECK(expected.count(k) == 1);
  }
  // Only the page's own three scripts: nothing a result string held became an element.
  CHECK(count(dom, "<script") == 3);
}

}  // namespace

TEST_CASE("the report of a real suite run draws every point in headless Chromium") {
  const CliResult probe_version = run_command({"chromium", "--version"});
  if (probe_version.exit_code == 127) {
    WARN("skipped: chromium is not installed (Debian: apt-get install chromium)");
    std::printf("html_browser: skipped: chromium is not installed\n");
    return;
  }
  TempDir dir("browser");
  const std::string profile = (dir.path() / "profile").string();
  const auto probe_start = std::chrono::steady_clock::now();
  const CliResult probe = run_command(chromium(profile, {"--dump-dom", "about:blank"}));
  if (probe.exit_code != 0 || probe.out.find("<body") == std::string::npos) {
    WARN("skipped: chromium cannot start here (exit " << probe.exit_code
                                                      << "): " << probe.err.substr(0, 2000));
    std::printf("html_browser: skipped: chromium cannot start (exit %d)\n", probe.exit_code);
    return;
  }
  const double probe_s = seconds_since(probe_start);

  // The suite on a tmpfs where one can be mounted (no fsync cost), else in the build tree.
  ScopedTmpfs tmpfs("256m");
  TempDir target_dir("browser-target");
  const std::string target = tmpfs.mounted() ? tmpfs.path().string() : target_dir.path().string();
  const std::string suite = (dir.path() / "suite.json").string();
  const std::string loadfile = (dir.path() / "tiny.txt").string();
  std::ofstream(loadfile) << kTinyLoadfile;
  std::string suite_text = kSuite;
  suite_text.replace(suite_text.find("@LOADFILE@"), 10, loadfile);
  std::ofstream(suite) << suite_text;
  const std::string run_json = (dir.path() / "run.json").string();
  const std::string direct_html = (dir.path() / "direct.html").string();
  const auto run_start = std::chrono::steady_clock::now();
  const CliResult run = run_cli(
      {"run", suite, "-d", target, "-f", "json", "-o", run_json, "-q", "--html", direct_html});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const double run_s = seconds_since(run_start);

  const std::string report_html = (dir.path() / "report.html").string();
  const CliResult report =
      run_cli({"report", run_json, IOBENCH_TIME_SERIES_FIXTURE, "-o", report_html});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);

  const std::vector<RawJson> docs = {RawJson::parse(read_file(run_json)),
                                     RawJson::parse(read_file(IOBENCH_TIME_SERIES_FIXTURE))};
  const std::map<std::string, std::size_t> expected = expected_charts(docs);
  // The suite's parts are all there: a sweep, repetitions, and the fixture's time series.
  const auto has = [&](const std::string& prefix) {
    return std::any_of(expected.begin(), expected.end(),
                       [&](const auto& e) { return e.first.starts_with(prefix); });
  };
  REQUIRE(has("sweep|0|threads sweep|"));
  REQUIRE(has("repetitions|0|repeated|"));
  REQUIRE(has("time_series_throughput|1|0|0|"));
  REQUIRE(expected.at(key({"time_series_throughput", "1", "0", "0"})) == 8);

  const auto dom_start = std::chrono::steady_clock::now();
  const CliResult dom = run_command(chromium(profile, {"--dump-dom", "file://" + report_html}));
  const double dom_s = seconds_since(dom_start);
  REQUIRE(dom.exit_code == 0);
  check_page(dom.out, dom.err, expected, true);
  // The bonnie++ table, with +++++ as "too fast to measure".
  CHECK_THAT(dom.out, Contains("Sequential Output") && Contains("bonnie-too_fast"));
  // The fixture's hostile step name is text on the page, not markup.
  CHECK_THAT(dom.out, Contains("disk &lt;/script&gt;&lt;script&gt;document.title=\"injected\""
                               "&lt;/script&gt;"));
  CHECK_THAT(dom.out, Contains("<title>iobench report: "));

  // The page `run --html` wrote: the same run, the same charts (run 0 only).
  std::map<std::string, std::size_t> expected_direct;
  const std::vector<RawJson> direct_docs = {docs[0]};
  expected_direct = expected_charts(direct_docs);
  const CliResult direct = run_command(chromium(profile, {"--dump-dom", "file://" + direct_html}));
  REQUIRE(direct.exit_code == 0);
  check_page(direct.out, direct.err, expected_direct, true);

  const std::string png = std::string(IOBENCH_BROWSER_OUTPUT_DIR) + "/report.png";
  std::remove(png.c_str());
  const auto shot_start = std::chrono::steady_clock::now();
  const CliResult shot =
      run_command(chromium(profile, {"--hide-scrollbars", "--window-size=1280,6000",
                                     "--screenshot=" + png, "file://" + report_html}));
  const double shot_s = seconds_since(shot_start);
  REQUIRE(shot.exit_code == 0);
  const std::string image = read_file(png);
  REQUIRE(image.size() > 10000);
  CHECK(image.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  std::printf(
      "html_browser: chromium probe %.2f s, suite run %.2f s, dump-dom %.2f s, screenshot %.2f s "
      "(%s)\n",
      probe_s, run_s, dom_s, shot_s, png.c_str());
}
