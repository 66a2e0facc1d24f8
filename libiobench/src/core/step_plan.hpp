#pragma once

#include <iobench/engine.hpp>
#include <iobench/params.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// A run's steps planned and validated before any I/O: each step's params, engine and workload
// built, its targets and free space checked.
namespace iobench::detail {

/// A step after validation: its workload built (the factory has accepted the params).
struct PlannedStep {
  const Step* step = nullptr;
  const WorkloadInfo* info = nullptr;
  Params params;
  std::unique_ptr<Engine> engine;  ///< built from the step's engine spec
  std::string engine_spec;         ///< as results record it ("io_uring:fixedbufs")
  std::unique_ptr<Workload> workload;
  std::vector<PhaseSpec> phases;
  /// Under mpirun, the processes whose workloads write in this step's targets: all of them when
  /// the step's ranks share their targets (WorkloadInfo::shared_targets_param: io500, mdtest, disk
  /// shared_file), else 1 (each rank its own directories).
  std::uint32_t sharing_processes = 1;
};

/// What the step writes into target `target_index` at its peak (Workload::planned_bytes), and
/// still holds there at its end (retained_bytes), over every process that writes there: each
/// process plans its own ranks' share, the same on every process (the ranks run the same
/// params), so the total is the share x sharing_processes. Saturates at 2^64 - 1.
[[nodiscard]] std::uint64_t step_planned_bytes(const PlannedStep& planned,
                                               std::size_t target_index);
[[nodiscard]] std::uint64_t step_retained_bytes(const PlannedStep& planned,
                                                std::size_t target_index);

/// The steps of a run as planned, or none if a stop request cut validation short.
struct Plan {
  std::vector<PlannedStep> steps;
  /// A factory's set-up saw a stop request (InterruptedError), on this rank or across ranks on
  /// any: nothing is planned, and neither the steps planned nor the problems found matter.
  bool interrupted = false;
};

/// "step 2 (name)", as messages about a step of a run start (index from 0; the workload's name
/// where the step has none).
[[nodiscard]] std::string step_label(const Step& step, std::size_t index);

/// True if the workload times itself through its own duration param `key` (dbench's
/// "time_limit" and "warmup"): the step's --time/--warmup go there, not to its phases.
[[nodiscard]] bool declares_duration(const WorkloadInfo& info, std::string_view key);

/// Plans and validates every step on this process: params, engine, targets (existence,
/// writability, kind), the workload's factory, wear-out's time limit and free space (unless
/// RunOptions::skip_space_check; under --keep counting what earlier steps leave). Throws one
/// ConfigError listing every step's problems; a stop request seen by a factory gives an
/// interrupted, empty Plan.
[[nodiscard]] Plan plan_steps(const Registry& registry, std::span<const Step> steps,
                              const RunOptions& options);

}  // namespace iobench::detail
