#pragma once

#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <vector>

#include "plugins/mdtest/config.hpp"

namespace iobench::plugins::mdtest {

/// The mdtest workload: mdtest 4's phases (config.hpp PhaseKind), each its own measured phase,
/// iteration after iteration, by `ranks` workers, worker r being mdtest's rank r. Each iteration
/// works in "test-dir.<i>-0" in the run directory of its target (or of an earlier run, tree_dir),
/// made untimed before the iteration and removed after its tree removal, as mdtest does.
/// The tree phases are one worker (rank 0) on the shared tree, `ranks` workers with -u.
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
  /// Opens tree_dir (when given), makes the first iteration's test directory, and sets the
  /// attributes the mdtest formatter prints (tasks, items, tree shape).
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  /// Between iterations: removes the test directory of the iteration that ended with its tree
  /// removal and makes the next one's. After a create phase that a time or op limit cut short:
  /// the phases after it are skipped (they would look for items that were never made).
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;
  /// After a failure, an interruption or a skip, and after a run with remove: removes the test
  /// directories this run made (never anything in tree_dir). A create-only run that ended ok
  /// leaves its trees for a later run (with --keep).
  void finish(PrepareContext& ctx) override;

  [[nodiscard]] const MdtestConfig& config() const noexcept { return config_; }

 private:
  /// The directory holding the test directories for ranks whose tree lives in target `t`.
  [[nodiscard]] ConfinedDir base_dir(std::span<const Target> targets, std::size_t t) const;
  void make_test_dirs(std::span<const Target> targets, std::uint32_t iteration) const;

  MdtestConfig config_;
  std::vector<PlannedPhase> plan_;
  std::uint64_t seed_ = 0;
  OwnedConfinedDir tree_dir_;
  bool prepared_ = false;
  bool completed_ = false;  ///< after_phase ran for the last phase
};

}  // namespace iobench::plugins::mdtest
