// Data preparation of the HTML report: each chart holds exactly the points of the result it
// shows (time series, latency curves), bonnie++'s "+++++" stays "too fast to measure", results
// without "time_series" still report, and a malformed "time_series" is refused with its pointer.
#include "report/html/report_model.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iobench/classic_results.hpp>
#include <iobench/error.hpp>
#include <iobench/html_report.hpp>
#include <iobench/result_json.hpp>
#include <iobench/steady_state.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/support/test_support.hpp"

using namespace iobench;
using Catch::Matchers::Contains;
using RawJson = nlohmann::json;

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::string fixture_text() { return test::read_file(IOBENCH_TIME_SERIES_FIXTURE); }

ReportInput fixture_input(const std::string& text) {
  return ReportInput{
      .label = "fixture.json", .document = parse_result_json(text), .json_text = text};
}

// The fixture's phase with a time series: step 0, phase 0.
const RawJson& fixture_series(const RawJson& doc) {
  return doc["steps"][0]["phases"][0]["time_series"];
}

}  // namespace

TEST_CASE("time series charts have one row per point of the result, in its units") {
  const RawJson doc = RawJson::parse(fixture_text());
  const RawJson& series = fixture_series(doc);
  const RawJson& points = series["points"];
  REQUIRE(points.size() == 8);
  const detail::html::Json charts = detail::html::time_series_charts(series, "/ts");

  CHECK(charts["points"] == 8);
  CHECK(charts["interval_ns"] == 20'000'000.0);
  CHECK(charts["merged_intervals"] == 2.0);
  CHECK(charts["workers"] == 2);
  const detail::html::Json& tput = charts["throughput"];
  const detail::html::Json& iops = charts["iops"];
  CHECK(tput["labels"] == detail::html::Json::array({"time (s)", "all MiB/s", "worker 0",
                                                     "worker 1", "p99 latency (us)"}));
  REQUIRE(tput["rows"].size() == points.size());
  REQUIRE(iops["rows"].size() == points.size());
  // The two warm-up points (0..40 ms) are one shaded range.
  CHECK(charts["warmup"] == detail::html::Json::array({detail::html::Json::array({0.0, 0.04})}));

  double measured_bytes = 0;
  double measured_ops = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    const RawJson& point = points[k];
    const double seconds = point["duration_ns"].get<double>() / 1e9;
    const detail::html::Json& row = tput["rows"][k];
    CHECK(row[0].get<double>() == Approx(point["start_ns"].get<double>() / 1e9));
    CHECK(row[1].get<double>() == Approx(point["bytes"].get<double>() / seconds / kBytesPerMiB));
    CHECK(row[2].get<double>() ==
          Approx(point["workers"][0]["bytes"].get<double>() / seconds / kBytesPerMiB));
    CHECK(row[3].get<double>() ==
          Approx(point["workers"][1]["bytes"].get<double>() / seconds / kBytesPerMiB));
    CHECK(row[4].get<double>() == Approx(point["latency_ns"]["p99"].get<double>() / 1000.0));
    CHECK(iops["rows"][k][1].get<double>() == Approx(point["ops"].get<double>() / seconds));
    if (!point["warmup"].get<bool>()) {
      measured_bytes += row[1].get<double>() * seconds * kBytesPerMiB;
      measured_ops += iops["rows"][k][1].get<double>() * seconds;
    }
  }
  // What the chart shows adds up to the phase's totals.
  const RawJson& phase = doc["steps"][0]["phases"][0];
  CHECK(measured_bytes == Approx(phase["bytes"].get<double>()));
  CHECK(measured_ops == Approx(phase["ops"].get<double>()));
  // Worker 1 did nothing in measured point 3 (row 5): 0, not a gap.
  CHECK(tput["rows"][5][3].get<double>() == 0.0);
}

