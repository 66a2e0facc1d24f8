#include "plugins/filebench/register.hpp"

#include "plugins/filebench/filebench_formatter.hpp"
#include "plugins/filebench/filebench_workload.hpp"

namespace iobench::plugins::filebench {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "filebench",
      .summary = "filebench: runs a Workload Model Language (.f) file's filesets, processes, "
                 "threads and flowops, seeded",
      .params = filebench_param_specs(),
      .factory = make_filebench_workload,
      .needs_directory_targets = true,
      .uses_engine = false,
      .fixed_engine_reason =
          "its flowops make the system calls filebench's flowop library makes "
          "(open/read/write/pread/pwrite/fsync/unlink/stat), so its figures stay comparable with "
          "filebench's"});
  registrar.add_formatter("filebench", "text", format_filebench_text);
}

}  // namespace iobench::plugins::filebench
