#include <catch2/catch.hpp>
#include <iobench/reporter.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tests/report/sample_run.hpp"

namespace iobench {
namespace {

// Appends "<id>:<event>" to a shared log.
class LoggingReporter final : public Reporter {
 public:
  LoggingReporter(std::string id, std::vector<std::string>& log) : id_(std::move(id)), log_(log) {}
  void on_run_start(const Environment& env) override {
    log_.push_back(id_ + ":start " + env.hostname);
  }
  void on_step_end(const StepResult& step) override { log_.push_back(id_ + ":step " + step.name); }
  void on_run_end(const RunResult& run) override {
    log_.push_back(id_ + ":end " + std::to_string(run.steps.size()));
  }

 private:
  std::string id_;
  std::vector<std::string>& log_;
};

TEST_CASE("reporter set calls every reporter in order", "[report]") {
  const RunResult run = test::make_sample_run();
  std::vector<std::string> log;
  ReporterSet set;
  set.add(std::make_unique<LoggingReporter>("a", log));
  set.add(std::make_unique<LoggingReporter>("b", log));
  set.on_run_start(run.environment);
  for (const StepResult& step : run.steps) set.on_step_end(step);
  set.on_run_end(run);
  const std::vector<std::string> expected = {
      "a:start bench01", "b:start bench01", "a:step seqwrite", "b:step seqwrite", "a:step meta",
      "b:step meta",     "a:step broken",   "b:step broken",   "a:end 3",         "b:end 3"};
  CHECK(log == expected);
}

TEST_CASE("report_run gives a finished run to a reporter as the run did", "[report]") {
  const RunResult run = test::make_sample_run();
  std::vector<std::string> log;
  LoggingReporter reporter("r", log);
  report_run(run, reporter);
  const std::vector<std::string> expected = {"r:start bench01", "r:step seqwrite", "r:step meta",
                                             "r:step broken", "r:end 3"};
  CHECK(log == expected);
}

}  // namespace
}  // namespace iobench
