#pragma once

// The rounds of a `pts` step: what each cell measured in each round, PTS's steady-state test on
// the tracked cell, and the matrix averaged over the steady-state window.

#include <cstddef>
#include <cstdint>
#include <iobench/result.hpp>
#include <iobench/steady_state.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "plugins/disk/pts_config.hpp"

namespace iobench::plugins::disk {

/// One cell's round: its phase's figures, as the JSON result gives them.
struct PtsCellRound {
  double iops = 0;                    ///< ops_per_s(total ops, wall_ns), the phase's "ops_per_s"
  double throughput_bytes_per_s = 0;  ///< PhaseResult::throughput_bytes_per_s()
  OpResult all;                       ///< every op kind merged (latency, ops, bytes)
};

/// A cell's figures over the steady-state window (PTS's reported values).
struct PtsCellWindow {
  double iops = 0;                    ///< mean of the window rounds' IOPS
  double throughput_bytes_per_s = 0;  ///< mean of their throughputs
  double mean_latency_ns = 0;         ///< over every op of the window rounds
  std::uint64_t p99_latency_ns = 0;   ///< of every op of the window rounds (merged histograms)
  std::uint64_t max_latency_ns = 0;   ///< the largest of them
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
};

/// Records the cells' rounds and judges the tracked cell's series by PTS's rule (judge_window:
/// the last kPtsWindowRounds rounds, data excursion <= 20 % and best-fit excursion <= 10 % of
/// their mean). Memory: every cell's every round (at most 25 x cells OpResults).
class PtsRounds {
 public:
  /// `cells` per round; `tracked` the index of the tracked cell; `tracking` what of it.
  PtsRounds(std::size_t cells, std::size_t tracked, PtsTracking tracking);

  /// Records cell `cell` of the current round (cells in any order; each once per round).
  void record(std::size_t cell, const PhaseResult& phase);
  /// Ends the current round: judges the window once kPtsWindowRounds rounds are done. Returns
  /// steady().
  bool end_round();

  [[nodiscard]] std::size_t rounds() const noexcept { return rounds_; }
  /// True once a window was steady (the deciding window is kept; later rounds do not change it).
  [[nodiscard]] bool steady() const noexcept { return steady_; }
  /// The tracked value of each completed round, oldest first.
  [[nodiscard]] const std::vector<double>& tracked_series() const noexcept { return series_; }
  /// The measurement window: the deciding window when steady, else the last kPtsWindowRounds
  /// rounds; nullopt before that many rounds. First round is 1.
  [[nodiscard]] std::optional<std::size_t> window_first_round() const noexcept;
  [[nodiscard]] std::size_t window_last_round() const noexcept;
  /// The window's figures (judge_window); nullopt before kPtsWindowRounds rounds.
  [[nodiscard]] const std::optional<SteadyStateFigures>& figures() const noexcept {
    return figures_;
  }
  /// Cell `cell` over the window rounds (over every round done when fewer than a window).
  [[nodiscard]] PtsCellWindow window_of(std::size_t cell) const;
  /// Every op of cell `cell` in those rounds, merged (its latency histogram is the window's).
  [[nodiscard]] OpResult window_ops(std::size_t cell) const;
  /// Cell `cell`'s round `round` (1-based).
  [[nodiscard]] const PtsCellRound& round_of(std::size_t cell, std::size_t round) const {
    return cells_.at(cell).at(round - 1);
  }

  /// The tracked value of one cell round.
  [[nodiscard]] static double tracked_value(const PtsCellRound& round, PtsTracking tracking);

 private:
  /// The rounds window_of() spans: {first, last}, 1-based; last < first before any round.
  [[nodiscard]] std::pair<std::size_t, std::size_t> window_rounds() const;

  std::vector<std::vector<PtsCellRound>> cells_;  ///< [cell][round]
  std::size_t tracked_;
  PtsTracking tracking_;
  std::size_t rounds_ = 0;
  std::vector<double> series_;
  bool steady_ = false;
  std::size_t window_last_ = 0;
  std::optional<SteadyStateFigures> figures_;
};

}  // namespace iobench::plugins::disk
