// testing::WorkerHarness: the runner's WorkerContext for one worker, with its phase state word,
// shared slot and recorded figures owned by the harness instead of a phase's shared memory.
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/testing.hpp>
#include <vector>

#include "core/worker_slot.hpp"

namespace iobench::testing {

struct WorkerHarness::State {
  State(const PhaseSpec& spec, std::span<const Target> targets, const Engine& engine,
        const WorkerHarnessOptions& options)
      : ops(spec.op_names.size()),
        context(WorkerContextAccess::make(
            options.phase_index, options.worker_index, options.worker_count, targets, engine,
            options.seed, phase_state, slot, std::span<OpStats>(ops), options.ops_limit)) {}

  std::atomic<std::uint32_t> phase_state{detail::kWaiting};
  detail::WorkerSlot slot;
  std::vector<OpStats> ops;
  WorkerContext context;
};

WorkerHarness::WorkerHarness(const PhaseSpec& spec, std::span<const Target> targets,
                             const Engine& engine, WorkerHarnessOptions options) {
  if (spec.counter_names.size() > kMaxCounters) {
    throw ConfigError(fmt::format("phase '{}': {} counters declared, at most {} are allowed",
                                  spec.name, spec.counter_names.size(), kMaxCounters));
  }
  state_ = std::make_unique<State>(spec, targets, engine, options);
}

WorkerHarness::~WorkerHarness() = default;

WorkerContext& WorkerHarness::context() noexcept { return state_->context; }

void WorkerHarness::start_warmup() noexcept { state_->phase_state.store(detail::kWarmup); }

void WorkerHarness::start_measuring() noexcept { state_->phase_state.store(detail::kMeasure); }

void WorkerHarness::stop() noexcept { state_->phase_state.store(detail::kStop); }

void WorkerHarness::run(PhaseWorker& worker) {
  if (state_->phase_state.load() == detail::kWaiting) start_measuring();
  (void)state_->context.keep_going();  // takes the measure start, as the runner's worker does
  worker.run(state_->context);
}

std::span<const OpStats> WorkerHarness::ops() const noexcept { return state_->ops; }

std::uint64_t WorkerHarness::counter(CounterId counter) const noexcept {
  return counter < kMaxCounters ? state_->slot.counters[counter] : 0;
}

}  // namespace iobench::testing
