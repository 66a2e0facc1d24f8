#include "plugins/common/path_mode.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iobench/coordinator.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <memory>
#include <vector>

namespace iobench::plugins {
namespace {

/// Empty if `path` (lstat'ed into `st`) may stay on a paths=full path; else why not.
std::string untrusted_reason(const struct stat& st) {
  const uid_t me = ::geteuid();
  const bool owner_ok = st.st_uid == 0 || st.st_uid == me;
  if (S_ISLNK(st.st_mode)) {
    if (owner_ok) return {};
    return fmt::format("is a symbolic link owned by uid {} (neither root nor you, uid {})",
                       st.st_uid, me);
  }
  if (!S_ISDIR(st.st_mode)) return {};
  if (!owner_ok) {
    return fmt::format("is owned by uid {} (neither root nor you, uid {})", st.st_uid, me);
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    return fmt::format("is writable by {} (mode {:04o}, not sticky)",
                       (st.st_mode & S_IWOTH) != 0 ? "others" : "its group", st.st_mode & 07777);
  }
  return {};
}

/// `path` and each of its ancestors, from "/" down (the path absolute).
std::vector<std::filesystem::path> walk_down(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> out;
  std::filesystem::path cur;
  for (const std::filesystem::path& part : path) {
    if (part.empty() || part == ".") continue;
    cur /= part;
    out.push_back(cur);
  }
  return out;
}

}  // namespace

const char* path_mode_name(PathMode mode) noexcept {
  return mode == PathMode::kFull ? "full" : "dirfd";
}

PathMode path_mode_of(std::string_view value) noexcept {
  return value == "dirfd" ? PathMode::kDirfd : PathMode::kFull;
}

void check_full_paths_trusted(const std::filesystem::path& dir, std::string_view param) {
  std::error_code ec;
  std::vector<std::filesystem::path> to_check = walk_down(std::filesystem::absolute(dir, ec));
  const std::unique_ptr<char, decltype(&std::free)> real(::realpath(dir.c_str(), nullptr),
                                                         &std::free);
  if (real) {
    for (std::filesystem::path& p : walk_down(real.get())) to_check.push_back(std::move(p));
  }
  for (const std::filesystem::path& p : to_check) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;  // a missing target is the runner's to report
    const std::string why = untrusted_reason(st);
    if (why.empty()) continue;
    throw ConfigError(fmt::format(
        "paths=full: {} on the path of {} {} {}: another user could move or replace it while a "
        "phase runs, and the whole-path ops (as mdtest's) would then act on another directory's "
        "files; use paths=dirfd (every op by descriptor, beneath the run directory), or a {} "
        "whose directories only root or you can change",
        p.string(), param, dir.string(), why, param));
  }
}

std::optional<std::uint32_t> mpirun_stated_processes() noexcept {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    const long long n = std::strtoll(value, nullptr, 10);
    return n > 0 && n <= UINT32_MAX ? static_cast<std::uint32_t>(n) : 0;
  }
  return std::nullopt;
}

std::uint32_t mpirun_processes() noexcept {
  if (!launched_by_mpirun()) return 1;
  const std::optional<std::uint32_t> stated = mpirun_stated_processes();
  if (!stated) return 2;
  return *stated > 0 ? *stated : 1;
}

void check_full_path_length(std::string_view longest_path, std::string_view workload,
                            std::string_view params, std::string_view fix) {
  constexpr auto kPathMax = static_cast<std::size_t>(PATH_MAX);
  const std::size_t bytes = longest_path.size();
  if (bytes < kPathMax) return;  // with its NUL, PATH_MAX bytes at most
  throw ConfigError(fmt::format(
      "{}: paths=full with {}: the longest path this run's ops would name is {} bytes, {} with "
      "its terminating NUL, over the kernel's PATH_MAX of {} bytes (at most {} bytes and the "
      "NUL), so its ops would fail with ENAMETOOLONG part-way through, after making part of the "
      "tree; use paths=dirfd (each op on its open directory, no path length limit), {}. The "
      "path: {}",
      workload, params, bytes, bytes + 1, kPathMax, kPathMax - 1, fix,
      printable(longest_path, 200)));
}

void check_still_names(const ConfinedDir& dir, std::string_view when) {
  const std::string path = dir.path().string();
  struct stat named {};
  struct stat held {};
  if (::stat(path.c_str(), &named) != 0) {
    throw IoError(errno, fmt::format("stat (paths=full: {})", when), path);
  }
  if (::fstat(dir.fd(), &held) != 0) throw IoError(errno, "fstat", path);
  if (named.st_dev != held.st_dev || named.st_ino != held.st_ino) {
    throw Error(fmt::format(
        "paths=full: {} no longer names the test directory this run opened (checked {}: a "
        "component of the path was moved or replaced); use paths=dirfd to work by descriptor",
        path, when));
  }
}

std::string full_prefix(const ConfinedDir& dir) {
  check_still_names(dir, "before the phase");
  std::string prefix = dir.path().string();
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  return prefix;
}

}  // namespace iobench::plugins
