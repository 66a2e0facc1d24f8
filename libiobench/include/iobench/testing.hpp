#pragma once

/// Test support for workload authors: drive one worker of a phase by hand, without the runner,
/// to unit-test a workload's make_worker() and PhaseWorker::run() (what they record, the files
/// they make) in the test's own thread. Runs of whole steps go through Runner instead.

#include <cstddef>
#include <cstdint>
#include <iobench/engine.hpp>
#include <iobench/metrics.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <span>

namespace iobench::testing {

/// Which worker of which phase a WorkerHarness stands for, as the runner would number it.
struct WorkerHarnessOptions {
  std::size_t phase_index = 0;
  std::size_t worker_index = 0;
  std::size_t worker_count = 1;
  std::uint64_t seed = 1;       ///< WorkerContext::seed()
  std::uint64_t ops_limit = 0;  ///< ops per worker after which keep_going() is false; 0: none
};

/// The WorkerContext the runner gives one worker, with the phase's state in the test's hands.
/// The phase starts waiting (untimed set-up: call Workload::make_worker(phase, context())), then
/// start_warmup() / start_measuring() / stop() change its state as the runner does; the worker
/// sees each change at its next keep_going() (entering warm-up or measurement resets what it
/// recorded, as in a run). Not thread-safe beyond that: one worker, one thread.
///
/// Example:
///   iobench::testing::WorkerHarness harness(workload->phases()[0], targets, *engine);
///   auto worker = workload->make_worker(0, harness.context());
///   harness.run(*worker);
///   CHECK(harness.ops()[0].ops == 100);
class WorkerHarness {
 public:
  /// `spec` sizes the recorded figures (one OpStats per op name, counter_names); `targets` and
  /// `engine` must outlive the harness. Throws ConfigError if `spec` declares more than
  /// kMaxCounters counters.
  WorkerHarness(const PhaseSpec& spec, std::span<const Target> targets, const Engine& engine,
                WorkerHarnessOptions options = {});
  ~WorkerHarness();
  WorkerHarness(const WorkerHarness&) = delete;
  WorkerHarness& operator=(const WorkerHarness&) = delete;

  /// The worker's context: pass it to make_worker() and PhaseWorker::run().
  [[nodiscard]] WorkerContext& context() noexcept;

  /// The phase's warm-up begins: recording restarts, and is discarded when measurement starts.
  void start_warmup() noexcept;
  /// The measured part begins: recording restarts (clock, CPU, op limit count from here).
  void start_measuring() noexcept;
  /// The phase must end: keep_going() turns false (time limit, stop request).
  void stop() noexcept;
  /// As the runner runs a worker after the barrier: start_measuring() unless the phase is
  /// already warming up or measuring, then `worker.run(context())`. Exceptions propagate.
  void run(PhaseWorker& worker);

  /// What the worker recorded since recording last restarted, indexed by OpId.
  [[nodiscard]] std::span<const OpStats> ops() const noexcept;
  /// Counter `counter` (index into spec.counter_names) of the worker; 0 if out of range.
  [[nodiscard]] std::uint64_t counter(CounterId counter) const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace iobench::testing
