#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/steady_state.hpp>
#include <optional>

#include "core/phase_memory.hpp"

namespace iobench::detail {

/// A group's steady-state sampling (PhaseSpec::steady_state), driven by the runner's thread:
/// every config.interval after the measurement start plus the ramp it reads the group's live op
/// and byte counters (which the workers keep anyway) and hands the rate over the time that
/// really passed since the last reading to a SteadyStateDetector. No per-op work.
class SteadySampler {
 public:
  SteadySampler(const SteadyStateConfig& config, const PhaseMemory& memory, std::size_t first,
                std::size_t count);

  /// The measurement began at `now_ns` (monotonic): the ramp starts.
  void begin(std::uint64_t now_ns) noexcept;
  /// Takes every sample due by `now_ns`; returns true once the detector is done (steady, or
  /// PTS's last round taken): the phase should stop.
  bool sample(std::uint64_t now_ns);
  /// When the next reading is due (monotonic ns; UINT64_MAX: none).
  [[nodiscard]] std::uint64_t next_ns() const noexcept;
  /// The outcome so far.
  [[nodiscard]] SteadyStateResult result() const;

 private:
  struct Reading {
    std::uint64_t ns = 0;
    std::uint64_t ops = 0;
    std::uint64_t bytes = 0;
  };
  [[nodiscard]] Reading read(std::uint64_t now_ns) const noexcept;

  SteadyStateDetector detector_;
  const PhaseMemory& memory_;
  std::size_t first_;
  std::size_t count_;
  std::uint64_t interval_ns_;
  std::uint64_t next_ns_ = UINT64_MAX;
  std::optional<Reading> last_;  ///< the previous reading; none before the ramp's end
};

}  // namespace iobench::detail