TEST_CASE("an interval without ops has no p99 point, and many workers chart the line of all only") {
  RawJson series = {{"interval_ns", 1e9}, {"points", RawJson::array()}};
  RawJson workers = RawJson::array();
  for (int w = 0; w < 20; ++w) workers.push_back({{"index", w}, {"bytes", 0}, {"ops", 0}});
  series["points"].push_back({{"start_ns", 0},
                              {"duration_ns", 1e9},
                              {"warmup", false},
                              {"bytes", 0},
                              {"ops", 0},
                              {"latency_ns", nullptr},
                              {"workers", workers}});
  const detail::html::Json charts = detail::html::time_series_charts(series, "/ts");
  CHECK(charts["workers"] == 20);
  CHECK(charts["per_worker"] == false);
  CHECK(charts["throughput"]["labels"].size() == 3);
  CHECK(charts["throughput"]["rows"][0] == detail::html::Json::array({0.0, 0.0, nullptr}));
}

TEST_CASE("a malformed time series is refused with the JSON pointer of the field") {
  RawJson series = {{"interval_ns", 1e9}, {"points", "none"}};
  CHECK_THROWS_WITH(detail::html::time_series_charts(series, "/ts"),
                    Contains("/ts/points") && Contains("array"));
  series["points"] =
      RawJson::array({{{"start_ns", 0}, {"duration_ns", 1}, {"warmup", false}, {"ops", 1}}});
  CHECK_THROWS_WITH(detail::html::time_series_charts(series, "/ts"),
                    Contains("/ts/points/0/bytes") && Contains("missing"));

  // Through the whole report: the result reader refuses it first, with the pointer...
  RawJson doc = RawJson::parse(fixture_text());
  doc["steps"][0]["phases"][0]["time_series"]["points"][1]["warmup"] = "yes";
  CHECK_THROWS_WITH(
      fixture_input(doc.dump()),
      Contains("/steps/0/phases/0/time_series/points/1/warmup") && Contains("true or false"));
  // ... and the report, given a text its document did not come from, names label and pointer.
  const ReportInput input{.label = "fixture.json",
                          .document = parse_result_json(fixture_text()),
                          .json_text = doc.dump()};
  std::ostringstream page;
  CHECK_THROWS_AS(write_html_report(std::span<const ReportInput>(&input, 1), page), ConfigError);
  CHECK_THROWS_WITH(
      write_html_report(std::span<const ReportInput>(&input, 1), page),
      Contains(
          "fixture.json: /steps/0/phases/0/time_series/points/1/warmup: expected true or false"));
  CHECK(page.str().empty());  // nothing written
}

TEST_CASE("a result without time series reports and says so, its latency curve has its buckets") {
  RawJson doc = RawJson::parse(fixture_text());
  // The latency buckets of the phase (all op kinds): the curve's points.
  std::set<std::string> buckets;
  for (const auto& [kind, op] : doc["steps"][0]["phases"][0]["ops_by_kind"].items()) {
    for (const auto& [lower, count] : op["latency_ns"]["buckets"].items()) buckets.insert(lower);
  }
  REQUIRE(buckets.size() > 3);
  doc["steps"][0]["phases"][0].erase("time_series");
  const ReportInput input = fixture_input(doc.dump());
  const detail::html::Json model =
      detail::html::report_model(std::span<const ReportInput>(&input, 1));
  const detail::html::Json& phase = model["runs"][0]["steps"][0]["phases"][0];
  CHECK(phase["time_series"].is_null());
  CHECK(phase["latency_cdf"]["rows"].size() == buckets.size());
  CHECK(phase["latency_cdf"]["rows"].back()[1] == 100.0);
  CHECK(model["comparison"].is_null());
  // Per-worker spread: both workers, Jain's index of their throughput.
  const detail::html::Json& workers = phase["workers"];
  REQUIRE(workers["rows"].size() == 2);
  const double a = workers["rows"][0]["value"].get<double>();
  const double b = workers["rows"][1]["value"].get<double>();
  CHECK(workers["fairness"].get<double>() == Approx((a + b) * (a + b) / (2 * (a * a + b * b))));
  std::ostringstream page;
  write_html_report(std::span<const ReportInput>(&input, 1), page);
  CHECK_THAT(page.str(), Contains("\"time_series\":null"));
}

