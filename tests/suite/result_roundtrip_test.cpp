// Real runs of every family through the JSON writer and reader, and repeating a run from its
// document (repeat_plan): the same steps, params and seeds.
#include <catch2/catch.hpp>
#include <fstream>
#include <iobench/result_json.hpp>
#include <iobench/suite.hpp>

#include "tests/support/test_support.hpp"

using iobench::test::TempDir;

namespace {

// Every family at tiny sizes (bonnie without its seeks test, which sleeps 3 s first, as
// bonnie++), a sweep and repetitions; no seed given (random, reported). `with_slow`: also
// tiobench and dbench (a 1 s minimum).
std::string every_family_suite(bool with_slow = true) {
  const std::string slow = with_slow ? R"(,
    {"workload": "tiobench", "params": {"threads": "1,2", "sizes": "1m", "random_ops": 8}},
    {"workload": "dbench", "params": {"time_limit": "1s", "warmup": "0s", "loadfile": ")" +
                                           iobench::test::tiny_loadfile_path() + R"("}})"
                                     : std::string();
  return R"({"name": "every family", "steps": [
    {"name": "w", "workload": "disk", "params": {"size": "64k", "fsync": false},
     "sweep": {"param": "bs", "values": ["4k", "16k"]}, "repeat": 2},
    {"name": "r", "workload": "disk",
     "params": {"operation": "read", "size": "64k", "bs": "4k", "seek": "random"}},
    {"workload": "bonnie", "params": {"size": "1m", "chunk_size": "4k", "seekers": "0",
     "per_char": "0", "files": "1", "ram": "0"}},
    {"workload": "tiotest", "params": {"threads": 2, "size": "64k", "random_ops": 8}})" +
         slow + "]}";
}

iobench::SuiteRunResult run(const iobench::SuitePlan& plan) {
  iobench::test::CapturingReporter reporter;
  return iobench::run_suite(plan, iobench::test::shared_full_registry(), {}, reporter);
}

}  // namespace

TEST_CASE("real runs of every family write read and write byte for byte", "[suite][json]") {
  TempDir dir("roundtrip");
  iobench::SuiteOverrides overrides;
  overrides.default_target = dir.path();
  const iobench::SuitePlan plan =
      iobench::plan_suite(iobench::parse_suite(every_family_suite(), "every.json"),
                          iobench::test::shared_full_registry(), overrides, {});
  const iobench::SuiteRunResult result = run(plan);
  REQUIRE(result.complete);
  iobench::Invocation invocation;
  invocation.argv = {"iobench", "run", "every.json"};
  invocation.suite_source = plan.suite.source;
  invocation.suite_text = plan.suite.text;
  const std::string first = iobench::suite_to_json(plan, result, 2, &invocation);
  const iobench::ResultDocument document = iobench::parse_result_json(first);
  CHECK(iobench::to_json(document) == first);
  CHECK(iobench::to_json(document, -1) == iobench::suite_to_json(plan, result, -1, &invocation));
  // The data is the run's: results, suite summary and invocation.
  REQUIRE(document.run.steps.size() == result.run.steps.size());
  for (std::size_t i = 0; i < result.run.steps.size(); ++i) {
    const iobench::StepResult& a = result.run.steps[i];
    const iobench::StepResult& b = document.run.steps[i];
    INFO(a.name);
    CHECK(b.status == iobench::Status::kOk);
    CHECK(b.seed == a.seed);
    CHECK(b.params == a.params);
    CHECK(b.given_params == a.given_params);
    REQUIRE(b.phases.size() == a.phases.size());
    for (std::size_t p = 0; p < a.phases.size(); ++p) {
      CHECK(b.phases[p].total_bytes() == a.phases[p].total_bytes());
      CHECK(b.phases[p].all_ops().latency.percentile(95) ==
            a.phases[p].all_ops().latency.percentile(95));
      REQUIRE(b.phases[p].workers.size() == a.phases[p].workers.size());
      for (std::size_t w = 0; w < a.phases[p].workers.size(); ++w) {
        CHECK(b.phases[p].workers[w].seed == a.phases[p].workers[w].seed);
      }
    }
  }
  REQUIRE(document.suite.has_value());
  CHECK(document.suite->summary.size() == plan.suite.steps.size());
  CHECK(document.placements.size() == plan.runs.size());
  CHECK(document.placements[1].sweep_point == std::optional<std::string>("4k"));
  CHECK(document.placements[1].repetition == 2);
  REQUIRE(document.invocation.has_value());
  CHECK(document.invocation->suite_text == every_family_suite());
  CHECK(dir.entries().empty());
}

