#pragma once

#include <iobench/workload.hpp>
#include <memory>
#include <string>
#include <vector>

#include "plugins/disk/disk_workload.hpp"
#include "plugins/disk/pts_config.hpp"
#include "plugins/disk/pts_rounds.hpp"

namespace iobench::plugins::disk {

/// WSAT writes this many times the capacity (PTS's write saturation: 4 x user capacity).
inline constexpr std::uint64_t kWsatCapacityFills = 4;

/// SNIA PTS 2.0's IOPS, throughput, latency, WSAT and DIRTH tests (workload `pts`, the built-in
/// suites pts-iops, pts-throughput, pts-latency, pts-wsat, pts-dirth): purge and
/// workload-independent preconditioning (the disk workload's purge= and precondition=wipc, on a
/// block device with --destructive), then rounds: each round runs every cell of the matrix (R/W mix
/// x block size, mixes outer) once, for round_time, as a measured phase "round N RND 4KiB 65/35"
/// that is the disk workload's main phase with that mix and block size (a DiskWorkload per cell,
/// all on one file or the device, of capacity bytes; DIRTH's cells are its TC x QD grid, "... TC2
/// QD4", each with its own numjobs and iodepth, largest OIO first). After each round the tracked
/// cell's series is judged by PTS's rule (PtsRounds); once steady, the phases left are skipped. The
/// results are step attributes "pts.*" (the round series, the window and its excursions, the matrix
/// over the window, the test conditions, pts.valid and why not), which format_pts_text prints as
/// PTS's tables. The rounds are PTS's workload-dependent preconditioning (WDPC), which is also the
/// test stimulus: the rounds before the window precondition the device with the test's own
/// workload, the window is measured; wdpc=false runs the window's rounds only.
class PtsWorkload final : public Workload {
 public:
  PtsWorkload(PtsConfig config, const Engine& engine);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  /// Purges (cell 0's DiskWorkload) and records the test conditions (pts.condition.*).
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  /// Records a cell's round; after a round's last cell judges steady state, sets the pts.*
  /// attributes and, once steady, skips the rounds left.
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;

 private:
  /// Phases before the first round: cell 0's precondition phase, if any.
  [[nodiscard]] std::size_t first_round_phase() const noexcept {
    return config_.base.precondition ? 1 : 0;
  }
  void set_attributes(PrepareContext& ctx) const;
  [[nodiscard]] bool dirth() const noexcept { return config_.test == PtsTest::kDirth; }
  /// "pts.cell.65/35.4096", DIRTH "pts.cell.TC2.QD4": the prefix of a cell's attributes.
  [[nodiscard]] std::string cell_key(std::size_t cell) const;
  /// DIRTH: pts.dirth.max_iops.* and pts.dirth.min_latency.* (the max-IOPS and the
  /// minimum-mean-response-time cells over the window: TC, QD, OIO, IOPS, mean latency and the
  /// response-time histogram of their window rounds).
  void set_dirth_points(PrepareContext& ctx) const;
  /// pts.wdpc, pts.wdpc.rounds, pts.wdpc.steady_round (once steady), pts.condition.wdpc: the
  /// workload-dependent preconditioning as PTS's report states it.
  void set_wdpc_attributes(PrepareContext& ctx) const;
  /// "12 rounds, steady state reached in round 12 (window rounds 8-12)", or why there was none.
  [[nodiscard]] std::string wdpc_text() const;
  /// WSAT: bytes the tracked (only) cell wrote in rounds 1..`rounds`.
  [[nodiscard]] std::uint64_t written_bytes(std::size_t rounds) const;
  /// WSAT: 4 x capacity written.
  [[nodiscard]] bool wsat_done() const;
  /// The precondition phase (if any), then max_rounds rounds of the cells' main phases.
  [[nodiscard]] std::vector<PhaseSpec> build_phases() const;

  PtsConfig config_;
  std::vector<PtsCell> cells_;
  /// One disk workload per cell; cell 0's carries the purge and the precondition phase.
  std::vector<std::unique_ptr<DiskWorkload>> disks_;
  PtsRounds rounds_;
  std::vector<PhaseSpec> phases_;  ///< build_phases(), made once
};

}  // namespace iobench::plugins::disk
