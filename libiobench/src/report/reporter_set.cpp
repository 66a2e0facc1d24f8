#include <iobench/reporter.hpp>

namespace iobench {

// Calls go to every reporter in the order they were added. An exception from one reporter
// propagates at once (the later ones do not see that call): reporters write to streams the
// caller owns, and a failure there is the caller's to handle.

void ReporterSet::on_run_start(const Environment& env) {
  for (const auto& reporter : reporters_) reporter->on_run_start(env);
}

void ReporterSet::on_step_end(const StepResult& step) {
  for (const auto& reporter : reporters_) reporter->on_step_end(step);
}

void ReporterSet::on_run_end(const RunResult& run) {
  for (const auto& reporter : reporters_) reporter->on_run_end(run);
}

}  // namespace iobench
