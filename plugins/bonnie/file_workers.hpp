#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/data_pattern.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/spec_parser.hpp"

namespace iobench::plugins::bonnie {

/// What one copy's file-test worker needs.
struct FileArgs {
  /// The run directory the copy's test directory is in.
  ConfinedDir run_dir;
  /// The copy's test directory's name in `run_dir` (created by the create phases, removed by the
  /// delete phases).
  std::string test_name;
  /// Its path, for messages.
  std::filesystem::path test_dir;
  FileSpec spec;
  std::uint64_t seed = 0;  ///< names, sizes and random orders
  bool fsync = false;  ///< bonnie++ -b: fsync file and directory per create, directory per unlink
  /// Stat and delete phases: files 0 .. existing-1 exist (in index order), what the create phase
  /// before them really made: all N of the spec, or fewer when a time or op limit ended it.
  std::uint64_t existing = 0;
  /// The created files' data, chunk by chunk (DataPattern::Kind::kBonnie: zeros, bonnie++'s
  /// fresh buffer).
  DataPattern data{DataPattern::Kind::kBonnie, 0};
  /// The worker's context, whose stop_requested() the set-up loops check (null: never stopped).
  const WorkerContext* ctx = nullptr;
};

/// Op ids of the file phases: one op per file (create, stat, delete).
inline constexpr OpId kFileOp = 0;
/// Counter of the create phases: files the worker made, those of a warm-up included (added when
/// its run() ends, after any reset of the recorded figures), so that the phases after it know
/// which files exist (BonnieWorkload::after_phase).
inline constexpr CounterId kFilesCreatedCounter = 0;

/// Builds the worker of file phase `id` (seq_create .. ran_del) for one copy.
/// Untimed (make_worker): the create phases make the test directory (0700) and its "%05d"
/// subdirectories; with fsync every directory is opened for fsync(2).
/// Timed (run), as bonnie++ 1.96-2.00a does it:
/// - create: for i = 0..N-1 in index order open(O_CREAT|O_EXCL|O_WRONLY|O_NOFOLLOW) the name
///   relative to the test directory (sequential or random form, see FileNamer), write its size in
///   chunk pieces, [fsync file and directory], close; links/symlinks to file 0 instead when the
///   spec says so; then sync(2). One op per file; stops early when keep_going() turns false
///   (time or op limit). Counts the files made in kFilesCreatedCounter.
/// - seq_stat: per directory opendir + readdir; per entry stat(2), and if it has data open,
///   read it in chunk pieces, close. One op per file, readdir included. Fails if the count is not
///   `existing`.
/// - seq_del: per directory readdir + unlink [+ fsync directory]; rmdir the subdirectories and
///   the test directory; sync(2). Fails if the count is not `existing`.
/// - ran_stat / ran_del: the same per file in a pseudo-random order of the `existing` names (a
///   different order for each), then for ran_del the rmdirs and sync(2).
/// NOTE: symlinks point to file 0 through "../00000/<name>" when there are subdirectories;
/// bonnie++ 2.00a links to the bare name, which dangles outside directory 00000, so its stat
/// phase fails ("Can't stat file").
/// Confinement (deliberate differences): the test directory and its subdirectories are opened
/// once, untimed, beneath the run directory (ConfinedDir: no link followed); every per-file call
/// is then an *at(2) call on one name in its directory's descriptor that follows no link
/// (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), where bonnie++ walks "%05d/name" from its cwd. So the stat
/// phases lstat() a symlink (bonnie++ stat()s through it to the empty file 0) and read no data
/// from it; any other link met fails the phase with ELOOP.
/// Returns nullptr if the run was stopped while the directories were made (args.ctx).
/// Throws IoError.
[[nodiscard]] std::unique_ptr<PhaseWorker> make_file_worker(PhaseId id, const FileArgs& args);

}  // namespace iobench::plugins::bonnie
