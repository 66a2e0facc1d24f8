// The HTML report's explanation of a phase (issue 29): the findings with their evidence, the
// devices beside the application on the time series' axis, and --explain's stacked latency split,
// read back from the page's embedded model and checked figure by figure.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/explain.hpp>
#include <iobench/html_report.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/test_support.hpp"

using namespace iobench;
using RawJson = nlohmann::json;

namespace {

constexpr double kExplainMiB = 1024.0 * 1024.0;

// The page's embedded model (the element report.js renders from).
RawJson explain_page_model(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"iobench-data\">";
  const std::size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const std::size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return RawJson::parse(page.substr(start + open.size(), end - start - open.size()));
}

// The fixture's first phase with an explanation, device figures per point and an eBPF split.
ResultDocument explained_fixture() {
  ResultDocument doc = parse_result_json(test::read_file(IOBENCH_TIME_SERIES_FIXTURE));
  PhaseResult& phase = doc.run.steps.at(0).phases.at(0);
  explain::PhaseExplanation e;
  e.findings = {{"device_saturated", "device saturated: vdz util 99 %, queue 4.0"},
                {"writes_reached_device", "the device wrote what the application wrote"}};
  explain::DeviceDelta d;
  d.name = "vdz";
  d.write_bytes = 3 * 1024 * 1024;
  d.util_percent = 99;
  d.avg_queue_size = 4;
  d.w_await_ms = 1.5;
  e.devices = {d};
  phase.explanation = e;
  std::uint64_t k = 0;
  for (SeriesPoint& p : phase.time_series.points) {
    ++k;
    p.devices = {SeriesDevicePoint{.name = "vdz",
                                   .sampled_ns = p.duration_ns,
                                   .writes = k,
                                   .write_bytes = k * 4096,
                                   .write_time_ms = 2 * k,
                                   .io_time_ms = 10,             // of 20 ms: 50 %
                                   .weighted_io_time_ms = 30}};  // queue 1.5
  }
  ExplainCall call;
  call.call = "pwrite64";
  call.all = {.calls = 10,
              .total_ns = 100'000,
              .fs_kernel_ns = 10'000,
              .queue_ns = 20'000,
              .device_ns = 60'000,
              .off_cpu_ns = 10'000};
  call.p99 = {.calls = 1,
              .total_ns = 40'000,
              .fs_kernel_ns = 4'000,
              .queue_ns = 0,
              .device_ns = 36'000,
              .off_cpu_ns = 0};
  phase.explain_bpf = ExplainBpfPhase{.calls = {call}};
  return doc;
}

RawJson report_phase(const ResultDocument& doc) {
  const std::string text = to_json(doc);
  const ReportInput input{.label = "run", .document = parse_result_json(text), .json_text = text};
  std::ostringstream out;
  write_html_report(std::span<const ReportInput>(&input, 1), out);
  return explain_page_model(out.str())["runs"][0]["steps"][0]["phases"][0];
}

}  // namespace

TEST_CASE("the HTML report lists a phase's findings with their evidence and its devices") {
  const RawJson phase = report_phase(explained_fixture());
  const RawJson& e = phase["explain"];
  REQUIRE(e["findings"].size() == 2);
  CHECK(e["findings"][0]["name"] == "device_saturated");
  CHECK(e["findings"][0]["evidence"] == "device saturated: vdz util 99 %, queue 4.0");
  CHECK(e["findings"][1]["name"] == "writes_reached_device");
  REQUIRE(e["devices"].size() == 1);
  CHECK(e["devices"][0]["name"] == "vdz");
  CHECK(e["devices"][0]["write_bytes"] == 3 * 1024 * 1024);
  CHECK(e["devices"][0]["util_percent"].get<double>() == Approx(99.0));
  CHECK(e["devices"][0]["w_await_ms"].get<double>() == Approx(1.5));
}

TEST_CASE("the HTML report charts the devices beside the application on the same time axis") {
  const ResultDocument doc = explained_fixture();
  const RawJson phase = report_phase(doc);
  const RawJson& series = phase["explain"]["device_series"];
  const std::vector<SeriesPoint>& points = doc.run.steps[0].phases[0].time_series.points;
  REQUIRE(series["devices"] == 1);
  CHECK(series["throughput"]["labels"] ==
        RawJson::array({"time (s)", "application MiB/s", "vdz read MiB/s", "vdz write MiB/s"}));
  CHECK(series["util"]["labels"] == RawJson::array({"time (s)", "vdz util %", "vdz queue size"}));
  const RawJson& tput = series["throughput"]["rows"];
  const RawJson& util = series["util"]["rows"];
  const RawJson& app = phase["time_series"]["throughput"]["rows"];
  REQUIRE(tput.size() == points.size());
  REQUIRE(util.size() == points.size());
  for (std::size_t k = 0; k < points.size(); ++k) {
    const double seconds = static_cast<double>(points[k].duration_ns) / 1e9;
    // The same x as the application's chart, and the application's line drawn beside.
    CHECK(tput[k][0].get<double>() == Approx(app[k][0].get<double>()));
    CHECK(tput[k][1].get<double>() == Approx(app[k][1].get<double>()));
    CHECK(tput[k][1].get<double>() ==
          Approx(static_cast<double>(points[k].bytes) / seconds / kExplainMiB));
    CHECK(tput[k][2].get<double>() == 0.0);
    CHECK(tput[k][3].get<double>() ==
          Approx(static_cast<double>((k + 1) * 4096) / seconds / kExplainMiB));
    // 10 ms busy of the point's sampled time, at most 100 % (a short last point).
    CHECK(util[k][1].get<double>() == Approx(std::min(100.0, 10.0 / (seconds * 1000.0) * 100.0)));
    CHECK(util[k][2].get<double>() == Approx(30.0 / (seconds * 1000.0)));
  }
}

TEST_CASE("the HTML report stacks --explain's latency by layer as percentages of each split") {
  const RawJson layers = report_phase(explained_fixture())["explain"]["latency_layers"];
  CHECK(layers["unavailable"].is_null());
  REQUIRE(layers["calls"].size() == 1);
  const RawJson& call = layers["calls"][0];
  CHECK(call["call"] == "pwrite64");
  REQUIRE(call["rows"].size() == 2);  // mean and p99: the p50 split has no calls
  const RawJson& mean = call["rows"][0];
  CHECK(mean["split"] == "mean");
  CHECK(mean["latency_us"].get<double>() == Approx(10.0));
  CHECK(mean["layers"]["fs_kernel"].get<double>() == Approx(10.0));
  CHECK(mean["layers"]["queue"].get<double>() == Approx(20.0));
  CHECK(mean["layers"]["device"].get<double>() == Approx(60.0));
  CHECK(mean["layers"]["off_cpu"].get<double>() == Approx(10.0));
  const RawJson& p99 = call["rows"][1];
  CHECK(p99["split"] == "p99");
  CHECK(p99["latency_us"].get<double>() == Approx(40.0));
  CHECK(p99["layers"]["device"].get<double>() == Approx(90.0));

  ResultDocument refused = explained_fixture();
  refused.run.steps[0].phases[0].explain_bpf =
      ExplainBpfPhase{.unavailable = "no kernel BTF at /sys/kernel/btf/vmlinux"};
  const RawJson none = report_phase(refused)["explain"]["latency_layers"];
  CHECK(none["unavailable"] == "no kernel BTF at /sys/kernel/btf/vmlinux");
  CHECK(none["calls"].empty());
}

TEST_CASE("a phase without an explanation has none in the HTML report") {
  const std::string text = test::read_file(IOBENCH_TIME_SERIES_FIXTURE);
  const ReportInput input{.label = "run", .document = parse_result_json(text), .json_text = text};
  std::ostringstream out;
  write_html_report(std::span<const ReportInput>(&input, 1), out);
  CHECK(explain_page_model(out.str())["runs"][0]["steps"][0]["phases"][0]["explain"].is_null());
}
