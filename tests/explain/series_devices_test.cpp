// Issue 29 per interval: the time series carries the devices of the phase's storage chains,
// read from /proc/diskstats at each interval boundary by the runner's thread. The recorder adds
// them up as it merges points; a real run's intervals add up to the phase's device bytes; the
// JSON keeps them and reads them back. The generic CSV's per-phase device columns.
#include <catch2/catch.hpp>
#include <chrono>
#include <iobench/explain.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/device_series.hpp"
#include "core/series_recorder.hpp"
#include "loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace {

using namespace iobench;
using namespace std::chrono_literals;

SeriesDevicePoint device(std::uint64_t write_bytes, std::uint64_t io_time_ms) {
  return {.name = "sdz",
          .sampled_ns = 100'000'000,
          .writes = write_bytes / 4096,
          .write_bytes = write_bytes,
          .write_time_ms = write_bytes / 4096 * 2,
          .io_time_ms = io_time_ms,
          .weighted_io_time_ms = io_time_ms * 3};
}

IntervalStats interval(std::uint64_t index) {
  IntervalStats s;
  s.index = index;
  s.bytes = 4096;
  s.ops = 1;
  s.latency.record(1000);
  return s;
}

std::uint64_t series_write_bytes(const TimeSeries& series, const std::string& name) {
  std::uint64_t sum = 0;
  for (const SeriesPoint& p : series.points) {
    for (const SeriesDevicePoint& d : p.devices) {
      if (d.name == name) sum += d.write_bytes;
    }
  }
  return sum;
}

}  // namespace

