#include <catch2/catch.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <iobench/suite.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/test_support.hpp"

using iobench::test::TempDir;

namespace {

iobench::SuitePlan seeded_plan(const std::string& text, const std::filesystem::path& dir) {
  iobench::SuiteOverrides overrides;
  overrides.default_target = dir;
  overrides.seed = 42;
  return iobench::plan_suite(iobench::parse_suite(text, "r.json"),
                             iobench::test::shared_full_registry(), overrides, {});
}

}  // namespace

TEST_CASE("a sweep of a tiny step gives one result per point and a sweep table", "[suite]") {
  TempDir dir("sweep");
  const auto p = seeded_plan(R"({"steps": [{"name": "w", "workload": "disk",
      "params": {"size": "64k", "fsync": false},
      "sweep": {"param": "bs", "values": ["4k", "16k", "64k"]}}]})",
                             dir.path());
  iobench::test::CapturingReporter reporter;
  const auto result = iobench::run_suite(p, iobench::test::shared_full_registry(), {}, reporter);
  CHECK(result.complete);
  CHECK(result.run.status == iobench::Status::kOk);
  REQUIRE(result.run.steps.size() == 3);
  CHECK(reporter.steps.size() == 3);
  CHECK(reporter.ended);
  const std::vector<std::uint64_t> ops{16, 4, 1};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& phase = result.run.steps[i].phases.at(0);
    CHECK(phase.total_bytes() == 65536);
    CHECK(phase.total_ops() == ops[i]);
  }
  REQUIRE(result.summary.size() == 1);
  const auto& rows = result.summary[0].sweep_rows;
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].point == "4k");
  CHECK(rows[2].point == "64k");
  CHECK(std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.peak; }) == 1);
  for (const auto& row : rows) {
    CHECK(row.samples == 1);
    CHECK(row.throughput_bytes_per_s > 0);
    CHECK(row.fairness == Approx(1.0));
  }
  const auto doc = nlohmann::json::parse(iobench::suite_to_json(p, result));
  CHECK(doc.at("schema") == std::string(iobench::kResultSchema));
  CHECK(doc.at("suite").at("complete") == true);
  CHECK(doc.at("steps").size() == 3);
  CHECK(doc.at("steps").at(1).at("sweep_point") == "16k");
  CHECK(doc.at("suite").at("steps").at(0).at("sweep_table").size() == 3);
  std::ostringstream text;
  iobench::write_suite_summary_text(result, text);
  CHECK_THAT(text.str(),
             Catch::Contains("w: sweep over bs (MiB = 2^20 bytes") && Catch::Contains(" *\n"));
  // The table parses back into the rows' numbers in its stated unit (MiB/s = 2^20 bytes/s).
  std::istringstream lines(text.str());
  std::size_t parsed = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string point;
    double mib_s = 0, ops_s = 0, per_worker = 0;
    if (!(words >> point >> mib_s >> ops_s >> per_worker)) continue;
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.point == point; });
    if (row == rows.end()) continue;
    CHECK(mib_s == Approx(row->throughput_bytes_per_s / 1048576.0).margin(0.005));
    CHECK(per_worker == Approx(row->per_worker_bytes_per_s / 1048576.0).margin(0.005));
    ++parsed;
  }
  CHECK(parsed == rows.size());
  CHECK(dir.entries().empty());
}

TEST_CASE("repetitions keep every value and report statistics", "[suite]") {
  TempDir dir("repeat");
  const auto p = seeded_plan(R"({"steps": [{"name": "r", "workload": "disk", "repeat": 3,
      "params": {"size": "32k", "bs": "4k", "fsync": false}}]})",
                             dir.path());
  iobench::test::CapturingReporter reporter;
  const auto result = iobench::run_suite(p, iobench::test::shared_full_registry(), {}, reporter);
  REQUIRE(result.run.steps.size() == 3);
  REQUIRE(result.summary.at(0).points.size() == 1);
  const auto& point = result.summary[0].points[0];
  CHECK(point.result_indices == std::vector<std::size_t>{0, 1, 2});
  REQUIRE(point.repetitions.size() == 1);
  const auto& metrics = point.repetitions[0].metrics;
  REQUIRE(metrics.size() == 4);
  CHECK(metrics[0].values.size() == 3);
  CHECK(metrics[0].stats.count == 3);
  CHECK(metrics[0].stats.min <= metrics[0].stats.mean);
  CHECK(metrics[0].stats.ci95_low <= metrics[0].stats.mean);
  const auto doc = nlohmann::json::parse(iobench::suite_to_json(p, result));
  const auto& rep = doc.at("suite").at("steps").at(0).at("points").at(0).at("repetitions").at(0);
  CHECK(rep.at("phase") == "write");
  CHECK(rep.at("metrics").at("throughput_bytes_per_s").at("values").size() == 3);
  CHECK(doc.at("steps").at(2).at("repetition") == 3);
  std::ostringstream text;
  iobench::write_suite_summary_text(result, text);
  CHECK_THAT(text.str(), Catch::Contains("r: 3 repetitions") && Catch::Contains("95 % CI"));
}

