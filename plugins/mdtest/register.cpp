#include "plugins/mdtest/register.hpp"

#include <filesystem>
#include <iobench/workload.hpp>
#include <utility>

#include "plugins/mdtest/config.hpp"
#include "plugins/mdtest/mdtest_workload.hpp"
#include "plugins/mdtest/summary.hpp"

namespace iobench::plugins::mdtest {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "mdtest",
      .summary = "mdtest 4 (hpc/ior): directory and file create/stat/read/rename/remove and tree "
                 "create/remove rates over a -b/-z tree, ranks as workers; each phase timed, as "
                 "mdtest does, from its first op's start to its last op's end over all ranks",
      .params = param_specs(),
      .factory = [](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        MdtestConfig config = make_config(setup.params, setup.targets.size());
        // paths=full trusts the user's path during each phase (as mdtest does): refused, before
        // anything is written, unless only root or the user can change its directories.
        if (config.paths == PathMode::kFull) {
          for (const std::filesystem::path& target : setup.targets) {
            check_full_paths_trusted(target, "target");
          }
          if (!config.tree_dir.empty()) check_full_paths_trusted(config.tree_dir, "tree_dir");
          // The kernel refuses a path of PATH_MAX bytes or more: a tree too deep for the target
          // is refused here rather than part-way through its creation.
          check_full_path_lengths(config, setup.targets, mpirun_processes());
        }
        return std::make_unique<MdtestWorkload>(std::move(config));
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
