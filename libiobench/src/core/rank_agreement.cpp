// What the ranks of a run agree on (see rank_agreement.hpp).
#include "core/rank_agreement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iobench/error.hpp>
#include <string>

#include "core/phase_executor.hpp"
#include "core/shared_targets.hpp"

namespace iobench::detail {
namespace {

// Across ranks: every rank's validation outcome, agreed before any I/O. Throws ConfigError on
// every rank if any rank has a problem: the message once if all ranks have the same, else each
// rank's ("rank R (HOST): ..."). A lost rank throws CoordinationError.
void agree_on_validation(Coordinator& coordinator, const std::string& problem) {
  const std::vector<std::string> all = coordinator.all_gather(problem);
  std::vector<std::string> lines;
  bool all_same = true;
  for (const std::string& text : all) all_same = all_same && text == all.front();
  if (all_same) {
    if (!all.front().empty()) throw ConfigError(all.front());
    return;
  }
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) lines.push_back(fmt::format("rank {}: {}", r, all[r]));
  }
  throw ConfigError(fmt::format("{}", fmt::join(lines, "\n")));
}

// Across ranks: every rank's planning outcome, then the targets of steps whose ranks share them,
// agreed before any I/O (ConfigError on every rank). A stop that cut one rank's validation short
// leaves every rank's plan empty and interrupted: none may wait for it at a step's checkpoint.
Plan plan_across_ranks(Coordinator& coordinator, const Registry& registry,
                       std::span<const Step> steps, const RunOptions& options) {
  Plan plan;
  std::string problem;
  try {
    plan = plan_steps(registry, steps, options);
  } catch (const ConfigError& e) {
    problem = e.what();
  }
  const std::vector<std::string> stops = coordinator.all_gather(plan.interrupted ? "stop" : "");
  if (std::any_of(stops.begin(), stops.end(), [](const std::string& s) { return !s.empty(); })) {
    return Plan{.interrupted = true};
  }
  agree_on_validation(coordinator, problem);
  std::vector<SharedTargets> shared;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlannedStep& planned = plan.steps[i];
    if (!planned.info->shared_targets_param) continue;
    std::string param = planned.info->shared_targets_param(planned.params);
    if (param.empty()) continue;
    shared.push_back({.label = step_label(*planned.step, i),
                      .param = std::move(param),
                      .targets = planned.step->targets});
  }
  agree_on_shared_targets(coordinator, shared);
  return plan;
}

}  // namespace

Coordinator& run_coordinator(Coordinator* given, std::unique_ptr<Coordinator>& alone) {
  if (given != nullptr && given->ranked()) return *given;
  if (alone == nullptr) alone = make_single_process_coordinator();
  return *alone;
}

Plan plan_run(Coordinator& coordinator, const Registry& registry, std::span<const Step> steps,
              const RunOptions& options) {
  if (!coordinator.ranked()) return plan_steps(registry, steps, options);  // nothing to agree on
  return plan_across_ranks(coordinator, registry, steps, options);
}

std::uint64_t agreed_seed(Coordinator& coordinator, std::uint64_t mine) {
  const std::vector<std::string> all = coordinator.all_gather(std::to_string(mine));
  return std::stoull(all.front());
}

std::uint64_t rank_seed(std::uint64_t step_seed, int rank) {
  return rank == 0 ? step_seed : worker_seed(step_seed, SIZE_MAX, static_cast<std::size_t>(rank));
}

Status agreed_status(Coordinator& coordinator, Status mine) {
  if (coordinator.lost()) return Status::kFailed;
  try {
    Status worst = mine;
    for (const std::string& theirs : coordinator.all_gather(to_string(mine))) {
      for (const Status s : {Status::kFailed, Status::kInterrupted}) {
        if (theirs == to_string(s)) worst = worse(worst, s);
      }
    }
    return worst;
  } catch (const CoordinationError&) {
    return Status::kFailed;
  }
}

void reduce_step(Coordinator& coordinator, const Environment& environment,
                 const std::vector<RankWindow>& windows, StepResult& result,
                 const std::function<void(const RankedStep&)>& on_ranked) {
  if (!coordinator.ranked()) return;  // alone: the step's result is this rank's own
  RankStep mine{.rank = coordinator.identity().rank,
                .environment = environment,
                .step = result,
                .windows = windows,
                .clock_residual_ns = coordinator.clock_residual_ns()};
  if (coordinator.lost()) return;  // the step's message already says so
  std::vector<std::string> all;
  try {
    all = coordinator.gather(to_rank_text(mine));
  } catch (const CoordinationError& e) {
    result.status = Status::kFailed;
    result.message = e.what();
    return;
  }
  if (all.empty()) return;  // not rank 0
  std::vector<RankStep> ranks;
  ranks.reserve(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (static_cast<int>(r) == mine.rank) {
      ranks.push_back(std::move(mine));
      continue;
    }
    try {
      ranks.push_back(from_rank_text(all[r]));
    } catch (const ConfigError& e) {
      result.status = Status::kFailed;
      result.message = fmt::format("the result of rank {} cannot be read: {}", r, e.what());
      return;
    }
  }
  RankedStep ranked = aggregate_ranks(std::move(ranks));
  if (on_ranked) on_ranked(ranked);
  result = std::move(ranked.aggregate);
}

}  // namespace iobench::detail