// dygraphs cannot draw a chart of zero rows (a phase that failed before its first interval).
TEST_CASE("a time series without points draws no chart") {
  RawJson doc = RawJson::parse(fixture_text());
  doc["steps"][0]["phases"][0]["time_series"]["points"] = RawJson::array();
  const ReportInput input = fixture_input(doc.dump());
  const detail::html::Json model =
      detail::html::report_model(std::span<const ReportInput>(&input, 1));
  CHECK(model["runs"][0]["steps"][0]["phases"][0]["time_series"].is_null());
}

TEST_CASE("the latency curve: one point per non-empty bucket, ending at 100 %") {
  CompactLatencyHistogram latency;
  for (const std::uint64_t ns : {100, 100, 200, 5000, 1'000'000}) latency.record(ns);
  const detail::html::Json rows = detail::html::latency_cdf(latency);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] == detail::html::Json::array({0.101, 40.0}));  // below 101 ns: 2 of 5
  CHECK(rows[1] == detail::html::Json::array({0.201, 60.0}));
  CHECK(rows[2][1] == 80.0);
  CHECK(rows[3][1] == 100.0);
  CHECK(rows[3][0].get<double>() > 1000.0);
  CHECK(detail::html::latency_cdf(CompactLatencyHistogram{}).empty());
}

TEST_CASE("bonnie++ tables: +++++ is too fast to measure (never 0), columns ranked") {
  // bonnie++ 2.00a's CSV (format 1.98, 50 fields): two machines.
  const std::string vm =
      "1.98,2.00a,vm,1,1795999180,512M,,8192,5,349,67,168369,46,+++++,+++,450,68,+++++,+++,"
      "+++++,+++,4,,,,,+++++,+++,1200,10,+++++,+++,900,20,+++++,+++,800,30,319ms,356ms,4189us,"
      "427ms,1443us,8057us,136us,287us,303us,1420us,102us,1672us\n";
  const std::string fast =
      "1.98,2.00a,fast,1,1795999181,512M,,8192,5,700,50,200000,40,90000,30,900,60,400000,20,"
      "5000.0,10,4,,,,,30000,80,2400,10,25000,70,1800,20,+++++,+++,1600,30,100ms,200ms,3000us,"
      "1s,1000us,7000us,100us,200us,300us,1000us,100us,1000us\n";
  const std::vector<detail::html::BonnieCsv> csv = {{"one", vm}, {"two", fast}};
  const detail::html::Json tables = detail::html::bonnie_tables_from_csv(csv);
  REQUIRE(tables.size() == 4);
  const detail::html::Json& io = tables[0];
  CHECK(io["columns"][0] == "Step");
  // The chunk column (empty in every row) is left out, as bon_csv2html does.
  for (const auto& title : io["columns"]) CHECK(title != "Chunk");
  auto column = [&](const detail::html::Json& table, const std::string& title) {
    for (std::size_t i = 0; i < table["columns"].size(); ++i) {
      if (table["columns"][i] == title) return i;
    }
    FAIL("no column " << title);
    return std::size_t{0};
  };
  const std::size_t rewrite = column(io, "Rewrite K/sec");
  const detail::html::Json& vm_rewrite = io["rows"][0]["cells"][rewrite];
  CHECK(vm_rewrite["kind"] == "too_fast");
  CHECK(vm_rewrite["text"] == "too fast to measure");
  CHECK(vm_rewrite["shade"].is_null());
  CHECK(io["rows"][1]["cells"][rewrite]["text"] == "90000");
  // Block output: higher is better; its CPU: lower is better.
  const std::size_t block = column(io, "Block K/sec");
  CHECK(io["rows"][0]["cells"][block]["shade"] == 0.0);
  CHECK(io["rows"][1]["cells"][block]["shade"] == 1.0);
  CHECK(io["rows"][0]["cells"][block + 1]["shade"] == 0.0);  // 46 % CPU, worse than 40 %
  // Latency: lower is better, units parsed (1 s > 427 ms).
  const detail::html::Json& latency = tables[1];
  const std::size_t per_chr_in = column(latency, "Per Chr") + 3;  // input Per Chr (4th latency)
  CHECK(latency["rows"][0]["cells"][per_chr_in]["text"] == "427ms");
  CHECK(latency["rows"][0]["cells"][per_chr_in]["shade"] == 1.0);
  CHECK(latency["rows"][1]["cells"][per_chr_in]["shade"] == 0.0);
  // No "too fast" cell anywhere shows a number.
  for (const auto& table : tables) {
    for (const auto& row : table["rows"]) {
      for (const auto& cell : row["cells"]) {
        if (cell["kind"] != "too_fast") continue;
        CHECK(cell["text"] == "too fast to measure");
      }
    }
  }
  // Header lines (bonnie++ -x) and short lines are skipped.
  const std::vector<detail::html::BonnieCsv> header = {
      {"h", "format_version,bonnie_version,name\n1.98,2.00a,short\n"}};
  CHECK(detail::html::bonnie_tables_from_csv(header).empty());
}

