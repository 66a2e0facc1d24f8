#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/coordinator.hpp>
#include <iobench/result.hpp>
#include <iobench/runner.hpp>

#include "core/step_plan.hpp"

// One step of a run on this rank, between Runner::run's planning and its reporting.
namespace iobench::detail {

/// Where a step stands in its run (index from 0), as its progress snapshots name it.
struct StepPosition {
  std::size_t index = 0;
  std::size_t count = 0;
};

/// What a step's run gives back.
struct StepOutcome {
  StepResult result;            ///< this rank's; across ranks on rank 0, the ranks' aggregate
  Status agreed = Status::kOk;  ///< the worst of every rank's own status (alone: this rank's)
};

/// Runs `planned`: its result's fields and seed (`drawn_seed`, rank 0's across ranks), the
/// workload's prepare(), its phases, finish() and the run directories' removal; meets the other
/// ranks at the step's checkpoints through `coordinator` (a single-process one alone, whose
/// checkpoints do nothing) and reduces the result across them. Failures end up in the result's
/// status and message (never thrown); a stop request ends it interrupted after clean-up.
[[nodiscard]] StepOutcome run_step(PlannedStep& planned, StepPosition position,
                                   std::uint64_t drawn_seed, Coordinator& coordinator,
                                   const Environment& environment, const RunOptions& options);

}  // namespace iobench::detail
