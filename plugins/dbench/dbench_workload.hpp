#pragma once

#include <filesystem>
#include <iobench/workload.hpp>
#include <memory>
#include <span>
#include <vector>

#include "plugins/dbench/dbench_config.hpp"
#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/replay_report.hpp"

namespace iobench::plugins::dbench {

/// Phase indexes of the dbench workload.
inline constexpr std::size_t kExecutePhase = 0;
inline constexpr std::size_t kCleanupPhase = 1;

/// The "dbench" workload: procs x clients_per_process clients replay parsed loadfiles with
/// dbench's fileio semantics (dbench.md §2.1, §3).
///
/// Phases: "execute" (measured; procs worker processes started together; warm-up then the timed
/// period; op names are dbench's table names; when pacing applies each op's latency runs from
/// its intended start and its service time, what dbench times, is the phase's latency part) and,
/// unless skip_cleanup, "cleanup" (unmeasured; every process removes its clients' directories).
/// After cleanup everything the clients created below each run directory is gone, directories
/// included (dbench itself leaves the directory skeleton). finish() repeats that removal when a
/// failure or an interruption skipped the cleanup phase.
///
/// Client c works in <run_dir>/clients/client<c> of target (c / clients_per_process) % targets
/// (for loadfiles that use dbench's \clients\client1 paths).
///
/// Differences from dbench 4.00, all deliberate: the warm-up ends at its time even if a client
/// has moved no byte yet (as later dbench versions do); every name is resolved beneath the run
/// directory by the kernel (ConfinedDir: no symbolic link followed, no '..'), and a name that
/// would leave it or meet a link stops the run with an error naming the loadfile line, whatever
/// status_mismatch says; "client1" is rewritten only in the loadfile's part of a path, not in the
/// base directory; cleanup also removes the directories; the per-client "lines" count the execute
/// period only; a second successful NTCreateX on a handle that is still open replaces it (dbench
/// keeps both; client.txt never does this); ReadX and WriteX count the bytes really moved (dbench
/// counts the sizes asked) and a short write is retried, so a full disk names its errno (ENOSPC);
/// operations that did not go as the loadfile expects (status mismatches, failed or short
/// transfers, missing handles, Deltree leftovers, xattr failures) end in a step warning with their
/// counts and the first one, in both status_mismatch modes.
///
/// Cost of confinement: each client keeps the descriptors of its recent directories
/// (ParentCache), so a path operation is one *at(2) call, as dbench's plain path call is.
class DbenchWorkload final : public Workload {
 public:
  /// `loadfiles[i]` serves processes i, i + size(), ...
  DbenchWorkload(DbenchConfig config, std::vector<std::shared_ptr<const Loadfile>> loadfiles,
                 std::size_t target_count);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  /// Nothing unless skip_cleanup: the cleanup phase removes the clients' files.
  [[nodiscard]] std::uint64_t retained_bytes(std::size_t target_index) const override;
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;
  void finish(PrepareContext& ctx) override;

  /// Whether the execute phase is paced (a target rate or timestamps), so that it records each
  /// op's latency from its intended start and its service time (PhaseSpec::latency_parts).
  [[nodiscard]] bool paced() const noexcept;

 private:
  [[nodiscard]] const Loadfile& loadfile_of(std::size_t process) const {
    return *loadfiles_[process % loadfiles_.size()];
  }
  /// Removes what the clients created below every run directory; warns about leftovers.
  void remove_client_files(PrepareContext& ctx);
  /// After the execute phase: a warning counting the operations that did not go as the loadfile
  /// expects (status mismatches, failed or short transfers, missing handles...), with the first.
  void warn_about_problems(PrepareContext& ctx) const;

  DbenchConfig config_;
  std::vector<std::shared_ptr<const Loadfile>> loadfiles_;
  std::size_t target_count_;
  bool cleaned_ = false;
  /// Shared with the forked clients (made in prepare()).
  std::unique_ptr<ReplayReportMapping> report_;
};

/// Builds a DbenchWorkload from validated params: reads and parses every loadfile (ConfigError
/// on any problem, before any I/O).
[[nodiscard]] std::unique_ptr<Workload> make_dbench_workload(const WorkloadSetup& setup);

}  // namespace iobench::plugins::dbench
