#include "plugins/io500/register.hpp"

#include <filesystem>
#include <iobench/workload.hpp>
#include <utility>

#include "plugins/common/path_mode.hpp"
#include "plugins/io500/io500_config.hpp"
#include "plugins/io500/io500_report.hpp"
#include "plugins/io500/io500_workload.hpp"

namespace iobench::plugins::io500 {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "io500",
      .summary = "the IO500 list's twelve phases (ior easy/hard, mdtest easy/hard, find) in its "
                 "order, with IO500's [RESULT] lines, score and validity rules",
      .params = io500_param_specs(),
      .factory = [](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        Io500Config config = make_io500_config(setup.params, setup.targets.size());
        // paths=full trusts the user's path during each phase (as IO500's mdtest and pfind do):
        // refused, before anything is written, unless only root or the user can change its
        // directories.
        if (config.paths == PathMode::kFull) {
          for (const std::filesystem::path& target : setup.targets) {
            check_full_paths_trusted(target, "target");
            // The kernel refuses a path of PATH_MAX bytes or more: refused here rather than
            // part-way through mdtest-easy-write.
            check_full_path_length(config, target, mpirun_processes());
          }
        }
        return std::make_unique<Io500Workload>(std::move(config));
      },
      .needs_directory_targets = true,
      .uses_engine = false,
      .fixed_engine_reason =
          "it makes the system calls IOR's and mdtest's POSIX backends make (pwrite/pread, "
          "open/write/read/close, stat, unlink), so its figures stay comparable with IO500's",
      // Under mpirun every process's ranks work in rank 0's data directory.
      .shared_targets_param =
          [](const Params&) { return std::string("io500's one data directory"); },
      // Its write phases stop at its stonewall param, the later ones do what they left.
      .times_own_phases = true,
  });
  registrar.add_formatter("io500", "text", format_io500_text);
}

}  // namespace iobench::plugins::io500
