#include <catch2/catch.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <ostream>
#include <sstream>
#include <string>

#include "tests/report/golden.hpp"
#include "tests/report/sample_run.hpp"

namespace iobench {
namespace {

std::string render_text(const RunResult& run, const Registry& registry) {
  std::ostringstream out;
  auto reporter = make_text_reporter(out, registry);
  reporter->on_run_start(run.environment);
  for (const StepResult& step : run.steps) reporter->on_step_end(step);
  reporter->on_run_end(run);
  return out.str();
}

TEST_CASE("generic text output matches the golden file", "[report]") {
  const Registry registry;
  test::check_golden("sample_run.txt", render_text(test::make_sample_run(), registry));
}

TEST_CASE("text output uses a registered family formatter", "[report]") {
  Registry registry;
  registry.add_formatter("disk", "text", [](const StepResult& step, std::ostream& out) {
    out << "disk formatter: " << step.name << " " << step.phases.size() << " phases\n";
  });
  // A formatter for another format must not be used for text.
  registry.add_formatter("custom-meta", "csv", [](const StepResult&, std::ostream& out) {
    out << "csv formatter must not appear\n";
  });
  test::check_golden("sample_run_formatter.txt", render_text(test::make_sample_run(), registry));
}

TEST_CASE("text output shows failures and warnings plainly", "[report]") {
  const Registry registry;
  const std::string text = render_text(test::make_sample_run(), registry);
  CHECK(text.find("WARNING   file smaller than 2x RAM") != std::string::npos);
  CHECK(text.find("== step meta: workload custom-meta, INTERRUPTED: stopped by SIGINT") !=
        std::string::npos);
  CHECK(text.find("== step broken: workload disk, FAILED: pwrite /mnt/a/iobench.1.2/file0: No "
                  "space left on device") != std::string::npos);
  CHECK(text.find("ERRORS    create: 2 failed ops") != std::string::npos);
  CHECK(text.find("slow ops  sync: 2 over 2 s, 1 over 10 s") != std::string::npos);
  CHECK(text.find("run INTERRUPTED: the results above are partial") != std::string::npos);
}

TEST_CASE("text output of an ok run ends with the last step", "[report]") {
  const Registry registry;
  RunResult run = test::make_sample_run();
  run.steps.resize(1);
  run.status = Status::kOk;
  const std::string text = render_text(run, registry);
  CHECK(text.find("\nrun ") == std::string::npos);
  CHECK(text.find("INTERRUPTED") == std::string::npos);
  CHECK(text.find("FAILED") == std::string::npos);
}

}  // namespace
}  // namespace iobench
