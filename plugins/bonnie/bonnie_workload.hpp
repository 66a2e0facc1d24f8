#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <iobench/workload.hpp>
#include <memory>
#include <vector>

#include "plugins/bonnie/config.hpp"

namespace iobench::plugins::bonnie {

/// The bonnie++ workload: bonnie++ 1.96-2.00a's twelve tests (see phases.hpp) on `copies`
/// concurrent copies, each with its own scratch file "Bonnie.<copy>" and test directory
/// "Bonnie.<copy>.d" in its target's run directory (copy c uses target target_index_of(c,
/// targets)).
///
/// Workers: every phase has one worker per copy (worker index = copy), except seeks, which has
/// `seekers` per copy (worker index = copy x seekers + seeker), all sharing the copy's N seek
/// tickets through an atomic counter in memory shared across processes.
///
/// Worker modes follow bonnie++'s process structure, which the kernel's costs depend on: bonnie++
/// runs every test but seeks in a single-threaded process, so those phases run each copy in a
/// forked, single-threaded child (in a multi-threaded process every read(2)/write(2) takes the
/// file's reference and position lock: measured 10 % more CPU per one-byte read). bonnie++'s
/// seekers are threads of one process, so with one copy the seekers are threads; with several
/// copies (bonnie++ -p/-y: one process per copy) every seeker is a process of its own. The
/// runner's barrier before each phase is bonnie++ -y's semaphore.
///
/// Memory is constant in the number of files and seeks: names, sizes, orders and seek offsets
/// are recomputed from the seed (file_names.hpp).
class BonnieWorkload final : public Workload {
 public:
  explicit BonnieWorkload(BonnieConfig config);
  ~BonnieWorkload() override;
  BonnieWorkload(const BonnieWorkload&) = delete;
  BonnieWorkload& operator=(const BonnieWorkload&) = delete;

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  /// Nothing: bonnie++ deletes its scratch file and the files of its file tests itself.
  [[nodiscard]] std::uint64_t retained_bytes(std::size_t) const override { return 0; }
  /// Resolves the seed, sets the report attributes (report_header.hpp), adds the config's
  /// warnings, and maps the shared seek-ticket counters.
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;
  /// After a create phase: notes per copy how many files it made (the phase's
  /// "files_created" counter), which the stat and delete phases after it then expect. Deletes
  /// the scratch files after the last I/O phase of a repetition (bonnie++ deletes its file
  /// before the file tests). After a delete phase: removes what a limit left of the test
  /// directories.
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;
  /// Removes whatever a failed or interrupted run left: scratch files and test directories.
  void finish(PrepareContext& ctx) override;

  [[nodiscard]] const BonnieConfig& config() const noexcept { return config_; }

 private:
  /// Names, in copy `copy`'s run directory, of its scratch file and its test directory.
  [[nodiscard]] static std::string io_file_name(std::uint32_t copy);
  [[nodiscard]] static std::string test_dir_name(std::uint32_t copy);
  void remove_io_files(std::span<const Target> targets) const;
  /// Removes copy `copy`'s test directory and whatever is left in it (nothing if it is gone).
  void remove_test_dir(std::span<const Target> targets, std::uint32_t copy) const;

  BonnieConfig config_;
  std::uint64_t seed_ = 0;
  /// Shared anonymous mapping of one ticket counter per (repetition, copy).
  std::atomic<std::uint64_t>* tickets_ = nullptr;
  std::size_t tickets_bytes_ = 0;
  /// Per copy: files the last create phase made (files 0 .. n-1 of its names exist).
  std::vector<std::uint64_t> files_created_;
  bool prepared_ = false;  ///< prepare() ran: there may be files of ours to remove
};

}  // namespace iobench::plugins::bonnie
