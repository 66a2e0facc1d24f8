#include "core/step_context.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/prepare_progress.hpp>

namespace iobench {

void report_prepare_progress(PrepareContext& ctx, std::uint64_t done, std::uint64_t total) {
  if (auto* step = dynamic_cast<detail::StepContext*>(&ctx)) step->report_progress(done, total);
}

}  // namespace iobench

namespace iobench::detail {

void warn_unmeasured_workers(const PhaseResult& phase, PrepareContext& context) {
  if (phase.status != Status::kOk) return;
  for (const WorkerResult& worker : phase.workers) {
    if (worker.status != Status::kNoMeasurement) continue;
    context.warn(fmt::format("phase '{}': worker {} {}", phase.name, worker.index, worker.message));
  }
}

StepSync::Kind sync_kind(Status status) {
  switch (status) {
    case Status::kFailed:
      return StepSync::Kind::kFailed;
    case Status::kInterrupted:
      return StepSync::Kind::kInterrupted;
    default:
      return StepSync::Kind::kNone;
  }
}

void take_verdict(const StepSync& sync, const std::string& verdict, StepResult& result) {
  if (sync.own_problem() && result.status != Status::kOk) return;  // ours says it already
  if (sync.coordinator().lost()) {  // no rank's problem: the ranks are gone
    result.status = Status::kFailed;
    result.message = verdict;
    return;
  }
  if (sync.worst() == StepSync::Kind::kSkip) {
    result.warnings.push_back(
        fmt::format("phases left skipped as another rank skips them: {}", verdict));
    return;
  }
  const Status status =
      sync.worst() == StepSync::Kind::kInterrupted ? Status::kInterrupted : Status::kFailed;
  if (worse(result.status, status) != result.status || result.status == Status::kOk) {
    result.status = worse(result.status, status);
    result.message = fmt::format("stopped because of another rank: {}", verdict);
  }
}

// Rank 0's text for every rank, at a checkpoint: rank 0's own failure in `produce` is its
// problem there (and rethrown); another rank's ends the step for this one.
std::string StepContext::from_rank0(const std::function<std::string()>& produce) {
  // Alone (sync_ inactive) exchange() hands back `mine`: produce()'s text, or its error.
  std::string mine;
  if (rank_identity().rank == 0) {
    try {
      mine = produce();
    } catch (const Error& e) {
      (void)sync_.sync(StepSync::Kind::kFailed, e.what());
      throw;
    }
  }
  const std::optional<std::vector<std::string>> all = sync_.exchange(mine);
  if (!all) {
    take_verdict(sync_, *sync_.verdict(), result_);
    throw StepSync::Ended{};
  }
  return all->front();
}

// Every rank's text at a checkpoint; another rank's problem there ends the step for this one.
std::vector<std::string> StepContext::all_ranks(const std::string& mine) {
  std::optional<std::vector<std::string>> all = sync_.exchange(mine);
  if (!all) {
    take_verdict(sync_, *sync_.verdict(), result_);
    throw StepSync::Ended{};
  }
  return std::move(*all);
}

}  // namespace iobench::detail
