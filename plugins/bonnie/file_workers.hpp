#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/workload.hpp>
#include <memory>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/spec_parser.hpp"

namespace iobench::plugins::bonnie {

/// What one copy's file-test worker needs.
struct FileArgs {
  /// The copy's test directory (created by the create phases, removed by the delete phases).
  std::filesystem::path test_dir;
  FileSpec spec;
  std::uint64_t seed = 0;  ///< names, sizes and random orders
  bool fsync = false;  ///< bonnie++ -b: fsync file and directory per create, directory per unlink
};

/// Op ids of the file phases: one op per file (create, stat, delete).
inline constexpr OpId kFileOp = 0;

/// Builds the worker of file phase `id` (seq_create .. ran_del) for one copy.
/// Untimed (make_worker): the create phases make the test directory (0700) and its "%05d"
/// subdirectories; with fsync every directory is opened for fsync(2).
/// Timed (run), as bonnie++ 1.96-2.00a does it:
/// - create: for i = 0..N-1 in index order open(O_CREAT|O_EXCL|O_WRONLY|O_NOFOLLOW) the name
///   relative to the test directory (sequential or random form, see FileNamer), write its size in
///   chunk pieces, [fsync file and directory], close; links/symlinks to file 0 instead when the
///   spec says so; then sync(2). One op per file.
/// - seq_stat: per directory opendir + readdir; per entry stat(2), and if it has data open,
///   read it in chunk pieces, close. One op per file, readdir included. Fails if the count is not
///   N.
/// - seq_del: per directory readdir + unlink [+ fsync directory]; rmdir the subdirectories and
///   the test directory; sync(2). Fails if the count is not N.
/// - ran_stat / ran_del: the same per file in a pseudo-random order of all N names (a different
///   order for each), then for ran_del the rmdirs and sync(2).
/// NOTE: symlinks point to file 0 through "../00000/<name>" when there are subdirectories;
/// bonnie++ 2.00a links to the bare name, which dangles outside directory 00000, so its stat
/// phase fails ("Can't stat file").
/// Throws IoError.
[[nodiscard]] std::unique_ptr<PhaseWorker> make_file_worker(PhaseId id, const FileArgs& args);

}  // namespace iobench::plugins::bonnie
