#pragma once

// Rank 0's run directories under mpirun, for the families whose ranks all work in them (mdtest's
// one test directory, io500's one data directory, disk's shared_file): rank 0 sends their names
// to the other processes (PrepareContext::from_rank0), which decode them strictly and open them
// beneath their own targets. One decoder for all: a message cut short or garbled between the
// processes must never read as fewer names or as a path that leaves the target.

#include <iobench/confined_dir.hpp>
#include <iobench/worker_context.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins {

/// The names of rank 0's run directories of `targets`, one a line in target order, every line
/// ending in a newline: what rank 0 sends the other processes.
[[nodiscard]] std::string run_dir_names(std::span<const Target> targets);

/// Whether `name` is one directory's name as rank 0 sends it: not empty, not "." or "..", no
/// '/' and no NUL in it.
[[nodiscard]] bool is_one_dir_name(std::string_view name) noexcept;

/// What is wrong with `text` as run_dir_names()'s text, or "" if nothing: no name at all ("no run
/// directory name (cut short)"), a last name without its newline ("the last run directory name
/// 'X' has no newline (cut short)"), an empty name ("run directory name N is empty") or one that
/// is not one directory's name ("run directory name N 'X' is not one directory's name"); X is
/// shown through printable() in at most 64 bytes (a longer one cut in the middle).
[[nodiscard]] std::string dir_names_problem(std::string_view text);

/// run_dir_names()'s text back, strictly (dir_names_problem()), with exactly `count` names (one
/// per target). Throws Error "`who`: rank 0's run directory names are not 'NAME\n...' (...):
/// PROBLEM" for a text dir_names_problem() refuses or with another count of names.
[[nodiscard]] std::vector<std::string> decode_dir_names(std::string_view text, std::size_t count,
                                                        std::string_view who);

/// Every target's run directory of rank 0, named in `names` (run_dir_names()'s text, decoded by
/// decode_dir_names() with `who` in its errors), opened beneath the target the user named,
/// never through a link. Throws Error for a malformed text and IoError naming the path when a
/// directory cannot be opened (ENOENT: the ranks do not name the same directory or do not see
/// one file system; `shared` says what the ranks share there, "mdtest's ranks share one test
/// directory").
[[nodiscard]] std::vector<OwnedConfinedDir> open_rank0_dirs(std::span<const Target> targets,
                                                            std::string_view names,
                                                            std::string_view who,
                                                            std::string_view shared);

}  // namespace iobench::plugins
