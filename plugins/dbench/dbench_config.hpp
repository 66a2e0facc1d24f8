#pragma once

#include <chrono>
#include <cstddef>
#include <iobench/params.hpp>
#include <string>
#include <vector>

#include "plugins/dbench/fileio_client.hpp"
#include "plugins/dbench/loadfile_parser.hpp"

namespace iobench::plugins::dbench {

/// The dbench workload's parameters, with dbench's option in each help text.
[[nodiscard]] std::vector<ParamSpec> dbench_param_specs();

/// Validated settings of one dbench step.
struct DbenchConfig {
  std::size_t procs = 1;                                 ///< worker processes (dbench's NPROCS)
  std::size_t clients_per_process = 1;                   ///< --clients-per-process
  std::chrono::nanoseconds time_limit{600'000'000'000};  ///< -t: the execute period
  std::chrono::nanoseconds warmup{120'000'000'000};      ///< default: whole seconds of -t / 5
  std::vector<std::string> loadfiles;          ///< -c, comma-separated; process i uses i % size()
  std::size_t max_loadfile_bytes = 128 << 20;  ///< text beyond this refuses a loadfile
  LoadfileFormat format = LoadfileFormat::kAuto;
  UnknownOpPolicy unknown_ops = UnknownOpPolicy::kError;
  double target_rate_mb_s = 0;  ///< -R, MB/s per client (MB = 10^6 bytes)
  FileioOptions fileio;
  bool skip_cleanup = false;        ///< --skip-cleanup
  bool per_client_results = false;  ///< --per-client-results
  bool run_once = false;            ///< --run-once

  [[nodiscard]] std::size_t clients() const noexcept { return procs * clients_per_process; }
  /// Whole seconds from the execute start to dbench's last printed execute tick: ceil(T) - 1.
  [[nodiscard]] std::uint64_t tick_seconds() const noexcept;
};

/// Reads `params` (validated against dbench_param_specs()) into a DbenchConfig. Throws
/// ConfigError naming the parameter for values the specs cannot express (a negative or
/// non-finite target_rate, an empty name in the loadfile list).
[[nodiscard]] DbenchConfig read_dbench_config(const Params& params);

}  // namespace iobench::plugins::dbench
