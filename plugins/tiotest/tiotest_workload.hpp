#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iobench/engine.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugins/tiotest/test_hooks.hpp"
#include "plugins/tiotest/tiotest_config.hpp"
#include "plugins/tiotest/tiotest_worker.hpp"

namespace iobench::plugins::tiotest {

/// A validated tiotest workload: one run (tiotest) or a sequence of runs (a tiobench sweep),
/// sharing the I/O options and targets.
struct WorkloadPlan {
  std::vector<RunPlan> runs;
  IoOptions io;
  /// Raw mode: the targets as the user named them (opened as FileLocation::user_target, which
  /// follows the user's own symbolic link, e.g. /dev/disk/by-id/...).
  std::vector<std::filesystem::path> raw_targets;
  std::size_t target_count = 1;
  /// Attached to the step result in prepare() (e.g. tiobench's "identifier").
  std::vector<std::pair<std::string, AttributeValue>> attributes;
  /// tiobench.pl's --timeout: after a run (one sweep point, one repetition) whose wall time,
  /// set-up included, exceeds this, the later runs are skipped. 0: no limit.
  std::chrono::nanoseconds run_timeout{0};
};

/// Name of the untimed phase that lays down the files when the Write phase is skipped.
inline constexpr const char* kPreparePhaseName = "Prepare files";

/// tiotest's workload. For each run, in order: Write, Random Write, Read, Random Read (those not
/// skipped), each with `threads` workers; thread i works on its own file
/// `_tiotest[.run<r>].thr<i>` in target i % targets (round-robin), or on its region of a raw
/// target.
///
/// Files: the Write phase creates them (O_CREAT|O_EXCL|O_NOFOLLOW through the engine) and sizes
/// them with ftruncate, as tiotest does; if Write is skipped, an unmeasured phase named
/// kPreparePhaseName writes them first so the other phases read real data. In a sweep, a run's
/// files are unlinked after its last phase, to free the space for the next run (so --keep keeps
/// only the last run's files); the last run's files go with the run directory, which the runner
/// removes unless asked to keep it.
///
/// Random phases draw offsets from RandomOffsets seeded with the worker's seed
/// (WorkerContext::seed(), reported as WorkerResult::seed), which the runner derives from the
/// step seed, the phase and the worker: threads and phases get different sequences, and giving
/// the step seed again repeats them.
///
/// Data: the write phases write the `data` pattern (PatternBuffer, seeded per run and thread).
/// Consistency check: the read phases compare every block with that pattern; mismatches are
/// counted in the phase's "corrupt_blocks" counter (beside "verified_blocks") and fail the phase
/// (TiotestWorker), naming the thread, the file and the first bad offset.
class TiotestWorkload final : public Workload {
 public:
  /// REQUIRES: `plan` passed validate_plan() for each run.
  explicit TiotestWorkload(WorkloadPlan plan);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;

 private:
  struct PhaseRef {
    std::size_t run = 0;
    PhaseKind kind = PhaseKind::kWrite;
    bool measured = true;
    bool last_of_run = false;
    std::string name;
  };

  [[nodiscard]] WorkerSlot& slot(std::size_t run, std::size_t thread) const;
  [[nodiscard]] std::string file_name(std::size_t run, std::size_t thread) const;
  void remove_files(std::size_t run, PrepareContext& ctx);

  WorkloadPlan plan_;
  std::vector<PhaseRef> phase_refs_;
  std::vector<std::size_t> slot_base_;  ///< first slot of each run
  std::unique_ptr<WorkerSlot[]> slots_;
  std::vector<std::vector<FileLocation>> locations_;       ///< per run, per thread (prepare())
  std::vector<std::vector<std::filesystem::path>> files_;  ///< their paths, for messages and hooks
  const TestHooks* hooks_;
  std::uint64_t run_start_ns_ = 0;  ///< when the current run's first phase was set up
};

}  // namespace iobench::plugins::tiotest
