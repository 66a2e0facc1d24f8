#pragma once

#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>

#include "plugins/mdtest/config.hpp"
#include "plugins/mdtest/tree_layout.hpp"

namespace iobench::plugins::mdtest {

/// Op ids of every phase: one op kind per phase (its phase's verb).
inline constexpr OpId kItemOp = 0;
/// Counter of items (or tree directories) a phase's worker completed.
inline constexpr CounterId kItemsDoneCounter = 0;
/// Creation phases with the stonewall (-W): the items the worker had made when the runner's
/// wear-out began (all it made if it never began), and ns from its first op to that moment (0:
/// it never began for this worker).
inline constexpr CounterId kItemsAtStonewallCounter = 1;
inline constexpr CounterId kStonewallNsCounter = 2;
/// The file read with verify_read (-X): files whose bytes read were not the pattern their writer
/// wrote.
inline constexpr CounterId kMismatchesCounter = 1;

/// What one rank's worker of one phase acts on.
struct RankArgs {
  PhaseKind kind;
  /// The iteration's test directory "test-dir.<i>-0" (set by make_rank_worker).
  ConfinedDir test_dir;
  const MdtestConfig* config;
  /// The rank whose items this worker names ("file.mdtest.<name_rank>.<n>") and the rank whose
  /// tree it works in (with -u; the shared tree otherwise), after the -N shift of its phase.
  std::uint64_t name_rank;
  std::uint64_t tree_rank;
  /// Seed of the random stat/read order (-R): random_seed + rank, as mdtest.
  std::uint64_t order_seed;
  /// Seed of the data pattern (IorPattern): a file creation writes rank name_rank's pattern, a
  /// read with verify_read checks that of name_rank, the rank that wrote the file (mdtest -X's
  /// "pretend rank").
  std::uint32_t data_seed;
  /// Items of the rank this phase acts on: the layout's items, or after a creation the
  /// stonewall ended, the count every worker made (mdtest's o.items = max_iter); the first ones in
  /// tree order (with branch <= 1, as -W requires, item order too). Unused by the tree phases.
  std::uint64_t item_count;
};

/// The rank shift of a phase (mdtest_iteration): create 0, stat and rename 1, read 2, remove 3;
/// with -u the tree is one further ((r + (step+1)N) mod ranks, unique_chdir_dir & co.).
[[nodiscard]] std::uint32_t shift_step(PhaseKind kind) noexcept;

/// The worker of `args.kind` for one rank: creates, stats, reads, renames or removes its items,
/// one op each, timed; the tree phases make or remove every directory of the rank's (or the
/// shared) tree. Throws IoError naming the path at the first failed call (the phase fails with
/// the ops done so far). `test_dir` is the iteration's test directory "test-dir.<i>-0", opened
/// beneath the run directory (or the earlier run's tree_dir); the worker owns it.
///
/// With config->paths == PathMode::kFull every item and tree op names its item by the whole path
/// test_dir.path() / tree directories / name (test_dir.path() is the target as the user gave it
/// joined with the run directory's and the test directory's names), with the calls mdtest's POSIX
/// backend makes: mkdir, stat, rename, rmdir, open(O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW) +
/// write + close, open(O_RDONLY) + read + close, unlink. Before that, untimed (when the worker is
/// made), the worker checks that test_dir.path() names the directory `test_dir` holds (full_prefix
/// in plugins/common/path_mode.hpp: same device and inode) and throws Error if not; during the
/// phase the path is trusted, as mdtest trusts it (the workload's factory refused a path others
/// could change, and after_phase() checks it again). The
/// untimed completions (complete_cut_short) always act by descriptor.
///
/// Every created file holds its writer's data pattern (IorPattern of name_rank and data_seed, as
/// mdtest writes its buffer). With verify_read the file read checks every byte it reads against
/// the pattern of name_rank, the file's writer; it reads all of its items still, counts the
/// files that differ (kMismatchesCounter) and then throws Error naming how many, the first such
/// file and its first differing byte offset: the phase fails, and the other workers stop at their
/// next item (so `mismatches` counts the files checked until then).
[[nodiscard]] std::unique_ptr<PhaseWorker> make_rank_worker(const RankArgs& args,
                                                            OwnedConfinedDir test_dir);

/// The worker of a tree phase on a process whose ranks do not work on the shared tree (under
/// mpirun, every process's but rank 0's): it does nothing, and reports 0 items.
[[nodiscard]] std::unique_ptr<PhaseWorker> make_idle_worker();

/// Untimed, after a phase a time or op limit cut short once its worker had done `done` items:
/// a removal (directory, file or tree) removes the rest, from the `done`-th on in the phase's
/// order, so that the tree removal finds its directories empty (mdtest's removal always removes
/// every item); a rename moves the item it set aside ("<item 0>-XX") to the one name missing
/// (that of item done-1), so that every item name exists again for the phases after it. Throws
/// IoError naming the path at the first failed call.
void complete_cut_short(const RankArgs& args, OwnedConfinedDir test_dir, std::uint64_t done);

/// The item order of a random stat or read (-R): a Fisher-Yates permutation of 0 .. count-1 from
/// `seed` (8 bytes per item).
[[nodiscard]] std::vector<std::uint64_t> random_order(std::uint64_t count, std::uint64_t seed);

}  // namespace iobench::plugins::mdtest
