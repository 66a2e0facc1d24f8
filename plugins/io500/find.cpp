#include "plugins/io500/find.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <vector>

namespace iobench::plugins::io500 {

namespace {

bool later(const std::timespec& a, const std::timespec& b) noexcept {
  return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

bool matches(const char* name, const struct stat& st, const FindQuery& q) noexcept {
  return later(st.st_mtim, q.newer) && static_cast<std::uint64_t>(st.st_size) == q.size_bytes &&
         ::fnmatch(q.name_pattern.c_str(), name, 0) == 0;
}

// Closes a DIR* on every exit path, an error thrown mid-walk included.
struct DirCloser {
  DIR* dir;
  ~DirCloser() { ::closedir(dir); }
};

// One directory's entries; subdirectories are pushed on `pending` (an explicit stack, so a deep
// tree does not deepen the call stack).
void scan_dir(const std::string& dir_path, const FindQuery& q, FindCount& count,
              std::vector<std::string>& pending) {
  DIR* dir = ::opendir(dir_path.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return;  // removed since its parent was read
    throw IoError(errno, "opendir", dir_path);
  }
  DirCloser closer{dir};
  const int fd = ::dirfd(dir);
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(dir);
    if (e == nullptr) {
      if (errno != 0) throw IoError(errno, "readdir", dir_path);
      return;
    }
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    struct stat st {};
    if (::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      throw IoError(errno, "fstatat", dir_path + "/" + e->d_name);
    }
    ++count.scanned;
    if (matches(e->d_name, st, q)) ++count.matched;
    if (S_ISDIR(st.st_mode)) pending.push_back(dir_path + "/" + e->d_name);
  }
}

}  // namespace

std::timespec modification_time(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw IoError(errno, "lstat", path.string());
  return st.st_mtim;
}

std::timespec create_timestamp_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError(errno, "open", path.string());
  struct stat st {};
  const int rc = ::fstat(fd, &st);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw IoError(err, "fstat", path.string());
  return st.st_mtim;
}

FindCount find_matches(const std::filesystem::path& root, const FindQuery& query) {
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0) throw IoError(errno, "lstat", root.string());
  if (!S_ISDIR(st.st_mode)) throw IoError(ENOTDIR, "find", root.string());
  FindCount count;
  std::vector<std::string> pending{root.string()};
  while (!pending.empty()) {
    const std::string dir = std::move(pending.back());
    pending.pop_back();
    scan_dir(dir, query, count, pending);
  }
  return count;
}

PhaseFigure find_figure(const FindCount& count, double seconds) {
  PhaseFigure figure;
  figure.name = "find";
  figure.score = kiops(count.scanned, seconds);
  figure.seconds = seconds;
  if (count.matched == 0)
    figure.invalid = fmt::format("find matched none of the {} entries it examined", count.scanned);
  return figure;
}

}  // namespace iobench::plugins::io500
