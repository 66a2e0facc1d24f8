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
      .needs_directory_targets = true});
  registrar.add_formatter("dbench", "text", format_dbench_text);
}

}  // namespace iobench::plugins::dbench
