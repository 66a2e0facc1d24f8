#pragma once

#include <atomic>
#include <iobench/lateness_trend.hpp>
#include <iobench/workload.hpp>
#include <memory>

#include "plugins/disk/block_set.hpp"
#include "plugins/disk/disk_config.hpp"

namespace iobench::plugins::disk {

/// The seeds' multi-target test (test_disk_performance), grown into a block workload: numjobs
/// workers per target (fio's numjobs; 1 by default), each with nrfiles files of its own, writing,
/// reading or mixing reads and writes on its own file of `blocks` x `bs`, sequentially or in a
/// random order (permutation, uniform, zipf, pareto), `iterations` times, through the step's engine
/// at `iodepth`, closed-loop or at a fixed rate (open loop). A read of a file the run did not write
/// first creates it untimed and evicts it from the page cache (posix_fadvise DONTNEED after fsync)
/// unless prime=true, which reads it untimed instead, with plain blocking reads (the psync engine)
/// whatever the step's engine: pvsync2:nowait's reads of uncached data would fail with EAGAIN and
/// fill nothing. With verify=true, every written block carries a VerifyPattern and every read block
/// is checked; a write phase is then followed by a "verify" phase that reads the file back. Under
/// mpirun with shared_file=regions|interleaved, the ranks share one file per target (IOR's N-1):
/// rank 0 creates it empty in its run directory in prepare() and every rank works on its own blocks
/// of it (BlockPlacement); rank 0 removes it with its run directory at the step's end, after every
/// rank's last phase.
class DiskWorkload final : public Workload {
 public:
  /// Op ids: a read phase records "read"; a write phase "write" and "fsync"; a mixed phase
  /// "read", "write", "fsync" and, with rwmixtrim, "trim"; a trim phase "trim".
  static constexpr OpId kRead = 0;
  static constexpr OpId kWrite = 0;
  static constexpr OpId kFsync = 1;
  static constexpr OpId kMixedRead = 0;
  static constexpr OpId kMixedWrite = 1;
  static constexpr OpId kMixedFsync = 2;
  static constexpr OpId kMixedTrim = 3;
  static constexpr OpId kTrim = 0;

  /// `engine` is the step's: its caps decide the latency parts recorded and whether files hold
  /// data (the null engine creates none).
  DiskWorkload(DiskConfig config, std::size_t target_count, const Engine& engine);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  /// After the main phase: warns (step warning naming the phase) when its later passes were
  /// likely page-cache reads (repeated_pass_warning()); with curve= or latency_target=, takes
  /// its read IOPS as the maximum rate (attribute curve.max_iops). After a curve point or a
  /// latency-search probe: its figures as attributes (set_curve_point(), set_probe()), with
  /// its lateness growth (the workers' LatenessTrend slopes x its measured time, the largest),
  /// a probe judged by judge_probe().
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;

  /// File `file` (of nrfiles) of job `job` (of numjobs) in target `target_index`:
  /// disk_file_name() beneath the run directory (a shared file: beneath rank 0's), or the user's
  /// own existing file or device (their symbolic link followed). After prepare().
  [[nodiscard]] FileLocation file_location(std::size_t target_index, const Target& target,
                                           std::uint32_t job = 0, std::uint32_t file = 0) const;

 private:
  enum class PhaseRole { kPrecondition, kPrime, kMain, kCurve, kProbe, kVerify };
  [[nodiscard]] PhaseRole role(std::size_t phase) const noexcept;
  /// The index of the main phase (after the precondition and prime phases, if any).
  [[nodiscard]] std::size_t main_phase() const noexcept {
    return (config_.precondition ? 1 : 0) + (config_.prime ? 1 : 0);
  }
  /// The open-loop rate (aggregate IOPS) of curve point or probe `phase`.
  [[nodiscard]] double curve_rate(std::size_t phase) const noexcept;
  void after_curve_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx);

  /// purge=: purges each block device target (purge_device), recording attribute purge.N.
  void purge_devices(PrepareContext& ctx) const;

  /// True when the step's ranks share the files (shared_file, more than one rank).
  [[nodiscard]] bool shares_files() const noexcept { return ranks_ > 1; }

  DiskConfig config_;
  std::size_t target_count_;
  EngineCaps caps_;
  std::unique_ptr<Engine> prime_engine_ = make_psync_engine();  ///< the prime pass's reads
  std::uint64_t step_seed_ = 0;
  /// This rank's place among those sharing the files (0 of 1: a file of its own).
  int rank_ = 0;
  int ranks_ = 1;
  /// Other ranks sharing files: rank 0's run directory in each target, which holds them.
  std::vector<OwnedConfinedDir> rank0_dirs_;
  /// Per target: this rank's blocks of the shared file hold the data a read expects. Atomic:
  /// the workers' threads set it from make_worker() side by side (ThreadSanitizer saw two jobs
  /// of pts-dirth filling their files at once).
  std::vector<std::atomic<bool>> filled_;
  /// curve= / latency_target=: the closed-loop phase's read IOPS, and the search's state.
  double max_iops_ = 0;
  LatencySearch search_;
  DepthSearch depth_search_;  ///< latency_target_mode=depth
  /// Per worker, with verify after a write: the blocks the write phase wrote.
  std::vector<BlockSet> written_;
  /// Per worker, in a curve point or rate probe: how its lateness grew (growth_ns).
  std::vector<LatenessTrend> lateness_;
};

}  // namespace iobench::plugins::disk
