// The JSON keys of asynchronous engines (slat/clat) and open-loop phases (service time, pacing),
// parsed back and compared with the histograms they come from.
#include <catch2/catch.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>

namespace iobench {
namespace {

RunResult run_with_parts() {
  PhaseResult phase;
  phase.name = "read";
  phase.op_names = {"read"};
  phase.wall_ns = 1'000'000;
  phase.latency_parts_kind = {.submission_completion = true, .service = true};
  OpResult read;
  OpLatencyPartsResult parts;
  for (std::uint64_t i = 1; i <= 100; ++i) {
    read.record(4096, 1000 * i);
    parts.submission.record(10 * i);
    parts.completion.record(900 * i);
    parts.service.record(910 * i);
  }
  WorkerResult worker;
  worker.ops = {read};
  worker.latency_parts = {parts};
  worker.pacing = {.paced = true, .late_ops = 3, .max_lag_ns = 2'500'000, .backlog_ops = 7};
  phase.workers = {worker};
  phase.ops = {read};
  phase.latency_parts = {parts};
  phase.pacing = worker.pacing;
  StepResult step;
  step.name = "randread";
  step.workload = "disk";
  step.engine = "io_uring:fixedbufs";
  step.phases = {phase};
  RunResult run;
  run.steps = {step};
  return run;
}

TEST_CASE("json carries slat, clat, service time and pacing where recorded", "[report]") {
  const RunResult run = run_with_parts();
  const auto j = nlohmann::json::parse(to_json(run, -1));
  const auto& step = j["steps"][0];
  CHECK(step["engine"] == "io_uring:fixedbufs");
  for (const auto* where : {&step["phases"][0], &step["phases"][0]["workers"][0]}) {
    const auto& read = (*where)["ops_by_kind"]["read"];
    const OpLatencyPartsResult& parts = run.steps[0].phases[0].latency_parts[0];
    CHECK(read["slat_ns"]["p99"] == parts.submission.percentile(99));
    CHECK(read["slat_ns"]["max"] == 1000);
    CHECK(read["clat_ns"]["p50"] == parts.completion.percentile(50));
    CHECK(read["clat_ns"]["min"] == 900);
    CHECK(read["service_ns"]["max"] == 91'000);
    CHECK(read["latency_ns"]["max"] == 100'000);
    const auto& pacing = (*where)["pacing"];
    CHECK(pacing["late_ops"] == 3);
    CHECK(pacing["max_lag_ns"] == 2'500'000);
    CHECK(pacing["backlog_ops"] == 7);
    CHECK(pacing["late_threshold_ns"] == PacingStats::kLateThresholdNs);
  }
}

TEST_CASE("json leaves latency parts and pacing out where not recorded", "[report]") {
  RunResult run = run_with_parts();
  PhaseResult& phase = run.steps[0].phases[0];
  phase.latency_parts_kind = {};
  phase.latency_parts.clear();
  phase.workers[0].latency_parts.clear();
  phase.pacing = {};
  phase.workers[0].pacing = {};
  const auto j = nlohmann::json::parse(to_json(run, -1));
  const auto& read = j["steps"][0]["phases"][0]["ops_by_kind"]["read"];
  CHECK_FALSE(read.contains("slat_ns"));
  CHECK_FALSE(read.contains("clat_ns"));
  CHECK_FALSE(read.contains("service_ns"));
  CHECK_FALSE(j["steps"][0]["phases"][0].contains("pacing"));
}

}  // namespace
}  // namespace iobench

namespace iobench {
namespace {

TEST_CASE("latency parts and pacing read back exactly", "[report][json]") {
  const RunResult run = run_with_parts();
  const std::string text = to_json(run, 2);
  const ResultDocument back = parse_result_json(text);
  CHECK(to_json(back.run, 2) == text);
  const PhaseResult& phase = back.run.steps.at(0).phases.at(0);
  CHECK(phase.latency_parts_kind.submission_completion);
  CHECK(phase.latency_parts_kind.service);
  REQUIRE(phase.latency_parts.size() == 1);
  CHECK(phase.latency_parts[0].completion.count() == 100);
  CHECK(phase.latency_parts[0].completion.percentile(99) ==
        run.steps[0].phases[0].latency_parts[0].completion.percentile(99));
  CHECK(phase.pacing.late_ops == 3);
  CHECK(phase.workers.at(0).pacing.backlog_ops == 7);
}

}  // namespace
}  // namespace iobench
