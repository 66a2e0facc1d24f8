#pragma once

#include <iobench/params.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <vector>

#include "plugins/tiotest/tiobench_sweep.hpp"
#include "plugins/tiotest/tiotest_config.hpp"

namespace iobench::plugins::tiotest {

/// Parameters of the "tiotest" workload, with tiotest's meanings and defaults (option in
/// brackets): threads [-t] 4, size [-f] 10m per thread, block_size [-b] 4096, random_ops [-r]
/// 100000 per thread, skip [-k], sync [-S], direct [-X], mmap [-M], consistency_check [-c],
/// serial_write [-W], drop_caches [-F], raw [-R], raw_gap [-o], raw_offset_first [-O],
/// raw_overwrite (iobench's explicit consent to write into raw targets), terse [-T],
/// latency_table [not -L], percentiles (iobench's extra table).
[[nodiscard]] std::vector<ParamSpec> tiotest_param_specs();

/// Parameters of the "tiobench" workload, with tiobench.pl's meanings and defaults: threads
/// "1,2,4,8", sizes (total MiB per point; default twice the RAM), block_sizes "4096",
/// random_ops 4000 in total, repetitions [--numruns] 1, identifier (default uname -r),
/// serial_write [--nofrag], drop_caches [--flushCaches], direct [--directio], raw_overwrite.
[[nodiscard]] std::vector<ParamSpec> tiobench_param_specs();

/// Reads the I/O options shared by both workloads from validated params, and checks them
/// against the step's `engine` (check_engine_use). Throws ConfigError.
[[nodiscard]] IoOptions io_options_from(const Params& params, const Engine& engine);

/// Factory of "tiotest": builds the run plan from the params, probes the targets (stat only) and
/// validates everything (validate_plan, plus no more targets than threads) before any I/O.
/// Throws ConfigError.
[[nodiscard]] std::unique_ptr<Workload> make_tiotest_workload(const WorkloadSetup& setup);

/// Factory of "tiobench": plans the sweep (plan_sweep), switches to raw mode when every target
/// is a device or file (tiobench.pl passes -R when all targets are devices), validates every
/// run. Throws ConfigError.
[[nodiscard]] std::unique_ptr<Workload> make_tiobench_workload(const WorkloadSetup& setup);

/// The engine tiotest's params imply (WorkloadInfo::implied_engine): mmap=true (tiotest -M).
[[nodiscard]] std::string tiotest_implied_engine(const Params& params);

}  // namespace iobench::plugins::tiotest
