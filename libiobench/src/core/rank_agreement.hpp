#pragma once

#include <functional>
#include <iobench/coordinator.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/registry.hpp>
#include <iobench/result.hpp>
#include <iobench/runner.hpp>
#include <memory>
#include <span>
#include <vector>

#include "core/step_plan.hpp"

// What the ranks of a run agree on, through its Coordinator: the plan before any I/O, each
// step's seed, each step's result (reduced on rank 0) and its status. Alone (a single-process
// coordinator, whose collectives give back this rank's own text) each comes down to this rank's
// own, so the runner makes the same calls alone and across ranks.
namespace iobench::detail {

/// The coordinator a run agrees through: `given` (RunOptions::coordinator) when it has other
/// ranks, else a single-process one (make_single_process_coordinator()), made into `alone`.
[[nodiscard]] Coordinator& run_coordinator(Coordinator* given, std::unique_ptr<Coordinator>& alone);

/// Plans a run's steps (plan_steps()); across ranks, every rank's outcome, then the targets of
/// steps whose ranks share them, are agreed before any I/O (ConfigError on every rank: the
/// message once if all ranks have the same, else each rank's "rank R: ..."). A stop that cut one
/// rank's validation short leaves every rank's plan empty and interrupted. A lost rank throws
/// CoordinationError.
[[nodiscard]] Plan plan_run(Coordinator& coordinator, const Registry& registry,
                            std::span<const Step> steps, const RunOptions& options);

/// Rank 0's seed for every rank (each rank's workers then draw from it mixed with the rank, so
/// ranks differ yet a repeat with the same seed repeats every rank); alone, `mine`. Throws
/// CoordinationError.
[[nodiscard]] std::uint64_t agreed_seed(Coordinator& coordinator, std::uint64_t mine);

/// The seed this rank's phases draw from: the step's on rank 0 (and alone), mixed with the rank
/// on the others.
[[nodiscard]] std::uint64_t rank_seed(std::uint64_t step_seed, int rank);

/// After a step: the worst of the ranks' own statuses, so that every rank goes on to the next
/// step or none does (a stop one rank saw after the step's last checkpoint is its alone); alone,
/// `mine`. Lost ranks: failed, without a collective.
[[nodiscard]] Status agreed_status(Coordinator& coordinator, Status mine);

/// Across ranks, rank 0 receives every rank's result and windows of the step and replaces
/// `result` with their aggregate (reported through `on_ranked`); the others send theirs. A lost
/// rank fails the step. Alone, `result` stays this rank's own.
void reduce_step(Coordinator& coordinator, const Environment& environment,
                 const std::vector<RankWindow>& windows, StepResult& result,
                 const std::function<void(const RankedStep&)>& on_ranked);

}  // namespace iobench::detail
