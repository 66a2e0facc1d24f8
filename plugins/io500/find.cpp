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

bool name_matches(const char* name, const FindQuery& q) noexcept {
  return ::fnmatch(q.name_pattern.c_str(), name, 0) == 0;
}

bool stat_matches(const struct stat& st, const FindQuery& q) noexcept {
  return (!q.newer || later(st.st_mtim, *q.newer)) &&
         (!q.size_bytes || static_cast<std::uint64_t>(st.st_size) == *q.size_bytes);
}

// One open directory of the walk, where its path ends in the walk's path buffer, and how many of
// its entries the walk has read (for the share of a part).
struct Frame {
  DIR* dir;
  std::size_t path_len;
  std::uint64_t entries = 0;
};

// The walk's open directories (closed on every exit path, an error thrown mid-walk included) and
// its one path buffer: the top directory's path, which each entry's name is appended to and
// trimmed from (no allocation per entry once it has grown to the deepest path). Each frame's
// path is a prefix of the buffer: a child's is its parent's, '/' and its name.
struct Walk {
  std::vector<Frame> frames;
  std::string path;
  ~Walk() {
    for (const Frame& f : frames) ::closedir(f.dir);
  }
  /// The path of entry `name` of the top directory, in the buffer.
  const std::string& entry_path(const char* name) {
    path.resize(frames.back().path_len);
    path += '/';
    path += name;
    return path;
  }
  /// Pushes `fd`, an open directory whose path is the buffer's whole content.
  void push(int fd) {
    DIR* dir = ::fdopendir(fd);
    if (dir == nullptr) {
      const int err = errno;
      ::close(fd);
      throw IoError(err, "fdopendir", path);
    }
    frames.push_back(Frame{dir, path.size(), 0});
  }
  void pop() noexcept {
    ::closedir(frames.back().dir);
    frames.pop_back();
  }
};

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Tests the next entry of the top directory; opens a subdirectory relative to its parent's fd
// (kDirfd: openat, no PATH_MAX limit on depth) or by its whole path (kFull, as pfind's opendir),
// never through a link as its last component (O_NOFOLLOW: a directory swapped for a link is not
// followed; by whole path the components above it are resolved as they are then), and pushes
// it, so open directories are as many as the tree is deep.
// An entry of another part is not tested; it is only descended into when it is a directory
// (readdir's type, or lstat where the file system gives none).
// False: the top directory has no more entries.
bool step(Walk& walk, const FindQuery& q, const FindPart& part, PathMode paths, FindCount& count) {
  Frame& top = walk.frames.back();
  errno = 0;
  const dirent* e = ::readdir(top.dir);
  if (e == nullptr) {
    if (errno != 0) {
      const int err = errno;
      walk.path.resize(top.path_len);
      throw IoError(err, "readdir", walk.path);
    }
    return false;
  }
  if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) return true;
  const bool mine = top.entries++ % part.parts == part.index;
  const int fd = ::dirfd(top.dir);
  // The name first, as pfind tests it: an entry whose type readdir gives and whose name cannot
  // match needs no stat (most entries of IO500's trees); only a possible match is stat'ed.
  const bool may_match = mine && name_matches(e->d_name, q);
  const bool by_path = paths == PathMode::kFull;
  struct stat st {};
  if (e->d_type != DT_UNKNOWN && !may_match) {
    if (mine) ++count.scanned;
    if (e->d_type != DT_DIR) return true;
    st.st_mode = S_IFDIR;
  } else {
    // pfind: lstat of the whole path after the name check; fstatat where readdir gave no type.
    const bool lstat_path = by_path && e->d_type != DT_UNKNOWN;
    const int ret = lstat_path ? ::lstat(walk.entry_path(e->d_name).c_str(), &st)
                               : ::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW);
    if (ret != 0) {
      if (errno == ENOENT) return true;  // removed since the directory was read
      const int err = errno;
      throw IoError(err, lstat_path ? "lstat" : "fstatat", walk.entry_path(e->d_name));
    }
    if (mine) {
      ++count.scanned;
      if (may_match && stat_matches(st, q)) ++count.matched;
    }
  }
  if (!S_ISDIR(st.st_mode)) return true;
  // The child's path in the buffer: its open by path names it, and it is the new frame's.
  const std::string& child_path = walk.entry_path(e->d_name);
  const int child =
      by_path ? ::open(child_path.c_str(), kDirFlags) : ::openat(fd, e->d_name, kDirFlags);
  if (child < 0) {
    if (errno == ENOENT) return true;
    throw IoError(errno, by_path ? "open" : "openat", child_path);
  }
  walk.push(child);
  return true;
}

void check_part(const FindPart& part) {
  if (part.parts == 0 || part.index >= part.parts) {
    throw Error(fmt::format("find: part {} of {} does not exist", part.index, part.parts));
  }
}

// Walks from `fd`, the open root, whose path is walk.path.
FindCount walk_from(Walk& walk, int fd, const FindQuery& query, const FindPart& part,
                    PathMode paths) {
  walk.path.reserve(walk.path.size() + 256);
  FindCount count;
  walk.push(fd);
  while (!walk.frames.empty()) {
    if (!step(walk, query, part, paths, count)) walk.pop();
  }
  return count;
}

}  // namespace

FindCount find_matches(const std::filesystem::path& root, const FindQuery& query,
                       const FindPart& part, PathMode paths) {
  check_part(part);
  const int fd = ::open(root.c_str(), kDirFlags);
  if (fd < 0) throw IoError(errno, "open", root.string());
  Walk walk;
  walk.path = root.string();
  return walk_from(walk, fd, query, part, paths);
}

FindCount find_matches(const ConfinedDir& dir, std::string_view rel, const FindQuery& query,
                       const FindPart& part, PathMode paths) {
  check_part(part);
  Walk walk;
  walk.path = rel == "." ? dir.path().string() : dir.shown(rel).string();
  int fd = -1;
  if (paths == PathMode::kFull) {
    // As pfind opens its root: by its whole path.
    fd = ::open(walk.path.c_str(), kDirFlags);
    if (fd < 0) throw IoError(errno, "open", walk.path);
  } else if (const int err = dir.try_open_dir(rel, fd); err != 0) {
    // Beneath the held directory, never through a link: as every other dirfd op.
    throw IoError(err, "open directory", walk.path);
  }
  return walk_from(walk, fd, query, part, paths);
}

PhaseFigure find_figure(const FindCount& count, double seconds, std::string_view name) {
  PhaseFigure figure;
  figure.name = std::string(name);
  figure.score = kiops(count.scanned, seconds);
  figure.seconds = seconds;
  if (count.matched == 0)
    figure.invalid = fmt::format("find matched none of the {} entries it examined", count.scanned);
  return figure;
}

}  // namespace iobench::plugins::io500
