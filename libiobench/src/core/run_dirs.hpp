#pragma once

#include <cstdint>
#include <filesystem>
#include <iobench/file_util.hpp>
#include <iobench/workload.hpp>
#include <span>
#include <string>
#include <vector>

namespace iobench::detail {

/// The largest process id Linux hands out on a 64-bit kernel (PID_MAX_LIMIT, 4 x 1024 x 1024,
/// minus one): /proc/sys/kernel/pid_max is at most PID_MAX_LIMIT.
inline constexpr std::int64_t kMaxPid = 4 * 1024 * 1024 - 1;

/// The run directory's name for process `pid` and the random number `random`:
/// "iobench.<pid>.<random as 8 lower-case hex digits>" (e.g. "iobench.4242.0badf00d"). RunDirs
/// makes one such directory in each directory target, with its own pid and a fresh random
/// number (another on a name clash).
[[nodiscard]] std::string run_dir_name(std::int64_t pid, std::uint32_t random);

/// The run's own directories: one fresh `iobench.<pid>.<random>` inside each directory target,
/// made with mkdirat(2) (which fails rather than reuse an existing path) in the target opened
/// once, then opened once itself: every Target carries that descriptor (Target::run_dir), so no
/// one resolves a run directory from its path again. Removes them, and only them, through the
/// same descriptors on destruction unless kept. Existing files or block devices given as targets
/// are used in place (read-only) where the workload allows it.
class RunDirs {
 public:
  /// Throws IoError if a directory cannot be created or opened (already-created ones are removed
  /// again).
  RunDirs(std::span<const std::filesystem::path> targets, bool keep);
  RunDirs(const RunDirs&) = delete;
  RunDirs& operator=(const RunDirs&) = delete;
  ~RunDirs();

  [[nodiscard]] std::span<const Target> targets() const noexcept { return targets_; }
  /// Throws IoError (ENOENT) if a run directory is no longer the one this run made: removed
  /// (or replaced) by someone else during the run. Files still open in it would go on taking
  /// writes unnoticed, so the runner checks after every phase.
  void check_intact() const;
  /// Removes the run directories now (no-op if kept). A directory already gone is fine; one
  /// replaced by another directory of the same name is left alone. Returns false if something
  /// could not be removed (the error is in `error`).
  bool remove(std::string& error) noexcept;

 private:
  /// What the run holds open per directory target.
  struct Held {
    UniqueFd target_fd;  ///< the user's directory (O_PATH; their own link followed)
    UniqueFd run_fd;     ///< the run directory (O_RDONLY | O_DIRECTORY)
    std::string name;    ///< the run directory's name inside the user's directory
  };

  /// True if target `i`'s name still leads to the directory this run made and holds open;
  /// `err` gets fstatat's errno (ENOENT when it is gone) or 0.
  bool still_ours(std::size_t i, int& err) const noexcept;

  std::vector<Target> targets_;
  std::vector<Held> held_;  ///< parallel to targets_ (empty members for existing files)
  bool keep_;
};

}  // namespace iobench::detail
