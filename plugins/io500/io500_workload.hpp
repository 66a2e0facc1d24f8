#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <vector>

#include "plugins/io500/find.hpp"
#include "plugins/io500/io500_config.hpp"

namespace iobench::plugins::io500 {

/// The io500 workload: the list's twelve phases in its order (kPhaseOrder), each a measured
/// phase of `ranks` workers (find: one), in "datafiles" of the target's run directory. Untimed
/// in prepare(): the timestamp file "timestampfile" (its time set one second back, so that
/// nothing the run writes is as old as it on a coarse-clocked file system), the phases'
/// directories and the ior-hard shared file. The write phases stop at the stonewall time; each
/// later phase acts on what its write phase left: rank r on rank (r + 1) mod ranks's files (the
/// rank shift that keeps a rank from reading its own page cache), for as many transfers or
/// items as that rank completed. find runs `-newer timestampfile -size 3901c -name *01*` over
/// the data directory.
///
/// Under mpirun each process's `ranks` workers are IO500 ranks too, numbered process by process
/// (process p's worker w is rank p x ranks + w): rank 0 makes the timestamp file and the data
/// directory in its run directory, where every rank works (the ranks must name the same target,
/// on a file system they all see); the read phases' shift is one process's ranks (rank r on rank
/// r + ranks's files, as IOR's -C moves a read to the next node), what each rank wrote is shared
/// by every process (PrepareContext::all_ranks()), and every process walks its share of the find
/// (FindPart), whose counts add up in the aggregate.
class Io500Workload final : public Workload {
 public:
  explicit Io500Workload(Io500Config config);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  /// Every byte the write phases may write: ranks x (ior-easy + ior-hard + mdtest-hard files).
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  /// The ior files (the mdtest-hard files are deleted by mdtest-hard-delete).
  [[nodiscard]] std::uint64_t retained_bytes(std::size_t target_index) const override;
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  /// After a write phase: keeps what each rank completed, for the phases that act on it.
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;

 private:
  /// Rank 0's part of prepare(): the timestamp file and the data directory with its phases'
  /// directories and the shared file. Returns the timestamp's time as "SEC NSEC".
  [[nodiscard]] std::string make_data(const ConfinedDir& run_dir) const;

  Io500Config config_;
  /// IO500 rank of this process's worker 0, every process's ranks, and the read phases' shift.
  std::uint32_t rank_base_ = 0;
  std::uint32_t total_ranks_ = 1;
  std::uint32_t shift_ = 1;
  FindPart find_part_{};
  /// Under mpirun, on the processes but rank 0's: rank 0's run directory.
  std::vector<OwnedConfinedDir> rank0_dirs_;
  OwnedConfinedDir data_;
  std::timespec newer_{};
  /// Per write phase (indexed by Io500Phase), what each rank completed.
  std::array<std::vector<std::uint64_t>, kPhaseCount> done_{};
};

}  // namespace iobench::plugins::io500