TEST_CASE("a run repeated from its document has the same steps params and seeds", "[suite][json]") {
  TempDir dir("repeat-a");
  TempDir other("repeat-b");
  iobench::SuiteOverrides overrides;
  overrides.default_target = dir.path();
  overrides.params = {{"disk.size", "32k"}};
  const iobench::SuitePlan plan =
      iobench::plan_suite(iobench::parse_suite(every_family_suite(false), "every.json"),
                          iobench::test::shared_full_registry(), overrides, {});
  const iobench::SuiteRunResult first = run(plan);
  REQUIRE(first.complete);
  const iobench::Invocation invocation{.argv = {"iobench"}};
  const iobench::ResultDocument document =
      iobench::parse_result_json(iobench::suite_to_json(plan, first, 2, &invocation));

  // Targets from the document, or replaced.
  const iobench::SuitePlan again = iobench::repeat_plan(document);
  const iobench::SuitePlan moved = iobench::repeat_plan(document, {.targets = {other.path()}});
  REQUIRE(again.runs.size() == plan.runs.size());
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const iobench::PlannedRun& a = plan.runs[i];
    const iobench::PlannedRun& b = again.runs[i];
    INFO(a.step.name);
    CHECK(b.step.name == a.step.name);
    CHECK(b.step.workload == a.step.workload);
    CHECK(b.step.targets == a.step.targets);
    CHECK(moved.runs[i].step.targets == std::vector<std::filesystem::path>{other.path()});
    CHECK(b.step.engine == first.run.steps[i].engine);  // the engine it resolved
    CHECK_FALSE(b.step.engine.empty());
    CHECK(b.step.time_limit == a.step.time_limit);
    CHECK(b.step.seed == first.run.steps[i].seed);  // the seed the run drew
    CHECK(b.suite_step == a.suite_step);
    CHECK(b.point == a.point);
    CHECK(b.repetition == a.repetition);
    for (const auto& [key, value] : a.step.params) CHECK(b.step.params.at(key) == value);
  }
  CHECK(again.suite.steps.size() == plan.suite.steps.size());
  CHECK(again.suite.steps[0].sweep->values == std::vector<std::string>{"4k", "16k"});

  // Run again elsewhere: the same seeds for every step and worker, the same params.
  const iobench::SuiteRunResult second = run(moved);
  REQUIRE(second.complete);
  REQUIRE(second.run.steps.size() == first.run.steps.size());
  for (std::size_t i = 0; i < first.run.steps.size(); ++i) {
    const iobench::StepResult& a = first.run.steps[i];
    const iobench::StepResult& b = second.run.steps[i];
    INFO(a.name);
    CHECK(b.seed == a.seed);
    CHECK(b.params == a.params);
    CHECK(b.targets == std::vector<std::string>{other.path().string()});
    REQUIRE(b.phases.size() == a.phases.size());
    for (std::size_t p = 0; p < a.phases.size(); ++p) {
      for (std::size_t w = 0; w < a.phases[p].workers.size(); ++w) {
        CHECK(b.phases[p].workers[w].seed == a.phases[p].workers[w].seed);
      }
    }
  }
  CHECK(second.summary.size() == first.summary.size());
  CHECK(dir.entries().empty());
  CHECK(other.entries().empty());
}

TEST_CASE("documents that cannot be repeated are refused with the reason", "[suite][json]") {
  const auto error_of = [](const iobench::ResultDocument& document) {
    try {
      (void)iobench::repeat_plan(document);
    } catch (const iobench::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  iobench::ResultDocument old;
  old.schema = "iobench-result/1";
  old.run.environment.iobench_version = "0.1.0";
  CHECK_THAT(error_of(old), Catch::Contains("did not record how it was run") &&
                                Catch::Contains("cannot be repeated"));
  iobench::ResultDocument newer = old;
  newer.invocation = iobench::Invocation{};
  newer.run.environment.iobench_version = "99.0.0";
  CHECK_THAT(error_of(newer), Catch::Contains("written by iobench 99.0.0, newer than this"));
  newer.run.environment.iobench_version = "junk";
  CHECK_THAT(error_of(newer), Catch::Contains("unknown to this iobench"));
}