namespace {

// The report model of a classic tool's result file in tests/compare/data.
detail::html::Json classic_model(const std::string& name) {
  const ReportInput input = load_report_input(std::string(IOBENCH_CLASSIC_DATA_DIR) + "/" + name);
  CHECK(input.json_text.empty());  // only iobench's JSON is kept as text
  return detail::html::report_model(std::span<const ReportInput>(&input, 1));
}

const detail::html::Json& phase_named(const detail::html::Json& step, const std::string& name) {
  for (const auto& phase : step["phases"]) {
    if (phase["name"] == name) return phase;
  }
  FAIL("no phase " << name);
  return step;
}

}  // namespace

TEST_CASE("a classic tool's result: the figures it printed, nothing invented") {
  // bonnie++ 2.00a's CSV: "vm,...,662,36,+++++,+++,..." with latencies, no kernel or CPU facts.
  const detail::html::Json model = classic_model("bonnie_198.csv");
  const detail::html::Json& run = model["runs"][0];
  CHECK(run["source"]["format"] == "bonnie-csv");
  CHECK(run["source"]["tool_version"] == "2.00a");
  CHECK(run["invocation"].is_null());
  // Only the facts the CSV gives: the machine name, and no "kernel", "CPU" or "memory" row.
  std::set<std::string> fields;
  for (const auto& row : run["environment"]) fields.insert(row[0].get<std::string>());
  CHECK(fields.contains("hostname"));
  CHECK_FALSE(fields.contains("kernel"));
  CHECK_FALSE(fields.contains("CPU"));
  CHECK_FALSE(fields.contains("memory"));

  const detail::html::Json& step = run["steps"][0];
  const detail::html::Json& putc = phase_named(step, "putc");
  CHECK(putc["reported"] == true);
  CHECK(putc["throughput_mib_s"] == Approx(662.0 / 1024.0));
  CHECK(putc["cpu_percent"] == 36.0);
  CHECK(putc["latency_us"]["max"] == Approx(32689.0));  // 32689us
  CHECK(putc["latency_us"]["p99"].is_null());
  CHECK(putc["unavailable"]["lat_p99"] == "not reported");
  CHECK(putc["ops"].is_null());
  CHECK(putc["wall_ns"].is_null());
  CHECK(putc["time_series"].is_null());
  CHECK(putc["latency_cdf"]["rows"].empty());
  CHECK(putc["workers"]["rows"].empty());
  const detail::html::Json& block = phase_named(step, "put_block");
  CHECK(block["throughput_mib_s"].is_null());
  CHECK(block["unavailable"]["throughput"] == "too fast to measure (+++++)");
  CHECK(block["unavailable"]["cpu"] == "too fast to measure (+++++)");

  // The bonnie++ table shows bonnie++'s own cells: 662 K/sec, "+++++" as too fast.
  REQUIRE(run["bonnie"].size() >= 1);
  const detail::html::Json& io = run["bonnie"][0];
  std::size_t per_chr = 0;
  while (per_chr < io["columns"].size() && io["columns"][per_chr] != "Per Chr K/sec") ++per_chr;
  REQUIRE(per_chr < io["columns"].size());
  CHECK(io["rows"][0]["cells"][per_chr]["text"] == "662");
  CHECK(io["rows"][0]["cells"][per_chr + 1]["text"] == "36");
  CHECK(io["rows"][0]["cells"][per_chr + 2]["text"] == "too fast to measure");
  CHECK(io["rows"][0]["cells"][1]["text"] == "vm");  // Name
  const detail::html::Json& latency = run["bonnie"][1];
  CHECK(latency["rows"][0]["cells"][2]["text"] == "32689us");  // Per Chr output
}

