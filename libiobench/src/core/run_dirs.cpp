#include "core/run_dirs.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/run_dir_name.hpp>
#include <random>

namespace iobench {

std::filesystem::path longest_run_dir_path(const std::filesystem::path& target,
                                           bool made_by_another_process) {
  const std::int64_t pid =
      made_by_another_process ? detail::kMaxPid : static_cast<std::int64_t>(::getpid());
  std::string name = detail::run_dir_name(pid, 0);
  name.replace(name.size() - 8, 8, 8, 'X');  // the random part, 8 hex digits
  return target / name;                      // as RunDirs joins them
}

}  // namespace iobench

namespace iobench::detail {

std::string run_dir_name(std::int64_t pid, std::uint32_t random) {
  return fmt::format("iobench.{}.{:08x}", pid, random);
}

RunDirs::RunDirs(std::span<const std::filesystem::path> targets, bool keep) : keep_(keep) {
  std::random_device entropy;
  targets_.reserve(targets.size());
  held_.reserve(targets.size());
  const auto fail = [&](int err, const char* call, const std::filesystem::path& path) {
    std::string ignored;
    remove(ignored);
    throw IoError(err, call, path.string());
  };
  for (const auto& path : targets) {
    Target target;
    target.user_path = path;
    Held held;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      target.is_existing_file = true;
      targets_.push_back(std::move(target));
      held_.push_back(std::move(held));
      continue;
    }
    // The user's directory: their own link, if they named one, is followed.
    held.target_fd = UniqueFd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!held.target_fd) fail(errno, "open directory", path);
    for (int attempt = 0;; ++attempt) {
      held.name = run_dir_name(::getpid(), static_cast<std::uint32_t>(entropy()));
      if (::mkdirat(held.target_fd.get(), held.name.c_str(), 0755) == 0) break;
      if (errno != EEXIST || attempt == 100) fail(errno, "mkdir", path / held.name);
    }
    const std::filesystem::path run_path = path / held.name;
    held.run_fd = UniqueFd(::openat(held.target_fd.get(), held.name.c_str(),
                                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!held.run_fd) {
      const int err = errno;
      (void)::unlinkat(held.target_fd.get(), held.name.c_str(), AT_REMOVEDIR);
      fail(err, "open directory", run_path);
    }
    target.run_dir = ConfinedDir(held.run_fd.get(), run_path);
    targets_.push_back(std::move(target));
    held_.push_back(std::move(held));
  }
}

RunDirs::~RunDirs() {
  std::string ignored;
  remove(ignored);
}

bool RunDirs::still_ours(std::size_t i, int& err) const noexcept {
  const Held& held = held_[i];
  struct stat named {};
  struct stat open {};
  if (::fstatat(held.target_fd.get(), held.name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0) {
    err = errno;
    return false;
  }
  err = 0;
  return ::fstat(held.run_fd.get(), &open) == 0 && S_ISDIR(named.st_mode) &&
         named.st_dev == open.st_dev && named.st_ino == open.st_ino;
}

void RunDirs::check_intact() const {
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    if (!held_[i].run_fd) continue;
    int err = 0;
    if (still_ours(i, err)) continue;
    throw IoError(err != 0 ? err : ENOENT,
                  err == ENOENT ? "the run directory was removed during the run"
                                : "the run directory was replaced during the run",
                  targets_[i].run_dir.path().string());
  }
}

bool RunDirs::remove(std::string& error) noexcept {
  if (keep_) return true;
  bool ok = true;
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    Held& held = held_[i];
    if (!held.run_fd) continue;
    int err = 0;
    if (!still_ours(i, err)) {
      if (err != ENOENT) {
        // Someone else's directory (or an unreadable path) now: not ours to remove.
        ok = false;
        error = fmt::format("{} was not removed: it is no longer the directory this run made{}",
                            targets_[i].run_dir.path().string(),
                            err != 0 ? fmt::format(" ({})", std::strerror(err)) : "");
      }
      held.run_fd = UniqueFd();
      targets_[i].run_dir = ConfinedDir();
      continue;
    }
    const ConfinedDir target_dir(held.target_fd.get(), targets_[i].user_path);
    try {
      target_dir.remove_all(held.name);
      held.run_fd = UniqueFd();
      targets_[i].run_dir = ConfinedDir();
    } catch (const std::exception& e) {
      ok = false;
      error = fmt::format("cannot remove {}: {}", targets_[i].run_dir.path().string(), e.what());
    }
  }
  return ok;
}

}  // namespace iobench::detail
