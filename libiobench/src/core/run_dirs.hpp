#pragma once

#include <filesystem>
#include <iobench/workload.hpp>
#include <span>
#include <vector>

namespace iobench::detail {

/// The run's own directories: one fresh `iobench.<pid>.<random>` inside each directory target,
/// made with mkdir(2) (which fails rather than reuse an existing path). Removes them, and only
/// them, on destruction unless kept. Existing files or block devices given as targets are used
/// in place (read-only) where the workload allows it.
class RunDirs {
 public:
  /// Throws IoError if a directory cannot be created (already-created ones are removed again).
  RunDirs(std::span<const std::filesystem::path> targets, bool keep);
  RunDirs(const RunDirs&) = delete;
  RunDirs& operator=(const RunDirs&) = delete;
  ~RunDirs();

  [[nodiscard]] std::span<const Target> targets() const noexcept { return targets_; }
  /// Removes the run directories now (no-op if kept). Returns false if something could not be
  /// removed (the error is in `error`).
  bool remove(std::string& error) noexcept;

 private:
  std::vector<Target> targets_;
  bool keep_;
};

}  // namespace iobench::detail
