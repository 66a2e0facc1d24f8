#include "plugins/disk/register.hpp"

#include "plugins/disk/disk_config.hpp"
#include "plugins/disk/disk_formatter.hpp"
#include "plugins/disk/disk_workload.hpp"
#include "plugins/disk/pts_formatter.hpp"
#include "plugins/disk/pts_workload.hpp"

namespace iobench::plugins::disk {

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "disk",
      .summary = "one worker per target (numjobs for more): sequential or random reads, "
                 "writes or trims of a file each (nrfiles for more; the seeds' multi-disk "
                 "large-file test)",
      .params = disk_param_specs(),
      .factory = [](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        DiskConfig config = make_disk_config(setup.params, setup.targets);
        check_engine_use(setup.engine, config.mode == IoMode::kDirect, config.iodepth,
                         "mode=direct");
        check_engine_checks_data(setup.engine, config.verify, "verify=true");
        check_disk_engine(config, setup.engine, setup.params);
        check_disk_limits(config, setup.engine, setup.time_limit, setup.ops_limit);
        return std::make_unique<DiskWorkload>(std::move(config), setup.targets.size(),
                                              setup.engine);
      },
      .needs_directory_targets = false,
      .implied_engine = disk_implied_engine,
      .shared_targets_param =
          [](const Params& params) {
            const std::string& shared = params.get_string("shared_file");
            return shared == "off" ? std::string() : "shared_file=" + shared;
          }});
  registrar.add_formatter("disk", "text", format_disk_text);
  registrar.add_workload(WorkloadInfo{
      .name = "pts",
      .summary = "SNIA PTS 2.0 IOPS, throughput, latency and WSAT tests on a block device (or, not "
                 "PTS-valid, a file): purge, preconditioning, rounds of the R/W mix x block size "
                 "matrix until steady state",
      .params = pts_param_specs(),
      .factory = [](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        PtsConfig config = make_pts_config(setup.params, setup.targets);
        check_engine_use(setup.engine, config.base.mode == IoMode::kDirect, config.base.iodepth,
                         "mode=direct");
        return std::make_unique<PtsWorkload>(std::move(config), setup.engine);
      },
      .needs_directory_targets = false,
      // Each cell runs round_time: a run-wide --time or --ops would cut the rounds instead.
      .times_own_phases = true});
  registrar.add_formatter("pts", "text", format_pts_text);
}

}  // namespace iobench::plugins::disk