TEST_CASE("interrupting a suite mid-way leaves valid JSON marked incomplete and no files",
          "[suite]") {
  TempDir dir("interrupt");
  { std::ofstream(dir.path() / "precious") << "keep"; }
  // Step 2 reads from the page cache until stopped; the progress callback stops it.
  const auto p = seeded_plan(R"({"steps": [
      {"name": "first", "workload": "disk", "params": {"size": "32k", "bs": "4k", "fsync": false}},
      {"name": "endless", "workload": "disk", "params": {"operation": "read", "size": "1m",
       "bs": "4k", "seek": "random", "iterations": 100000000}},
      {"name": "never", "workload": "disk", "params": {"size": "32k", "bs": "4k"}}]})",
                             dir.path());
  iobench::SuiteRunOptions options;
  options.run.progress_interval = std::chrono::milliseconds(1);
  std::size_t stopped_at = 99;
  options.on_progress = [&stopped_at](const iobench::SuiteProgress& progress) {
    if (progress.phase.phase_name == "read" && !iobench::stop_requested()) {
      stopped_at = progress.phase.step_index;
      iobench::request_stop();
    }
  };
  iobench::test::CapturingReporter reporter;
  const auto result =
      iobench::run_suite(p, iobench::test::shared_full_registry(), options, reporter);
  iobench::clear_stop_request();
  CHECK(stopped_at == 1);
  CHECK_FALSE(result.complete);
  CHECK(result.run.status == iobench::Status::kInterrupted);
  REQUIRE(result.run.steps.size() == 2);
  CHECK(result.run.steps[0].status == iobench::Status::kOk);
  CHECK(result.run.steps[1].status == iobench::Status::kInterrupted);
  CHECK(reporter.ended);
  const auto doc = nlohmann::json::parse(iobench::suite_to_json(p, result));
  CHECK(doc.at("status") == "interrupted");
  CHECK(doc.at("suite").at("complete") == false);
  CHECK(doc.at("suite").at("planned_runs") == 3);
  CHECK(doc.at("suite").at("completed_runs") == 2);
  CHECK(dir.entries() == std::vector<std::string>{"precious"});
}

TEST_CASE("the ETA counts what a time-limited run still has to go", "[suite]") {
  TempDir dir("eta");
  // Run 2 reads from the page cache until its 400 ms limit stops it.
  const auto p = seeded_plan(R"({"steps": [
      {"name": "first", "workload": "disk", "params": {"size": "64k", "bs": "4k"}},
      {"name": "limited", "workload": "disk", "time": "400ms", "params": {"operation": "read",
       "size": "1m", "bs": "4k", "seek": "random", "iterations": 100000000}}]})",
                             dir.path());
  iobench::SuiteRunOptions options;
  options.run.progress_interval = std::chrono::milliseconds(20);
  std::vector<iobench::SuiteProgress> seen;
  options.on_progress = [&seen](const iobench::SuiteProgress& snapshot) {
    seen.push_back(snapshot);
  };
  iobench::test::CapturingReporter reporter;
  const auto result =
      iobench::run_suite(p, iobench::test::shared_full_registry(), options, reporter);
  REQUIRE(result.complete);
  std::size_t checked = 0;
  for (const auto& progress : seen) {
    if (progress.phase.step_index != 1 || progress.phase.phase_name != "read") continue;
    CHECK(progress.phase.time_limit_ns == 400'000'000);
    REQUIRE(progress.eta_ns.has_value());
    // Never less than the limit minus the phase's elapsed time, whatever the first run took.
    const std::uint64_t left =
        progress.phase.elapsed_ns < 400'000'000 ? 400'000'000 - progress.phase.elapsed_ns : 0;
    CHECK(*progress.eta_ns >= left);
    ++checked;
  }
  CHECK(checked > 0);
  CHECK(dir.entries().empty());
}
