#include "plugins/dbench/register.hpp"

#include "plugins/dbench/dbench_config.hpp"
#include "plugins/dbench/dbench_formatter.hpp"
#include "plugins/dbench/dbench_workload.hpp"

namespace iobench::plugins::dbench {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "dbench",
      .summary = "dbench 4: N client processes replay an NBench loadfile (client.txt) with "
                 "dbench's fileio semantics",
      .params = dbench_param_specs(),
      .factory = make_dbench_workload,
      .needs_directory_targets = true,
      .uses_engine = false,
      .fixed_engine_reason =
          "it replays the loadfile with the system calls dbench's fileio backend makes "
          "(open/pread/pwrite/rename/unlink...), so its figures stay comparable with dbench's; "
          "compare engines with the disk or tiotest workloads"});
  registrar.add_formatter("dbench", "text", format_dbench_text);
}

}  // namespace iobench::plugins::dbench