TEST_CASE("bonnie++ 2.00a's directory count (one column late) reaches the report's Dirs") {
  // "128,8192,1024,,4": bonnie++ 2.00a writes num_dirs where file_chunk_size belongs.
  const ResultDocument doc =
      read_result_file(std::string(IOBENCH_CLASSIC_DATA_DIR) + "/bonnie_200a_dirs.csv");
  CHECK(doc.run.steps[0].params.at("num_dirs") == "4");
  CHECK_FALSE(doc.run.steps[0].params.contains("file_chunk_size"));
  const detail::html::Json model = classic_model("bonnie_200a_dirs.csv");
  const detail::html::Json& files = model["runs"][0]["bonnie"][0];  // no I/O tests: -s 0
  std::size_t dirs = 0;
  while (dirs < files["columns"].size() && files["columns"][dirs] != "Dirs") ++dirs;
  REQUIRE(dirs < files["columns"].size());
  CHECK(files["rows"][0]["cells"][dirs]["text"] == "4");
  for (const auto& title : files["columns"]) CHECK(title != "File chunk");
  // A dbench result: its throughput line, no bonnie table.
  const detail::html::Json dbench = classic_model("seed002_dbench.txt");
  CHECK(dbench["runs"][0]["source"]["format"] == "dbench");
  CHECK(dbench["runs"][0]["bonnie"].empty());
  CHECK(dbench["runs"][0]["steps"][0]["phases"][0]["throughput_mib_s"].get<double>() > 0);
}

TEST_CASE("a steady-state chart holds every sample kept with the judged window as its tail",
          "[html_report][steady_state]") {
  PhaseResult phase;
  SteadyStateResult& steady = phase.steady_state.emplace();
  steady.config.criterion = parse_steady_state_criterion("iops:10%", "test");
  steady.config.window = std::chrono::milliseconds(750);
  steady.config.interval = std::chrono::milliseconds(250);
  // 9 samples taken, the first 2 no longer kept; steady on the last 3.
  steady.samples = 9;
  steady.series_dropped = 2;
  steady.series = {400, 900, 100, 700, 500, 510, 490};
  steady.window = {500, 510, 490};
  steady.steady = true;
  steady.figures = judge_window(steady.config.criterion, steady.window);
  const detail::html::Json chart = detail::html::steady_state_model(phase);
  REQUIRE(chart["rounds"].size() == 7);
  for (std::size_t i = 0; i < 7; ++i) {
    CHECK(chart["rounds"][i][0] == i + 3);  // numbered from the first sample taken
    CHECK(chart["rounds"][i][1] == steady.series[i]);
  }
  CHECK(chart["first"] == 7);
  CHECK(chart["last"] == 9);
  CHECK(chart["dropped"] == 2);
  CHECK(chart["mean"].get<double>() == Approx(500));
  CHECK(chart["steady"] == true);
  REQUIRE(chart["bands"].size() == 1);
  CHECK(chart["bands"][0]["low"].get<double>() == Approx(450));
  CHECK(chart["bands"][0]["high"].get<double>() == Approx(550));

  // A result file from before the series: the window alone, at its place.
  steady.series.clear();
  steady.series_dropped = 0;
  const detail::html::Json old = detail::html::steady_state_model(phase);
  REQUIRE(old["rounds"].size() == 3);
  CHECK(old["rounds"][0] == detail::html::Json::array({7, 500.0}));
  CHECK(old["first"] == 7);
  CHECK(old["last"] == 9);
  CHECK(old["dropped"] == 0);
}

