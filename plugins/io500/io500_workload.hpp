#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/io500/find.hpp"
#include "plugins/io500/io500_config.hpp"

namespace iobench::plugins::io500 {

/// What rank 0 sends the other processes in io500's prepare(), in its one from_rank0() call: the
/// timestamp file's time (find's -newer; every process derives the pattern seeds from it) and the
/// name of its run directory (plugins::run_dir_names() of the one target), where every rank works.
struct Io500Setup {
  std::timespec newer{};
  std::string names;  ///< "NAME\n"
};
/// `setup` as text: "SEC NSEC\n" (decimal) then the names.
[[nodiscard]] std::string encode_io500_setup(const Io500Setup& setup);
/// encode_io500_setup()'s text back, strictly, as a message cut short or garbled between the
/// processes must not read as another time or directory: throws one Error, naming the expected
/// form and what is wrong, for a text without a newline after the time, a time that is not two
/// decimals ("SEC NSEC", seconds from 0, nanoseconds 0..999999999) separated by one space, or
/// names plugins::dir_names_problem() refuses or other than one (the names decoder mdtest and
/// disk's shared_file use). Quoted parts are shown through printable() in at most 64 bytes.
[[nodiscard]] Io500Setup decode_io500_setup(std::string_view text);

/// paths=full: the longest path io500's mdtest phases and find name (at most; the PATH_MAX check,
/// check_full_path_length()): `run_dir` (longest_run_dir_path() of the target) / "datafiles" /
/// the longer of an mdtest-easy file ("mdtest-easy/test-dir.0-0/mdtest_tree.<rank>.0/
/// file.mdtest.<rank>.<n>") and an mdtest-hard file ("mdtest-hard/test-dir.0-0/mdtest_tree.0/
/// file.mdtest.<rank>.<n>"), with the highest rank of `total_ranks` (every process's) and the
/// highest item number of each. find walks the same tree (and the ior files' shorter paths).
[[nodiscard]] std::string longest_full_path(const Io500Config& c, std::string_view run_dir,
                                            std::uint64_t total_ranks);

/// Before a paths=full run writes anything: throws ConfigError if longest_full_path() for
/// `target` does not fit PATH_MAX with its NUL (check_full_path_length(), naming the target,
/// the item counts and ranks, per process and in all, and the fix: paths=dirfd or a shorter
/// target). `processes`: the run's processes (mpirun_processes()), each with c.ranks ranks;
/// above 1, the run directory is another process's, named with the longest pid
/// (longest_run_dir_path()). Nothing to check with paths=dirfd.
void check_full_path_length(const Io500Config& c, const std::filesystem::path& target,
                            std::uint32_t processes);

/// The io500 workload: the list's twelve phases in its order (kPhaseOrder), each a measured
/// phase of `ranks` workers (find: one), in "datafiles" of the target's run directory. Untimed
/// in prepare(): the timestamp file "timestampfile" (its time set one second back, so that
/// nothing the run writes is as old as it on a coarse-clocked file system), the phases'
/// directories and the ior-hard shared file. The write phases stop at the stonewall time and
/// then wear out (PhaseSpec::wear_out: each rank on to the most transfers or items any rank had
/// done, IOR's stoneWallingWearOut=1, mdtest's -W with its stonewall file) and after_phase()
/// reports the ior ones' stonewall figures; each later phase
/// acts on what its write phase left: rank r on rank (r + 1) mod ranks's files (the rank shift that
/// keeps a rank from reading its own page cache), for as many transfers or items as that rank
/// completed. The ior and mdtest-hard writes write IOR's data pattern
/// (plugins/common/ior_data_pattern.hpp, one seed per group from the timestamp, attributes
/// "pattern_seed.<group>"); ior-easy-read, ior-hard-read and mdtest-hard-read check every word they
/// read against it inside their time (ior -R, mdtest -X) and count the transfers or files that
/// differ (counter "mismatches"), which makes the phase not valid. The mdtest writes end with
/// sync(2) inside their time (mdtest -Y). find runs `-newer timestampfile -size 3901c -name *01*`
/// over the data directory. With extended (IO500's
/// --mode=extended), find-easy (`-name *01*` over the mdtest-easy tree) runs after
/// mdtest-easy-write and ior-rnd4K-easy-read (random 4 KiB reads of the ior-easy files, stonewall
/// and wear-out) last; the score never counts them.
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
  /// Before a phase that reads what the writes left, with cache_proof (IO500's drop-caches): the
  /// page cache is dropped here, untimed, and the "cache_proof" attribute says what was done;
  /// with checkpoint, before every phase the journal goes home first (checkpoint_before()).
  /// After a write phase: keeps what each rank completed, for the phases that act on it; after an
  /// ior write phase its stonewall cut short, the attributes "stonewall_bytes.<phase>",
  /// "stonewall_s.<phase>", "throughput_stonewall_gib_s.<phase>" and the text "stonewall.<phase>".
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override;

 private:
  /// The pattern seed of the files `phase` writes or reads (0 for phases without data).
  [[nodiscard]] std::uint32_t seed_of(Io500Phase phase) const noexcept;
  /// cache_proof: drops the page cache before `next` (root only), noting what happened.
  void drop_before(Io500Phase next, PrepareContext& ctx);
  /// checkpoint: rank 0's process freezes and thaws the target's file system before `next`,
  /// noting what happened; after a failure it is not tried again.
  void checkpoint_before(Io500Phase next, PrepareContext& ctx);
  /// The "cache_proof" attribute: the rank shift, the phases the cache was dropped before, and
  /// those it was not, with why (not root, or the error).
  void describe_cache_proof(PrepareContext& ctx) const;

  /// Rank 0's part of prepare(): the timestamp file and the data directory with its phases'
  /// directories and the shared file. Returns the timestamp file's time.
  [[nodiscard]] std::timespec make_data(const ConfinedDir& run_dir) const;

  Io500Config config_;
  std::vector<Io500Phase> plan_;           ///< the phases run, in order (phases() names them)
  std::vector<std::string> dropped_;       ///< cache_proof: phases the cache was dropped before
  std::vector<std::string> not_dropped_;   ///< cache_proof: "before <phase>: <why not>"
  std::vector<std::string> checkpointed_;  ///< checkpoint: phases the journal went home before
  std::string checkpoint_failed_;          ///< checkpoint: "before <phase>: <why not>", once
  /// IO500 rank of this process's worker 0, every process's ranks, and the read phases' shift.
  std::uint32_t rank_base_ = 0;
  std::uint32_t total_ranks_ = 1;
  std::uint32_t shift_ = 1;
  FindPart find_part_{};
  /// Under mpirun, on the processes but rank 0's: rank 0's run directory.
  std::vector<OwnedConfinedDir> rank0_dirs_;
  OwnedConfinedDir data_;
  std::timespec newer_{};
  /// The data pattern's seeds of ior-easy, ior-hard and mdtest-hard (set in prepare()).
  std::array<std::uint32_t, 3> seeds_{};
  /// Per write phase (indexed by Io500Phase), what each rank completed.
  std::array<std::vector<std::uint64_t>, kAllPhaseCount> done_{};
};

}  // namespace iobench::plugins::io500
