#pragma once

// Hand-built bonnie step results with fixed numbers, for the formatter tests.

#include <cstdint>
#include <iobench/result.hpp>
#include <string>
#include <vector>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/report_header.hpp"

namespace iobench::plugins::bonnie::test {

/// One worker's figures: elapsed and CPU seconds, bytes and ops of its one op kind, max latency.
struct WorkerFigures {
  double seconds = 0;
  double cpu_seconds = 0;
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t latency_ns = 0;
};

inline std::uint64_t to_ns(double seconds) {
  return static_cast<std::uint64_t>(seconds * 1e9 + 0.5);
}

inline WorkerResult make_worker(std::size_t index, const WorkerFigures& f) {
  WorkerResult w;
  w.index = index;
  w.elapsed_ns = to_ns(f.seconds);
  w.cpu.user_ns = to_ns(f.cpu_seconds * 0.25);
  w.cpu.system_ns = to_ns(f.cpu_seconds) - w.cpu.user_ns;
  OpResult op;
  op.ops = f.ops;
  op.bytes = f.bytes;
  if (f.latency_ns > 0) {
    op.latency.record(f.latency_ns / 2);
    op.latency.record(f.latency_ns);
  }
  w.ops.push_back(op);
  return w;
}

/// Builds step results phase by phase.
class StepBuilder {
 public:
  explicit StepBuilder(const ReportHeader& header) {
    step_.name = "bonnie";
    step_.workload = "bonnie";
    step_.seed = header.seed;
    for (auto& attribute : to_attributes(header)) step_.attributes.push_back(attribute);
  }

  /// A phase whose workers have `figures` (one entry per worker, in worker order).
  StepBuilder& phase(PhaseId id, std::vector<WorkerFigures> figures, std::uint32_t repetition = 1,
                     std::uint32_t repetitions = 1) {
    PhaseResult p;
    p.name = planned_phase_name(PlannedPhase{.id = id, .measured = true, .repetition = repetition},
                                repetitions);
    p.op_names = {"op"};
    for (std::size_t i = 0; i < figures.size(); ++i) {
      p.workers.push_back(make_worker(i, figures[i]));
      p.wall_ns = std::max(p.wall_ns, p.workers.back().elapsed_ns);
    }
    step_.phases.push_back(std::move(p));
    return *this;
  }

  /// A single-worker phase.
  StepBuilder& one(PhaseId id, double seconds, double cpu_seconds, std::uint64_t bytes,
                   std::uint64_t ops, std::uint64_t latency_ns) {
    return phase(id, {WorkerFigures{seconds, cpu_seconds, bytes, ops, latency_ns}});
  }

  [[nodiscard]] const StepResult& step() const { return step_; }
  StepResult& mutable_step() { return step_; }

 private:
  StepResult step_;
};

/// Seconds for `amount` (KiB, seeks or files) to give `rate` per second, nudged half a unit up so
/// truncation prints `rate`.
inline double seconds_for(double amount, double rate) { return amount / (rate + 0.5); }

}  // namespace iobench::plugins::bonnie::test
