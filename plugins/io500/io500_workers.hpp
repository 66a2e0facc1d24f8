#pragma once

// The workers of the io500 workload's phases: IOR's easy (file per rank, 2 MiB transfers) and
// hard (one shared file, 47008-byte interleaved transfers) writes and reads, mdtest's easy
// (empty files, a directory per rank) and hard (3901-byte files, one shared directory) phases,
// and the find.

#include <cstdint>
#include <ctime>
#include <iobench/confined_dir.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/io500/find.hpp"
#include "plugins/io500/io500_config.hpp"

namespace iobench::plugins::io500 {

/// Counter 0 of every phase: transfers or items the worker completed (find: entries examined).
inline constexpr CounterId kDoneCounter = 0;
/// Counter 1 of the find phase: entries that matched.
inline constexpr CounterId kMatchedCounter = 1;
/// Counter 1 of the read phases that check what they read (ior-easy-read, ior-hard-read,
/// mdtest-hard-read): the transfers (mdtest-hard-read: files) whose bytes were not the pattern
/// their owner wrote (plugins/common/ior_data_pattern.hpp), IOR's -R and mdtest's -X error count.
inline constexpr CounterId kMismatchCounter = 1;
/// Counters 1 and 2 of the ior write phases: the transfers done when the worker first saw the
/// stonewall (the runner's wear-out beginning; all of them if it never did) and the nanoseconds
/// from its first transfer to then (0 if it never did).
inline constexpr CounterId kAtStonewallCounter = 1;
inline constexpr CounterId kStonewallNsCounter = 2;

/// Names beneath the data directory (mdtest's and IOR's own names). mdtest -d DIR works in
/// DIR/test-dir.<iteration>-<loop>, test-dir.0-0 for IO500's one iteration: the easy ranks' trees
/// (-u) are mdtest-easy/test-dir.0-0/mdtest_tree.<rank>.0, the hard one's shared tree
/// mdtest-hard/test-dir.0-0/mdtest_tree.0.
[[nodiscard]] std::string ior_easy_file(std::uint32_t rank);
inline constexpr const char* kIorHardFile = "ior-hard/file";
inline constexpr const char* kMdtestTestDir = "test-dir.0-0";
[[nodiscard]] std::string mdtest_easy_dir(std::uint32_t rank);
inline constexpr const char* kMdtestHardDir = "mdtest-hard/test-dir.0-0/mdtest_tree.0";

/// What one worker of one phase does.
struct RankJob {
  Io500Phase phase = Io500Phase::kIorEasyWrite;
  std::uint32_t rank = 0;   ///< this worker's rank
  std::uint32_t owner = 0;  ///< the rank whose files it writes or reads (the rank shift)
  std::uint32_t ranks = 1;
  /// Write phases: transfers or items to do at most; the others: what `owner` wrote.
  std::uint64_t count = 0;
  ConfinedDir data;  ///< the data directory (the workload owns the descriptor)
  /// find, find-easy: the walk's root beneath `data` ("." for find, "mdtest-easy" for find-easy)
  std::string find_root;
  std::timespec newer{};   ///< find: the timestamp file's modification time
  std::uint64_t seed = 0;  ///< ior-rnd4K-easy-read: the worker's seed for its read order
  /// ior-easy, ior-hard and mdtest-hard phases: the seed of the IOR data pattern the write phase
  /// writes as `owner` and the read phase checks against `owner`'s (pattern_seed()).
  std::uint32_t pattern_seed = 0;
  FindPart find_part{};  ///< find, find-easy: this process's share of the walk (under mpirun)
  /// The mdtest phases and find (param paths): kFull (the param's default), each file named by
  /// its whole path from the target as given (data.path() / the phase's directory / the name), as
  /// IO500's mdtest and pfind do; kDirfd, *at calls on the open directories.
  PathMode paths = PathMode::kFull;
};

/// IO500's name of a phase ("ior-easy-write", the extended "find-easy").
[[nodiscard]] std::string_view phase_name(Io500Phase phase) noexcept;

/// The op names a phase records (op 0 is its transfer or item op; the ior writes' op 1 is their
/// closing fsync, the mdtest writes' their closing sync).
[[nodiscard]] std::vector<std::string> phase_op_names(Io500Phase phase);

/// Whether a phase checks every byte it reads against its owner's pattern (ior -R, mdtest -X)
/// and counts the transfers or files that differ (kMismatchCounter).
[[nodiscard]] bool checks_pattern(Io500Phase phase) noexcept;

/// The worker of `job`. Its run() throws IoError naming the path at the first failed call.
/// An mdtest phase opens its directory beneath `data` here, untimed (IoError if it cannot); with
/// PathMode::kFull it also checks here that the directory's whole path names it (full_prefix():
/// same device and inode; Error if not), and its run() makes per
/// file the calls IO500's mdtest makes by that path: open(O_CREAT | O_EXCL | O_WRONLY |
/// O_NOFOLLOW) + pwrite + close, stat, open(O_RDONLY) + pread + close, unlink; the path is built
/// in a reused buffer (no allocation per file).
[[nodiscard]] std::unique_ptr<PhaseWorker> make_io500_worker(RankJob job);

}  // namespace iobench::plugins::io500