TEST_CASE("a device interval follows iostat and merged points add their device counts",
          "[explain][series]") {
  const SeriesDevicePoint one = device(8192, 50);
  CHECK(one.util_percent() == Approx(50.0));  // 50 ms in 100 ms
  CHECK(one.avg_queue_size() == Approx(1.5));
  CHECK(one.w_await_ms() == Approx(2.0));
  CHECK(one.r_await_ms() == 0);

  explain::DiskCounters before{.name = "sdz", .writes_completed = 10, .sectors_written = 80};
  before.write_time_ms = 0xFFFFFFF0;  // wraps at 2^32 ms
  explain::DiskCounters after = before;
  after.writes_completed = 12;
  after.sectors_written = 96;
  after.write_time_ms = 0x100000004;
  const SeriesDevicePoint d = detail::device_interval(before, after, 1'000'000'000);
  CHECK(d.writes == 2);
  CHECK(d.write_bytes == 16 * 512);
  CHECK(d.write_time_ms == 20);
  after.sectors_written = 8;  // went back: the device was re-created
  CHECK(detail::device_interval(before, after, 1'000'000'000).write_bytes == 0);

  // 8 intervals of 100 ms in a recorder capped at 4 points: pairs merge, devices with them.
  detail::SeriesRecorder recorder(100'000'000, 1, 4);
  recorder.begin_group(0, 1, 0);
  for (std::uint64_t k = 0; k < 8; ++k) {
    recorder.add(0, interval(k));
    recorder.add_devices(false, k, {device(4096 * (k + 1), 10 * (k + 1))});
  }
  recorder.add_devices(false, 9, {device(4096, 1)});  // the last reading, past the last point
  recorder.end_group(0, 800'000'000);
  const TimeSeries series = recorder.build();
  REQUIRE(series.merged_intervals == 2);
  REQUIRE(series.points.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    REQUIRE(series.points[i].devices.size() == 1);
    const SeriesDevicePoint& p = series.points[i].devices[0];
    const std::uint64_t k = 2 * i;
    const std::uint64_t extra = i == 3 ? 4096 : 0;
    CHECK(p.write_bytes == 4096 * (k + 1) + 4096 * (k + 2) + extra);
    CHECK(p.sampled_ns == (i == 3 ? 300'000'000u : 200'000'000u));
    CHECK(p.io_time_ms == 10 * (k + 1) + 10 * (k + 2) + (i == 3 ? 1 : 0));
  }
  CHECK(series_write_bytes(series, "sdz") == 4096 * (36 + 1));
}

TEST_CASE("per-interval device writes of an O_DIRECT run add up to the phase's device writes",
          "[explain][series]") {
  const test::LoopFs loop(64 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  constexpr std::uint64_t kBytes = 8 * test::kMiB;
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  // 16 MiB/s: the 8 MiB take about half a second, several 100 ms intervals.
  const RunResult run = Runner(registry, RunOptions{.skip_space_check = true})
                            .run(std::vector<Step>{Step{.workload = "disk",
                                                        .params = {{"operation", "write"},
                                                                   {"mode", "direct"},
                                                                   {"bs", "4k"},
                                                                   {"size", "8m"},
                                                                   {"rate_bytes", "16m"}},
                                                        .targets = {loop.mount_point()},
                                                        .interval = 100ms}},
                                 reporter);
  REQUIRE(run.steps.size() == 1);
  REQUIRE(run.steps[0].status == Status::kOk);
  const PhaseResult& phase = run.steps[0].phases.at(0);
  REQUIRE(phase.total_bytes() == kBytes);
  REQUIRE(phase.explanation.has_value());
  std::uint64_t phase_device = 0;
  for (const explain::DeviceDelta& d : phase.explanation->devices) {
    if (d.name == loop.name()) phase_device = d.write_bytes;
  }
  INFO(explain::findings_text(*phase.explanation));
  REQUIRE(phase_device >= kBytes);
  const std::uint64_t in_series = series_write_bytes(phase.time_series, loop.name());
  CHECK(in_series >= kBytes);
  CHECK(static_cast<double>(in_series) == Approx(static_cast<double>(phase_device)).epsilon(0.01));
  // Every point names the chain's devices, the loop device first (the file system's).
  REQUIRE_FALSE(phase.time_series.points.empty());
  for (const SeriesPoint& p : phase.time_series.points) {
    REQUIRE_FALSE(p.devices.empty());
    CHECK(p.devices[0].name == loop.name());
    CHECK(p.devices[0].sampled_ns > 0);
    CHECK(p.devices[0].util_percent() <= 100.0);
  }

  // The JSON keeps the counts and iostat's figures, and reads them back as written.
  ResultDocument doc;
  doc.run = run;
  const std::string json = to_json(doc);
  const auto j = nlohmann::json::parse(json);
  const auto& points = j["steps"][0]["phases"][0]["time_series"]["points"];
  std::uint64_t json_sum = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& d = points[i]["devices"][0];
    const SeriesDevicePoint& p = phase.time_series.points[i].devices[0];
    CHECK(d["name"] == loop.name());
    CHECK(d["util_percent"].get<double>() == Approx(p.util_percent()));
    CHECK(d["w_await_ms"].get<double>() == Approx(p.w_await_ms()));
    json_sum += d["write_bytes"].get<std::uint64_t>();
  }
  CHECK(json_sum == in_series);
  const ResultDocument back = parse_result_json(json);
  CHECK(series_write_bytes(back.run.steps[0].phases[0].time_series, loop.name()) == in_series);
  CHECK(to_json(back) == json);
}

namespace {

// The generic CSV of `run`, as header name -> field, one map per row.
std::vector<std::map<std::string, std::string>> csv_rows(const RunResult& run,
                                                         const Registry& registry) {
  std::ostringstream out;
  report_run(run, *make_csv_reporter(out, registry));
  const auto fields = [](const std::string& line) {
    std::vector<std::string> f(1);
    for (const char c : line) {
      if (c == ',') {
        f.emplace_back();
      } else {
        f.back() += c;
      }
    }
    return f;
  };
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = fields(line);
    REQUIRE(f.size() == header.size());
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < f.size(); ++i) row[header[i]] = f[i];
  }
  return rows;
}

const std::vector<std::string> kDeviceColumns = {
    "dev_read_bytes", "dev_write_bytes",    "dev_util_percent",   "dev_r_await_ms",
    "dev_w_await_ms", "read_amplification", "write_amplification"};

}  // namespace

TEST_CASE("the CSV's device columns of a loop fs run are the figures of its JSON",
          "[explain][csv]") {
  const test::LoopFs loop(32 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  const RunResult run =
      Runner(registry, RunOptions{.skip_space_check = true})
          .run(std::vector<Step>{Step{
                   .workload = "disk",
                   .params = {{"operation", "write"}, {"mode", "direct"}, {"size", "4m"}},
                   .targets = {loop.mount_point()}}},
               reporter);
  REQUIRE(run.steps.at(0).status == Status::kOk);
  ResultDocument doc;
  doc.run = run;
  const auto j = nlohmann::json::parse(to_json(doc));
  const auto& phase = j["steps"][0]["phases"][0];
  const auto& derived = phase["explain"]["derived"];
  nlohmann::json loop_delta;
  for (const auto& d : phase["explain"]["devices"]) {
    if (d["name"] == loop.name()) loop_delta = d;
  }
  REQUIRE(loop_delta.is_object());
  REQUIRE(derived["write_amplification"].is_number());

  std::size_t merged = 0;
  for (const auto& row : csv_rows(run, registry)) {
    if (row.at("worker") != "all") {
      for (const std::string& c : kDeviceColumns) CHECK(row.at(c).empty());
      continue;
    }
    ++merged;
    CHECK(row.at("phase") == phase["name"]);
    CHECK(std::stoull(row.at("dev_write_bytes")) == derived["device_write_bytes"]);
    CHECK(std::stoull(row.at("dev_read_bytes")) == derived["device_read_bytes"]);
    CHECK(std::stoull(row.at("dev_write_bytes")) >= 4 * test::kMiB);
    CHECK(std::stod(row.at("dev_util_percent")) ==
          Approx(loop_delta["util_percent"].get<double>()).margin(0.005));
    CHECK(std::stod(row.at("dev_w_await_ms")) ==
          Approx(loop_delta["w_await_ms"].get<double>()).margin(0.0005));
    CHECK(std::stod(row.at("dev_r_await_ms")) ==
          Approx(loop_delta["r_await_ms"].get<double>()).margin(0.0005));
    CHECK(std::stod(row.at("write_amplification")) ==
          Approx(derived["write_amplification"].get<double>()).margin(0.00005));
    CHECK(row.at("read_amplification").empty() == derived["read_amplification"].is_null());
  }
  CHECK(merged == phase["ops_by_kind"].size());
}

TEST_CASE("the CSV's device columns are empty for a phase on tmpfs", "[explain][csv]") {
  const test::ScopedTmpfs tmpfs("8m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  const RunResult run =
      Runner(registry, RunOptions{.skip_space_check = true})
          .run(std::vector<Step>{Step{.workload = "disk",
                                      .params = {{"operation", "write"}, {"size", "1m"}},
                                      .targets = {tmpfs.path()}}},
               reporter);
  REQUIRE(run.steps.at(0).phases.at(0).explanation.has_value());
  const auto rows = csv_rows(run, registry);
  REQUIRE_FALSE(rows.empty());
  for (const auto& row : rows) {
    for (const std::string& c : kDeviceColumns) CHECK(row.at(c).empty());
  }
  // Every point of its series has no device either.
  for (const SeriesPoint& p : run.steps[0].phases[0].time_series.points) CHECK(p.devices.empty());
}
