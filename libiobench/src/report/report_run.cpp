#include <iobench/reporter.hpp>

namespace iobench {

void report_run(const RunResult& run, Reporter& reporter) {
  reporter.on_run_start(run.environment);
  for (const StepResult& step : run.steps) reporter.on_step_end(step);
  reporter.on_run_end(run);
}

}  // namespace iobench
