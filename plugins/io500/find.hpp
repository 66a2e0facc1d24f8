#pragma once

// IO500's find phase: `find DIR -newer TIMESTAMP -size 3901c -name *01*` over everything the run
// wrote, counting the entries it examined and those that matched.

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <iobench/confined_dir.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "plugins/common/path_mode.hpp"
#include "plugins/io500/score.hpp"

namespace iobench::plugins::io500 {

/// The query, with find(1)'s meanings.
struct FindQuery {
  /// -newer: an entry matches when its modification time is later than this (the timestamp
  /// file's st_mtim); nullopt: no -newer test (find-easy).
  std::optional<std::timespec> newer = std::timespec{};
  /// -size 3901c: exactly this many bytes; nullopt: no -size test (find-easy).
  std::optional<std::uint64_t> size_bytes = 3901;
  std::string name_pattern = "*01*";  ///< -name: fnmatch(3) pattern on the entry's own name
};

/// What a find walk saw.
struct FindCount {
  std::uint64_t scanned = 0;  ///< entries examined below the root (files, directories, others)
  std::uint64_t matched = 0;  ///< entries matching all three tests
};

/// One of `parts` shares of a walk, for a find parallel across ranks (under mpirun each process
/// walks one): the part tests the k-th entry of every directory (in readdir's order, which is the
/// same for every process while nothing changes the tree) when k mod parts == index, and walks
/// into every directory, so the parts' counts add up to the whole walk's.
struct FindPart {
  std::uint64_t index = 0;
  std::uint64_t parts = 1;
};

/// Walks the tree under `root` (symbolic links not followed, as find without -L: no directory is
/// opened through a link as its last component, O_NOFOLLOW) and tests every entry below it of
/// `part`'s share with `query`; the root itself is not counted. `paths` says how entries are
/// named, and both walks count the same: PathMode::kDirfd, each directory opened relative to its
/// parent's (openat) and each entry stat'ed relative to its directory (fstatat), the kernel
/// resolving one component per call, depth not limited by PATH_MAX; PathMode::kFull, as IO500's
/// pfind, each directory opened and each name-matching entry lstat()ed by its whole path from
/// `root` as given (root/dir/.../name), the kernel resolving every component each time, so a
/// directory above the last component that is moved or replaced during the walk is followed
/// (the caller trusts the path, check_full_paths_trusted()); an entry whose type readdir does
/// not give is fstatat()ed on its directory, as pfind does; paths of PATH_MAX bytes or more fail
/// with ENAMETOOLONG. Both build each path in one buffer per walk, the directory's path with
/// the entry's name appended and trimmed back (no allocation per entry). A root that is a
/// symbolic link or not a directory is refused. Throws IoError naming the directory or entry that
/// could not be read (an entry removed during the walk is skipped), Error for a part that does not
/// exist. The root is opened by `root` (as pfind opens its root), in either mode.
[[nodiscard]] FindCount find_matches(const std::filesystem::path& root, const FindQuery& query,
                                     const FindPart& part = {}, PathMode paths = PathMode::kDirfd);

/// As find_matches() above, over the directory `rel` ("." for `dir` itself) beneath the directory
/// `dir` holds open (io500: its data directory), its path (and every entry's) shown below
/// dir.shown(rel). PathMode::kDirfd opens the root relative to dir's descriptor, beneath it and
/// never through a link (ConfinedDir::try_open_dir), as every other dirfd op, so a path of `dir`
/// moved or replaced since it was opened is never followed; PathMode::kFull opens it by its whole
/// path, as pfind does.
[[nodiscard]] FindCount find_matches(const ConfinedDir& dir, std::string_view rel,
                                     const FindQuery& query, const FindPart& part = {},
                                     PathMode paths = PathMode::kDirfd);

/// The find phase's figure: kIOPS of entries examined over `seconds` (IO500 rates find by the
/// entries it went through, not by its matches); not valid when nothing matched, as IO500.
/// `name`: the phase's, "find" or the extended "find-easy".
[[nodiscard]] PhaseFigure find_figure(const FindCount& count, double seconds,
                                      std::string_view name = "find");

}  // namespace iobench::plugins::io500
