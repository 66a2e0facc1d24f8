// The HTML report's per-op-kind table in real headless Chromium: the page as the browser built it
// (--dump-dom) holds one table per phase with several op kinds, whose cells, parsed back, are the
// result's own figures (ops_by_kind) in the text report's units (MiB/s, ops/s, us) as the page
// rounds them; an op kind named like markup stays text. Skipped, with the reason printed, only
// where Chromium cannot start.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>

#include "tests/html_report/chromium_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench::test;
using Catch::Matchers::Contains;

// Named apart: the unity build puts the other browser tests' helpers beside these.
namespace op_kinds_browser {

using RawJson = nlohmann::json;

std::string unescaped(std::string text) {
  for (const auto& [entity, c] :
       {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
    for (std::size_t at = text.find(entity); at != std::string::npos;
         at = text.find(entity, at + 1)) {
      text.replace(at, std::string(entity).size(), c);
    }
  }
  return text;
}

// The rows (header first) of every <table class="facts op-kinds"> in `dom`, cells as text.
std::vector<std::vector<std::vector<std::string>>> op_tables(const std::string& dom) {
  std::vector<std::vector<std::vector<std::string>>> tables;
  const std::regex table_re(R"re(<table class="facts op-kinds">([\s\S]*?)</table>)re");
  const std::regex row_re(R"re(<tr>([\s\S]*?)</tr>)re");
  const std::regex cell_re(R"re(<t[dh]>([\s\S]*?)</t[dh]>)re");
  for (std::sregex_iterator t(dom.begin(), dom.end(), table_re), end; t != end; ++t) {
    std::vector<std::vector<std::string>> rows;
    const std::string body = (*t)[1];
    for (std::sregex_iterator r(body.begin(), body.end(), row_re); r != end; ++r) {
      std::vector<std::string> cells;
      const std::string row = (*r)[1];
      for (std::sregex_iterator c(row.begin(), row.end(), cell_re); c != end; ++c) {
        cells.push_back(unescaped((*c)[1]));
      }
      rows.push_back(std::move(cells));
    }
    tables.push_back(std::move(rows));
  }
  return tables;
}

// A cell's number: "1,234.5 us" -> 1234.5; nullopt for "-".
std::optional<double> number(std::string cell) {
  for (const char* unit : {" us", " MiB/s"}) {
    if (cell.ends_with(unit)) cell.resize(cell.size() - std::string(unit).size());
  }
  std::erase(cell, ',');
  if (cell == "-") return std::nullopt;
  return std::stod(cell);
}

// Whether `shown` is `value` as the page rounds it (report_dom.js num(): whole from 1000, one
// decimal from 100, two from 1, else three significant digits).
bool shown_as(const std::string& cell, double value) {
  const std::optional<double> shown = number(cell);
  if (!shown) return false;
  const double a = std::abs(value);
  const double step = a >= 1000 ? 0.5 : a >= 100 ? 0.05 : a >= 1 ? 0.005 : a * 0.005;
  return std::abs(*shown - value) <= step + 1e-9;
}

}  // namespace op_kinds_browser

TEST_CASE("the report's per-op-kind table holds the result's figures of each op kind") {
  using op_kinds_browser::RawJson;
  using op_kinds_browser::shown_as;
  TempDir dir("op-kinds-browser");
  const std::string profile = (dir.path() / "profile").string();
  if (!chromium_starts(profile)) return;
  // The fixture's write phase (op kinds write and fsync), its fsync renamed as markup would be:
  // an op kind's name is a label a user can choose (filebench's flowops).
  const std::string hostile = "</script><img src=x onerror=\"document.title='injected'\">fsync";
  RawJson doc = RawJson::parse(read_file(IOBENCH_TIME_SERIES_FIXTURE));
  RawJson& phase = doc["steps"][0]["phases"][0];
  const auto rename = [&hostile](RawJson& by_kind) {
    by_kind[hostile] = by_kind["fsync"];
    by_kind.erase("fsync");
  };
  rename(phase["ops_by_kind"]);
  for (RawJson& worker : phase["workers"]) rename(worker["ops_by_kind"]);
  const std::string result = (dir.path() / "result.json").string();
  std::ofstream(result) << doc.dump(2);
  const std::string html = (dir.path() / "report.html").string();
  const CliResult report = run_cli({"report", result, "-o", html});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  const CliResult dom = run_command(chromium_argv(profile, {"--dump-dom", "file://" + html}));
  REQUIRE(dom.exit_code == 0);

  const auto tables = op_kinds_browser::op_tables(dom.out);
  REQUIRE(tables.size() == 1);
  const auto& rows = tables[0];
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"op", "ops", "MiB", "MiB/s", "IOPS", "mean", "p50",
                                            "p99", "p99.9", "max", "errors"});
  // The result file as read back: each row is its op kind's figures (rates over the phase's wall
  // time, as the text report's op table; latency in us).
  const RawJson written = RawJson::parse(read_file(result));
  const RawJson& by_kind = written["steps"][0]["phases"][0]["ops_by_kind"];
  std::size_t checked = 0;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& cells = rows[r];
    REQUIRE(cells.size() == 11);
    INFO("row " << cells[0]);
    REQUIRE(by_kind.contains(cells[0]));
    const RawJson& op = by_kind[cells[0]];
    CHECK(cells[1] == std::to_string(op["ops"].get<std::uint64_t>()));
    CHECK(shown_as(cells[2], op["bytes"].get<double>() / 1048576.0));
    CHECK(shown_as(cells[3], op["throughput_bytes_per_s"].get<double>() / 1048576.0));
    CHECK_THAT(cells[3], Contains(" MiB/s"));
    CHECK(shown_as(cells[4], op["ops_per_s"].get<double>()));
    const RawJson& latency = op["latency_ns"];
    std::size_t column = 5;
    for (const char* figure : {"mean", "p50", "p99", "p99_9", "max"}) {
      INFO(figure << ": " << cells[column]);
      CHECK(shown_as(cells[column], latency[figure].get<double>() / 1000.0));
      CHECK_THAT(cells[column], Contains(" us"));
      ++column;
    }
    CHECK(cells[10] == std::to_string(op["errors"].get<std::uint64_t>()));
    ++checked;
  }
  CHECK(checked == 2);
  // The figures are the fixture's: 512 writes of 4 KiB, 11,343 IOPS; 2 fsyncs of 28.8 ms mean
  // (rows in the result's order of op kinds).
  const auto row_of = [&rows](const std::string& name) {
    for (const auto& row : rows) {
      if (row[0] == name) return row;
    }
    return std::vector<std::string>{};
  };
  const std::vector<std::string> write = row_of("write");
  REQUIRE(write.size() == 11);
  CHECK(write[1] == "512");
  CHECK(write[4] == "11,343");
  const std::vector<std::string> fsync = row_of(hostile);
  REQUIRE(fsync.size() == 11);
  CHECK(fsync[1] == "2");
  CHECK(fsync[5] == "28,800 us");
  // The markup-like name is text: no element came of it.
  CHECK_THAT(dom.out, Contains("&lt;img src=x onerror="));
  // No <img> element with an onerror attribute (--dump-dom writes attributes quoted, <img
  // src="x" onerror="...">; the chart's range selector has <img> elements of its own).
  CHECK_FALSE(
      std::regex_search(dom.out, std::regex(R"re(<img\b[^>]*\bonerror\b)re", std::regex::icase)));
  CHECK_THAT(dom.out, Contains("<title>iobench report: "));
}
