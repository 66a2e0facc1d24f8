#pragma once

// The io500 workload's settings: IO500's fixed transfer and file sizes, the sizes a run may
// change, the stonewall time of its write phases.

#include <chrono>
#include <cstdint>
#include <iobench/params.hpp>
#include <vector>

#include "plugins/common/path_mode.hpp"

namespace iobench::plugins::io500 {

inline constexpr std::uint64_t kIorEasyTransferBytes = 2 * 1024 * 1024;  ///< ior-easy -t 2m
inline constexpr std::uint64_t kIorHardTransferBytes = 47008;  ///< ior-hard -t 47008 -b 47008
inline constexpr std::uint64_t kMdtestHardFileBytes = 3901;    ///< mdtest-hard -w 3901 -e 3901

/// The params' upper bounds, so that the bytes the run plans (ranks x per-rank bytes,
/// Io500Workload's planned_bytes) stay far below 2^64: 1024 ranks x (1 PiB + 10^9 x 47008 + 10^9 x
/// 3901 bytes) is about 1.2 x 10^18 bytes.
inline constexpr std::uint64_t kMaxRanks = 1024;
inline constexpr std::uint64_t kMaxIorEasyBytes = std::uint64_t{1} << 50;  ///< 1 PiB per rank
inline constexpr std::uint64_t kMaxItemsPerRank = 1'000'000'000;  ///< segments or files per rank

/// The list's phases, in the order they run (kPhaseOrder holds their names).
enum class Io500Phase : std::uint8_t {
  kIorEasyWrite,
  kMdtestEasyWrite,
  kIorHardWrite,
  kMdtestHardWrite,
  kFind,
  kIorEasyRead,
  kMdtestEasyStat,
  kIorHardRead,
  kMdtestHardStat,
  kMdtestEasyDelete,
  kMdtestHardRead,
  kMdtestHardDelete,
  // IO500's extended phases (--mode=extended), outside the score: a find on the easy tree and
  // random 4 KiB reads of the easy files.
  kFindEasy,
  kIorRnd4kEasyRead,
};
inline constexpr std::size_t kPhaseCount = 12;     ///< the list's scored phases
inline constexpr std::size_t kAllPhaseCount = 14;  ///< with the extended phases
/// ior-rnd4K-easy-read: 4 KiB transfers (-t 4096 -b 4096), at most 10^7 of them per rank (-s).
inline constexpr std::uint64_t kRnd4kTransferBytes = 4096;
inline constexpr std::uint64_t kRnd4kMaxTransfers = 10'000'000;

/// Validated params (register.cpp's param_specs() gives each param's help).
struct Io500Config {
  std::uint32_t ranks = 2;  ///< workers of every phase but find, each an IO500 rank (threads)
  /// Each write phase stops after this long (its time limit), and must run at least this long
  /// to be valid.
  std::chrono::nanoseconds stonewall{std::chrono::seconds(300)};
  std::uint64_t ior_easy_transfers = 0;  ///< 2 MiB transfers per rank in its own file
  std::uint64_t ior_hard_segments = 0;   ///< 47008-byte transfers per rank in the shared file
  std::uint64_t mdtest_easy_items = 0;   ///< empty files per rank, in the rank's own directory
  std::uint64_t mdtest_hard_items = 0;   ///< 3901-byte files per rank, in one shared directory
  bool quick = false;                    ///< io500-quick: never valid for the list
  /// Drop the page cache (sync, /proc/sys/vm/drop_caches; root only) before every read, stat,
  /// delete and find phase; the result says what was done and, where not, why.
  bool cache_proof = false;
  /// With cache_proof: before every phase, rank 0's process freezes and thaws the target's file
  /// system (checkpoint_file_system()), so each drop also frees what the journal held.
  bool checkpoint = false;
  /// IO500's --mode=extended: the extended phases run too, reported apart from the score.
  bool extended = false;
  /// Param paths=full (the default): the mdtest phases name every file by its whole path
  /// from the target as given (open/stat/unlink of ".../datafiles/mdtest-easy/test-dir.0-0/
  /// mdtest_tree.3.0/file.mdtest.3.17"), as IO500's mdtest does, and find opens each directory and
  /// lstat()s each name-matching entry by its whole path, as IO500's pfind does. paths=dirfd:
  /// *at calls on open directories, iobench's lower-overhead way (less path lookup than
  /// io500 measures, so metadata rates and the score above the list's).
  PathMode paths = PathMode::kFull;
};

/// The params of the io500 workload.
[[nodiscard]] std::vector<ParamSpec> io500_param_specs();
/// Builds the config; throws ConfigError naming the param for an ior_easy_size below one 2 MiB
/// transfer, for checkpoint=true without cache_proof=true and for more than one target (IO500
/// writes into one data directory).
[[nodiscard]] Io500Config make_io500_config(const Params& params, std::size_t target_count);

}  // namespace iobench::plugins::io500
