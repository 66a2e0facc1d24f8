// The public family formatters (<iobench/workloads.hpp>): each checks that the step is one of its
// workload, then calls the formatter the family registers.
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/workloads.hpp>
#include <string_view>

#include "plugins/bonnie/csv_formatter.hpp"
#include "plugins/bonnie/text_formatter.hpp"
#include "plugins/dbench/dbench_formatter.hpp"
#include "plugins/disk/disk_formatter.hpp"
#include "plugins/tiotest/tiobench_report.hpp"
#include "plugins/tiotest/tiotest_tables.hpp"

namespace iobench {
namespace {

void require_workload(const StepResult& step, std::string_view workload, std::string_view what) {
  if (step.workload == workload) return;
  throw ConfigError(
      fmt::format("{}: step '{}' is a '{}' step, not a '{}' step; format it with "
                  "the formatter of its workload (or make_text_reporter)",
                  what, step.name, step.workload, workload));
}

}  // namespace

void write_disk_report(const StepResult& step, std::ostream& out) {
  require_workload(step, "disk", "write_disk_report");
  plugins::disk::format_disk_text(step, out);
}

void write_bonnie_table(const StepResult& step, std::ostream& out) {
  require_workload(step, "bonnie", "write_bonnie_table");
  plugins::bonnie::format_text_step(step, out);
}

void write_bonnie_csv(const StepResult& step, std::ostream& out) {
  require_workload(step, "bonnie", "write_bonnie_csv");
  plugins::bonnie::format_csv_step(step, out);
}

void write_tiotest_tables(const StepResult& step, std::ostream& out) {
  require_workload(step, "tiotest", "write_tiotest_tables");
  plugins::tiotest::format_tiotest_text(step, out);
}

void write_tiotest_csv(const StepResult& step, std::ostream& out) {
  require_workload(step, "tiotest", "write_tiotest_csv");
  plugins::tiotest::format_tiotest_csv(step, out);
}

void write_tiobench_tables(const StepResult& step, std::ostream& out) {
  require_workload(step, "tiobench", "write_tiobench_tables");
  plugins::tiotest::format_tiobench_text(step, out);
}

void write_tiobench_csv(const StepResult& step, std::ostream& out) {
  require_workload(step, "tiobench", "write_tiobench_csv");
  plugins::tiotest::format_tiobench_csv(step, out);
}

void write_dbench_table(const StepResult& step, std::ostream& out) {
  require_workload(step, "dbench", "write_dbench_table");
  plugins::dbench::format_dbench_text(step, out);
}

}  // namespace iobench
