#include "plugins/tiotest/register.hpp"

#include <memory>
#include <vector>

#include "plugins/tiotest/tiobench_report.hpp"
#include "plugins/tiotest/tiotest_factory.hpp"
#include "plugins/tiotest/tiotest_tables.hpp"

namespace iobench::plugins::tiotest {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "tiotest",
      .summary = "tiotest: N threads, each with its own file, sequential and random write and read",
      .params = tiotest_param_specs(),
      .factory = make_tiotest_workload,
      .needs_directory_targets = false,  // raw=true takes existing devices or files
      .implied_engine = tiotest_implied_engine,
  });
  registrar.add_workload(WorkloadInfo{
      .name = "tiobench",
      .summary = "tiobench.pl: tiotest swept over thread counts, sizes and block sizes",
      .params = tiobench_param_specs(),
      .factory = make_tiobench_workload,
      .needs_directory_targets = false,  // all-device targets switch to raw mode, as tiobench.pl
  });
  registrar.add_formatter("tiotest", "text", format_tiotest_text);
  registrar.add_formatter("tiotest", "csv", format_tiotest_csv);
  registrar.add_formatter("tiotest", "csv_header", format_tiotest_csv_header);
  registrar.add_formatter("tiobench", "text", format_tiobench_text);
  registrar.add_formatter("tiobench", "csv", format_tiobench_csv);
  registrar.add_formatter("tiobench", "csv_header", format_tiobench_csv_header);
}

}  // namespace iobench::plugins::tiotest
