// How the metadata workloads (mdtest, io500's mdtest phases and find) name the items they act on,
// and the checks that make naming them by whole path safe enough to do.

#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/confined_dir.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace iobench::plugins {

/// How an item or tree op names what it acts on (param paths=full|dirfd of mdtest and io500).
enum class PathMode : std::uint8_t {
  /// By its whole path from the rank's working directory, as mdtest 4's POSIX backend and IO500's
  /// pfind do: the target as the user gave it, the run directory, the test directory, the tree
  /// directories and the item's name, so the kernel resolves every component on every op
  /// (stat(2), open(2), mkdir(2)...). The path is trusted during each phase (see
  /// check_full_paths_trusted() and check_still_names()).
  kFull,
  /// iobench's lower-overhead way: one *at call (fstatat, openat, mkdirat...) on a descriptor of
  /// the item's open directory, so the kernel resolves the last component only, beneath the run
  /// directory (ConfinedDir), and the rates exclude the path lookup mdtest's include.
  kDirfd,
};

/// The param value of `mode`: "full" or "dirfd".
[[nodiscard]] const char* path_mode_name(PathMode mode) noexcept;

/// The PathMode of a validated param value: "dirfd" is kDirfd, anything else kFull (the default).
[[nodiscard]] PathMode path_mode_of(std::string_view value) noexcept;

/// Before a paths=full run writes anything: checks every directory on the path of `dir` (a
/// target, or mdtest's tree_dir), both as given (made absolute from the working directory) and
/// as resolved (realpath(3)), from / down to `dir`. Each must be owned by root or the running
/// user (effective uid) and not writable by group or others unless sticky (as /tmp); a symbolic
/// link on the path as given must be owned by root or the user. Else another user could move or
/// replace a directory while a phase runs, and the whole-path ops would act elsewhere. Throws
/// ConfigError naming the directory (`param`, e.g. "target" or "tree_dir", says which path) and
/// the fix (paths=dirfd). Components that do not exist (yet) are left to the run to report.
void check_full_paths_trusted(const std::filesystem::path& dir, std::string_view param);

/// The number of processes mpirun's environment states: the first of OpenMPI's
/// OMPI_COMM_WORLD_SIZE and MPICH's PMI_SIZE that is set, read as a decimal number; 0 when that
/// value is not a number from 1 to UINT32_MAX; nullopt when neither is set (not under mpirun, or
/// a PMIx-only launch). Unlike mpirun_processes() it does not ask launched_by_mpirun(): MPICH's
/// hydra sets PMI_SIZE for processes that iobench runs as single-process runs, each still one of
/// several on the machine (what disk's destructive= check needs to know).
[[nodiscard]] std::optional<std::uint32_t> mpirun_stated_processes() noexcept;

/// The processes mpirun started for this run (mpirun_stated_processes()): 1 when not under
/// mpirun (launched_by_mpirun()) or when the stated number is not one; under it when neither
/// variable says (a PMIx-only launch), 2: at least one other process, which made the run
/// directory (an undercount of the ranks beyond that).
[[nodiscard]] std::uint32_t mpirun_processes() noexcept;

/// Before a paths=full run writes anything: throws ConfigError if `longest_path`, the longest
/// path the run's ops will name (computed by the workload from its params), does not fit in
/// PATH_MAX bytes with its terminating NUL (4095 bytes fit, 4096 do not), as the kernel then
/// refuses it with ENAMETOOLONG part-way through a phase, after part of the tree was made. The
/// message begins with `workload` ("mdtest"), names `params` (e.g. "target=DIR depth=40
/// branch=1") and the length and limit, and gives the fix: paths=dirfd, or `fix` (e.g. "a smaller
/// depth (mdtest -z) or a shorter target").
void check_full_path_length(std::string_view longest_path, std::string_view workload,
                            std::string_view params, std::string_view fix);

/// Checks, untimed, that dir.path() names the very directory `dir` holds open (stat(2) of the
/// path against fstat(2) of the descriptor: the same device and inode). Throws IoError if the path
/// cannot be stat'ed, Error naming the path if it names another directory (a component of it was
/// moved or replaced); `when` says when the check ran (e.g. "before the phase", "after 'File
/// stat'").
void check_still_names(const ConfinedDir& dir, std::string_view when);

/// The whole-path prefix of paths=full ops in `dir`: dir.path() with one '/' after it, after
/// check_still_names(dir, "before the phase") (throws as it does). Untimed, once per phase.
[[nodiscard]] std::string full_prefix(const ConfinedDir& dir);

}  // namespace iobench::plugins