TEST_CASE("each op kind has the text report's figures: ops, MiB/s, IOPS and latency in us") {
  const std::string text = fixture_text();
  const RawJson doc = RawJson::parse(text);
  const ReportInput input = fixture_input(text);
  const detail::html::Json model =
      detail::html::report_model(std::span<const ReportInput>(&input, 1));
  const detail::html::Json& kinds = model["runs"][0]["steps"][0]["phases"][0]["op_kinds"];
  const RawJson& by_kind = doc["steps"][0]["phases"][0]["ops_by_kind"];
  REQUIRE(kinds.size() == 2);
  REQUIRE(by_kind.size() == 2);
  for (const detail::html::Json& kind : kinds) {
    const std::string name = kind["name"].get<std::string>();
    INFO(name);
    REQUIRE(by_kind.contains(name));
    const RawJson& op = by_kind[name];
    CHECK(kind["ops"] == op["ops"]);
    CHECK(kind["bytes"] == op["bytes"]);
    CHECK(kind["errors"] == op["errors"]);
    CHECK(kind["throughput_mib_s"].get<double>() ==
          Approx(op["throughput_bytes_per_s"].get<double>() / kBytesPerMiB));
    CHECK(kind["ops_per_s"].get<double>() == Approx(op["ops_per_s"].get<double>()));
    const RawJson& latency = op["latency_ns"];
    CHECK(kind["latency_samples"] == op["ops"]);
    for (const auto& [shown, recorded] : {std::pair{"mean", "mean"},
                                          {"p50", "p50"},
                                          {"p99", "p99"},
                                          {"p99_9", "p99_9"},
                                          {"max", "max"}}) {
      INFO(shown);
      CHECK(kind["latency_us"][shown].get<double>() ==
            Approx(latency[recorded].get<double>() / 1000.0));
    }
  }
  // The fsync: 2 ops, no bytes, latency in the tens of ms.
  CHECK(kinds[1]["name"] == "fsync");
  CHECK(kinds[1]["ops"] == 2);
  CHECK(kinds[1]["throughput_mib_s"] == 0.0);
  CHECK(kinds[1]["latency_us"]["max"].get<double>() == Approx(29526.235));
}

TEST_CASE("an op kind without a timed op has no latency, never 0") {
  PhaseResult phase;
  phase.name = "run";
  phase.op_names = {"read", "stat"};
  phase.wall_ns = 2'000'000'000;
  phase.ops.resize(2);
  phase.ops[0].record(4096, 10'000);
  phase.ops[1].ops = 5;  // counted, never timed (latency sampling)
  phase.workers.resize(1);
  phase.workers[0].ops = phase.ops;
  StepResult step;
  step.name = "s";
  step.workload = "disk";
  step.phases = {phase};
  ResultDocument doc;
  doc.run.steps = {step};
  const ReportInput input{.label = "x.json", .document = doc};
  const detail::html::Json model =
      detail::html::report_model(std::span<const ReportInput>(&input, 1));
  const detail::html::Json& kinds = model["runs"][0]["steps"][0]["phases"][0]["op_kinds"];
  REQUIRE(kinds.size() == 2);
  CHECK(kinds[0]["latency_us"]["p50"].get<double>() == Approx(10.0).epsilon(0.05));
  CHECK(kinds[0]["ops_per_s"] == 0.5);
  CHECK(kinds[1]["ops"] == 5);
  CHECK(kinds[1]["ops_per_s"] == 2.5);
  CHECK(kinds[1]["latency_samples"] == 0);
  for (const char* figure : {"mean", "p50", "p99", "p99_9", "max"}) {
    INFO(figure);
    CHECK(kinds[1]["latency_us"][figure].is_null());
  }
}
