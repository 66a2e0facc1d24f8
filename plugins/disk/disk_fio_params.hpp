#pragma once

#include <iobench/params.hpp>
#include <iobench/workload.hpp>
#include <string>
#include <vector>

#include "plugins/disk/disk_config.hpp"

namespace iobench::plugins::disk {

/// The params disk takes from fio under fio's names: numjobs, nrfiles, bssplit, thinktime,
/// thinktime_spin, thinktime_blocks, rwmixtrim (operation=trim|randtrim is in operation's).
[[nodiscard]] std::vector<ParamSpec> fio_param_specs();

/// Reads those params into `config` (after operation, mode and bs were read; before blocks and
/// size, as bssplit sets the block grid). Throws ConfigError naming the param, its value and the
/// fix: a bad bssplit (see BlockSizeSplit::parse), bssplit with bs, a negative, malformed or
/// too long (over 60 s) thinktime, thinktime_spin above thinktime, rwmixtrim without a mixed
/// operation or above 100 - rwmix.
void read_fio_params(const Params& params, DiskConfig& config);

/// The rules between those params and the others, once blocks is known: blocks a multiple of
/// nrfiles; nrfiles or numjobs with shared_file, verify with nrfiles or trims; thinktime with
/// iodepth > 1 or a rate. Throws ConfigError.
void check_fio_params(const Params& params, const DiskConfig& config);

/// The name of file `file` of job `job` in a target's run directory: config.file_name with one
/// job of one file (as before numjobs and nrfiles), else "FILE.JOB.FILE" (fio's
/// jobname.jobnum.filenum).
[[nodiscard]] std::string disk_file_name(const DiskConfig& config, std::uint32_t job,
                                         std::uint32_t file);

/// Records the fio params that differ from their defaults as the step's attributes (numjobs,
/// nrfiles, bssplit, thinktime_us, thinktime_spin_us, thinktime_blocks, rwmixtrim_percent).
void set_fio_attributes(const DiskConfig& config, PrepareContext& ctx);

}  // namespace iobench::plugins::disk
