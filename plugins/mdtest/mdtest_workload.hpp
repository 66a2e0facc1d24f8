#pragma once

#include <array>
#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <vector>

#include "plugins/mdtest/config.hpp"
#include "plugins/mdtest/ranks.hpp"
#include "plugins/mdtest/workers.hpp"

namespace iobench::plugins::mdtest {

/// The mdtest workload: mdtest 4's phases (config.hpp PhaseKind), each its own measured phase,
/// iteration after iteration, by `ranks` workers, worker r being mdtest's rank r. Each iteration
/// works in "test-dir.<i>-0" in the run directory of its target (or of an earlier run, tree_dir),
/// made untimed before the iteration and removed after its tree removal, as mdtest does.
/// The tree phases are one worker (rank 0) on the shared tree, `ranks` workers with -u.
///
/// Under mpirun every process's `ranks` workers are mdtest ranks too, numbered process by
/// process (process p's worker w is rank p x ranks + w of ranks x processes): all work in rank 0's
/// run directory (one test directory, as mdtest's; the ranks must name the same target, on a
/// file system they all see), the shift (-N) and -u's trees span the processes, rank 0 alone makes
/// and removes the test directories and the shared tree, and the items each rank made before a
/// stonewall are shared by every process (PrepareContext::all_ranks()).
///
/// Memory is constant in the item count: names and paths are computed (tree_layout.hpp); only a
/// random stat/read order (-R) holds 8 bytes per item of its rank.
class MdtestWorkload final : public Workload {
 public:
  explicit MdtestWorkload(MdtestConfig config);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  /// write_bytes x items of the ranks whose trees live in the target, per iteration that keeps
  /// its files (all of them without remove).
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  /// 0 with remove (mdtest removes what it makes), else planned_bytes().
  [[nodiscard]] std::uint64_t retained_bytes(std::size_t target_index) const override;
  /// Opens tree_dir (when given), makes the first iteration's test directory, picks the data
  /// pattern's seed (data_seed, or one derived from the step's seed, rank 0's under mpirun;
  /// attribute "data_seed" when files are written or verified), and sets the attributes the mdtest
  /// formatter prints (tasks, items, tree shape).
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  /// Between iterations: removes the test directory of the iteration that ended with its tree
  /// removal and makes the next one's. After a create phase that a time or op limit cut short:
  /// the phases after it are skipped (they would look for items that were never made), unless
  /// the stonewall's wear-out left every worker with the same count (-W: the later phases act on
  /// it; attributes "stonewall.PHASE", "stonewall_items.PHASE", "stonewall_s.PHASE"). After a
  /// removal a limit cut short: the rest is removed untimed (a warning says how many), as
  /// mdtest's removal removes every item, so the tree removal finds empty directories; after a
  /// rename cut short, the item it set aside gets the one name missing.
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;
  /// After a failure, an interruption or a skip, and after a run with remove: removes the test
  /// directories this run made (never anything in tree_dir). A create-only run that ended ok
  /// leaves its trees for a later run (with --keep).
  void finish(PrepareContext& ctx) override;

  [[nodiscard]] const MdtestConfig& config() const noexcept { return config_; }

 private:
  /// True in the process of mdtest rank 0, which makes and removes the test directories.
  [[nodiscard]] bool leader() const noexcept { return rank_base_ == 0; }
  /// True if mdtest rank `rank` works on the tree in a tree phase (all with -u, else rank 0).
  [[nodiscard]] bool does_tree(std::uint64_t rank) const noexcept {
    return config_.unique_dir || rank == 0;
  }
  /// The directory holding the test directories for ranks whose tree lives in target `t`.
  [[nodiscard]] ConfinedDir base_dir(std::span<const Target> targets, std::size_t t) const;
  void make_test_dirs(std::span<const Target> targets, std::uint32_t iteration) const;
  /// Every rank's made_ back to the layout's item count (a new iteration).
  void reset_made();
  /// This process's worker `worker`'s args for phase `p` (its mdtest rank, the shifted ranks, the
  /// items it acts on).
  [[nodiscard]] RankArgs rank_args(const PlannedPhase& p, std::uint64_t worker) const;
  [[nodiscard]] OwnedConfinedDir open_test_dir(std::span<const Target> targets,
                                               const PlannedPhase& p, const RankArgs& args) const;
  /// After a creation phase: false (the rest skipped) if it made fewer items than planned and no
  /// stonewall evened the workers' counts.
  bool check_created(const PlannedPhase& p, const PhaseResult& result, PrepareContext& ctx);
  void report_stonewall(const PhaseResult& result, const std::vector<RankMade>& made,
                        PrepareContext& ctx) const;
  /// paths=full, after phase `p` (untimed): every test directory's path still names the
  /// directory opened beneath the run directory (check_still_names); throws Error naming it.
  void check_test_dirs_named(const PlannedPhase& p, const PhaseResult& result,
                             PrepareContext& ctx) const;
  /// After a removal or rename phase: completes, untimed, what a limit cut short
  /// (workers.hpp complete_cut_short) and warns how much.
  void complete_cut_short(const PlannedPhase& p, const PhaseResult& result,
                          PrepareContext& ctx) const;

  MdtestConfig config_;
  std::vector<PlannedPhase> plan_;
  std::uint64_t seed_ = 0;
  /// The data pattern's seed (data_seed, or one derived from the step's seed; rank 0's under
  /// mpirun).
  std::uint32_t data_seed_ = 0;
  /// Items each rank's directory [0] and file [1] creation made this iteration: the layout's, or
  /// fewer after a stonewall (set in the runner's process, before the later phases' workers are
  /// made, forked or not). One entry per mdtest rank of every process: 8 bytes per rank, never
  /// per item.
  std::array<std::vector<std::uint64_t>, 2> made_{};
  /// mdtest rank of this process's worker 0, and the mdtest ranks of all processes (under
  /// mpirun: process rank x ranks, and ranks x processes).
  std::uint64_t rank_base_ = 0;
  std::uint64_t total_ranks_ = 1;
  /// Under mpirun, on the processes but rank 0's: rank 0's run directories, where every rank
  /// works.
  std::vector<OwnedConfinedDir> rank0_dirs_;
  OwnedConfinedDir tree_dir_;
  bool prepared_ = false;
  bool completed_ = false;  ///< after_phase ran for the last phase
};

}  // namespace iobench::plugins::mdtest
