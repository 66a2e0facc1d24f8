#pragma once

// Hand-built results for the tiotest formatter tests.

#include <cstdint>
#include <iobench/result.hpp>
#include <string>
#include <utility>
#include <vector>

namespace iobench::plugins::tiotest::test {

/// `count` ops of `latency_ns` each.
struct LatencyRun {
  std::uint64_t count = 0;
  std::uint64_t latency_ns = 0;
};

/// A finished phase named `name` with one op kind; every op moved `block_size` bytes.
inline PhaseResult make_phase(const std::string& name, std::uint64_t block_size,
                              const std::vector<LatencyRun>& latencies, std::uint64_t wall_ns,
                              std::uint64_t user_ns, std::uint64_t system_ns,
                              double busy_percent = 0) {
  PhaseResult phase;
  phase.name = name;
  phase.op_names = {name.find("Write") != std::string::npos ? "write" : "read"};
  phase.wall_ns = wall_ns;
  phase.stonewall_ns = wall_ns;
  OpResult ops;
  for (const LatencyRun& run : latencies) {
    for (std::uint64_t i = 0; i < run.count; ++i) ops.record(block_size, run.latency_ns);
  }
  phase.ops = {ops};
  phase.workers_cpu = {user_ns, system_ns};
  phase.system_busy_percent = busy_percent;
  return phase;
}

inline StepResult make_step(std::string workload,
                            std::vector<std::pair<std::string, std::string>> params,
                            std::vector<PhaseResult> phases) {
  StepResult step;
  step.name = workload;
  step.workload = std::move(workload);
  for (auto& [key, value] : params) step.params[key] = value;
  step.phases = std::move(phases);
  return step;
}

}  // namespace iobench::plugins::tiotest::test
