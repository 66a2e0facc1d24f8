#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/metrics.hpp>
#include <iobench/result.hpp>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "plugins/tiotest/tiotest_config.hpp"

namespace iobench::plugins::tiotest {

/// The numbers of one finished tiotest phase, read from its PhaseResult. Only copies and unit
/// conversions of the result's own numbers; the formulas are tiotest's (see each member).
struct PhaseFigures {
  PhaseKind kind = PhaseKind::kWrite;
  std::size_t threads = 1;
  std::uint64_t wall_ns = 0;  ///< the phase's wall time (tiotest: the main thread's timer)
  CpuTimes cpu;               ///< summed over the phase's workers
  double system_busy_percent = 0;
  OpResult ops;  ///< all ops of the phase, merged over workers
  /// The phase's status: the tables print the figures of an ok phase only; any other (failed,
  /// interrupted, skipped) is marked with its status word instead, as nothing was measured in
  /// full.
  Status status = Status::kOk;

  /// True if the phase ended ok, so its figures are measurements.
  [[nodiscard]] bool measured() const noexcept { return status == Status::kOk; }
  /// MB moved, MB = 2^20 bytes as tiotest counts (blocks x block size / 2^20).
  [[nodiscard]] double megabytes() const noexcept;
  [[nodiscard]] double wall_seconds() const noexcept;
  /// MB/s from the true bytes moved over the phase's wall time; 0 if no time elapsed.
  [[nodiscard]] double rate_mb_per_s() const noexcept;
  /// tiotest's CPU column: floor(10000 x cpu / wall) / (100 x threads), i.e. the per-thread
  /// average in percent of one CPU, truncated to 0.01 %.
  [[nodiscard]] double user_cpu_percent() const noexcept;
  [[nodiscard]] double system_cpu_percent() const noexcept;
  /// Mean latency in ms (exact sum / count); 0 with no ops.
  [[nodiscard]] double mean_latency_ms() const noexcept;
  [[nodiscard]] double max_latency_ms() const noexcept;
  /// Percent of ops slower than 2 s / 10 s (exact counts).
  [[nodiscard]] double percent_over_2s() const noexcept;
  [[nodiscard]] double percent_over_10s() const noexcept;
};

/// The tiotest phase a result phase name denotes: the name is the phase label ("Random Read"),
/// optionally followed by a space and a suffix (tiobench sweep points). nullopt otherwise.
[[nodiscard]] std::optional<PhaseKind> kind_from_phase_name(std::string_view name) noexcept;

/// Figures of `phase` (kind from its name; nullopt if the name is not a tiotest phase).
/// `threads` is the thread count of the run the phase belongs to.
[[nodiscard]] std::optional<PhaseFigures> figures_of(const PhaseResult& phase, std::size_t threads);

/// The latency columns of tiotest's "Total" row: every op of every measured phase (ok; see
/// PhaseFigures::measured) pooled (mean = summed latency / summed ops, max = the largest,
/// threshold percents over all ops), with the merged histogram for percentiles.
[[nodiscard]] OpResult pooled_ops(std::span<const PhaseFigures> phases);

/// Percent of `part` in `whole`; 0 if `whole` is 0.
[[nodiscard]] double percent_of(std::uint64_t part, std::uint64_t whole) noexcept;

}  // namespace iobench::plugins::tiotest
