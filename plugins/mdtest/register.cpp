#include "plugins/mdtest/register.hpp"

#include <iobench/workload.hpp>

#include "plugins/mdtest/config.hpp"
#include "plugins/mdtest/mdtest_workload.hpp"
#include "plugins/mdtest/summary.hpp"

namespace iobench::plugins::mdtest {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "mdtest",
      .summary = "mdtest 4 (hpc/ior): directory and file create/stat/read/rename/remove and tree "
                 "create/remove rates over a -b/-z tree, ranks as workers",
      .params = param_specs(),
      .factory = [](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        return std::make_unique<MdtestWorkload>(make_config(setup.params, setup.targets.size()));
      },
      .needs_directory_targets = true,
      .uses_engine = false,
      .fixed_engine_reason =
          "it makes the system calls mdtest's POSIX backend makes (mkdir, stat, rename, rmdir, "
          "open/write/read/close, unlink), one per item, so its rates stay comparable with "
          "mdtest's; compare engines with the disk or tiotest workloads",
      // Under mpirun every process's ranks work in rank 0's test directory, as mdtest's ranks.
      .shared_targets_param =
          [](const Params&) { return std::string("mdtest's one test directory"); },
  });
  registrar.add_formatter("mdtest", "text", format_mdtest_text);
}

}  // namespace iobench::plugins::mdtest
