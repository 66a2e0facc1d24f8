#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/params.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/common/path_mode.hpp"
#include "plugins/mdtest/tree_layout.hpp"

namespace iobench::plugins::mdtest {

/// mdtest 4's phases, in its order within an iteration (src/mdtest.c mdtest_iteration).
enum class PhaseKind : std::uint8_t {
  kTreeCreate,
  kDirCreate,
  kDirStat,
  kDirRename,
  kDirRemove,
  kFileCreate,
  kFileStat,
  kFileRead,
  kFileRemove,
  kTreeRemove,
};

/// mdtest's name of a phase ("Directory creation", "File stat", "Tree removal"...), as its
/// SUMMARY tables print it.
[[nodiscard]] const char* phase_title(PhaseKind kind) noexcept;

// How item and tree ops name their items (param paths): plugins/common/path_mode.hpp.
using ::iobench::plugins::path_mode_name;
using ::iobench::plugins::PathMode;

/// One phase of the plan: which, and in which iteration (from 0).
struct PlannedPhase {
  PhaseKind kind;
  std::uint32_t iteration;
};

/// Validated parameters (see register.cpp for each param's help and its mdtest flag).
struct MdtestConfig {
  std::uint32_t ranks = 1;          ///< workers per phase, each an mdtest rank
  bool threads = false;             ///< workers are threads (else processes, as mdtest's ranks)
  std::uint32_t branch = 1;         ///< -b
  std::uint32_t depth = 0;          ///< -z
  std::uint64_t items_per_dir = 0;  ///< -I, or derived from -n
  bool unique_dir = false;          ///< -u
  bool leaf_only = false;           ///< -L
  bool files = true;                ///< file phases (not -D alone)
  bool dirs = true;                 ///< directory phases (not -F alone)
  std::uint64_t write_bytes = 0;    ///< -w
  std::uint64_t read_bytes = 0;     ///< -e
  std::uint32_t shift = 0;          ///< -N
  /// -X: the read phase checks every byte it reads against the pattern its writer wrote
  bool verify_read = false;
  /// -G: the seed of the data pattern every created file holds (IorPattern); none: derived from
  /// the step's seed (MdtestWorkload::prepare()).
  std::optional<std::uint32_t> data_seed;
  std::uint32_t iterations = 1;   ///< -i
  bool fsync = false;             ///< -y: fsync each file after writing it
  bool sync = false;              ///< -Y: sync(2) at the end of each phase, timed
  bool random = false;            ///< -R: stat and read in a random order
  std::uint64_t random_seed = 0;  ///< --random-seed (0: the step's seed)
  bool create = true;             ///< -C (with the tree creation)
  bool stat = true;               ///< -T
  bool read = true;               ///< -E
  bool rename = true;             ///< -U
  bool remove = true;             ///< -r (with the tree removal)
  /// -W: the creation phases end after this long (the runner's time limit, for every worker at
  /// once), then each worker makes items until it has as many as the most any made (the
  /// runner's wear-out); the later phases act on that count. 0: off.
  std::uint64_t stonewall_ns = 0;
  std::size_t target_count = 1;
  PathMode paths = PathMode::kFull;  ///< how item and tree ops name their items (param paths)
  /// An earlier run's directory holding test-dir.<i>-0 (phases without create); empty: the run dir.
  std::string tree_dir;

  [[nodiscard]] TreeLayout layout() const noexcept {
    return TreeLayout(branch, depth, items_per_dir, leaf_only);
  }
  /// The phases in run order, iteration after iteration.
  [[nodiscard]] std::vector<PlannedPhase> plan() const;
};

/// paths=full: the longest path an item or tree op of this run names (at most; the PATH_MAX
/// check, check_full_path_length()): `base`, the directory holding the test directories as the
/// ops name it (longest_run_dir_path() of the target, or tree_dir as given), then the last
/// iteration's test directory, the deepest tree directory (the last node, whose chain of
/// directory numbers is the longest) of the highest rank's tree and its longest item name
/// (file.mdtest.<rank>.<n> and/or dir.mdtest.<rank>.<n>, n the highest item number), or the
/// directory rename's set-aside name ("<item 0>-XX", in the first node holding items) where that
/// is longer. `total_ranks`: the mdtest ranks of every process (the highest rank's digits).
[[nodiscard]] std::string longest_full_path(const MdtestConfig& c, std::string_view base,
                                            std::uint64_t total_ranks);

/// Before a paths=full run writes anything: for each target (or tree_dir), throws ConfigError if
/// longest_full_path() does not fit PATH_MAX with its NUL (check_full_path_length(), naming the
/// target or tree_dir, depth, branch, unique_dir, items_per_dir, iterations and ranks, and the
/// fix: paths=dirfd, and a smaller depth or a shorter target, or for tree_dir, whose tree is made
/// already, a shorter tree_dir path). `processes`: the run's processes (mpirun_processes()),
/// each with c.ranks ranks; above 1, the run directory is another process's, named with the
/// longest pid (longest_run_dir_path()). Nothing to check with paths=dirfd.
void check_full_path_lengths(const MdtestConfig& c, std::span<const std::filesystem::path> targets,
                             std::uint32_t processes);

/// The params of the mdtest workload.
[[nodiscard]] std::vector<ParamSpec> param_specs();
/// Builds the config; throws ConfigError naming the param, its value and the fix for what mdtest
/// refuses (both or neither of items and items_per_dir, a depth without a branching factor, read
/// bytes above write bytes, verify_read without a file read of 1 byte or more, a shift or a shared
/// tree over several targets, a stonewall with a branching factor above 1) and for a tree too large
/// to number.
[[nodiscard]] MdtestConfig make_config(const Params& params, std::size_t target_count);

}  // namespace iobench::plugins::mdtest
