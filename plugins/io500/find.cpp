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

// One open directory of the walk, the path it is shown by in errors, and how many of its entries
// the walk has read (for the share of a part).
struct Frame {
  DIR* dir;
  std::string shown;
  std::uint64_t entries = 0;
};

// Closes the walk's open directories on every exit path, an error thrown mid-walk included.
struct FrameStack {
  std::vector<Frame> frames;
  std::string path;  ///< PathMode::kFull: the entry's whole path (reused)
  ~FrameStack() {
    for (const Frame& f : frames) ::closedir(f.dir);
  }
  void push(int fd, std::string shown) {
    DIR* dir = ::fdopendir(fd);
    if (dir == nullptr) {
      const int err = errno;
      ::close(fd);
      throw IoError(err, "fdopendir", shown);
    }
    frames.push_back(Frame{dir, std::move(shown), 0});
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
bool step(FrameStack& stack, const FindQuery& q, const FindPart& part, PathMode paths,
          FindCount& count) {
  Frame& top = stack.frames.back();
  errno = 0;
  const dirent* e = ::readdir(top.dir);
  if (e == nullptr) {
    if (errno != 0) throw IoError(errno, "readdir", top.shown);
    return false;
  }
  if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) return true;
  const bool mine = top.entries++ % part.parts == part.index;
  const int fd = ::dirfd(top.dir);
  // The name first, as pfind tests it: an entry whose type readdir gives and whose name cannot
  // match needs no stat (most entries of IO500's trees); only a possible match is stat'ed.
  const bool may_match = mine && name_matches(e->d_name, q);
  const bool by_path = paths == PathMode::kFull;
  // The whole path, where a call may use it: a possible match's lstat, a directory's open.
  if (by_path && (may_match || e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)) {
    stack.path.assign(top.shown);
    stack.path += '/';
    stack.path += e->d_name;
  }
  struct stat st {};
  if (e->d_type != DT_UNKNOWN && !may_match) {
    if (mine) ++count.scanned;
    if (e->d_type != DT_DIR) return true;
    st.st_mode = S_IFDIR;
  } else {
    // pfind: lstat of the whole path after the name check; fstatat where readdir gave no type.
    const int ret = by_path && e->d_type != DT_UNKNOWN
                        ? ::lstat(stack.path.c_str(), &st)
                        : ::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW);
    if (ret != 0) {
      if (errno == ENOENT) return true;  // removed since the directory was read
      throw IoError(errno, by_path && e->d_type != DT_UNKNOWN ? "lstat" : "fstatat",
                    top.shown + "/" + e->d_name);
    }
    if (mine) {
      ++count.scanned;
      if (may_match && stat_matches(st, q)) ++count.matched;
    }
  }
  if (!S_ISDIR(st.st_mode)) return true;
  const int child =
      by_path ? ::open(stack.path.c_str(), kDirFlags) : ::openat(fd, e->d_name, kDirFlags);
  if (child < 0) {
    if (errno == ENOENT) return true;
    throw IoError(errno, by_path ? "open" : "openat", top.shown + "/" + e->d_name);
  }
  stack.push(child, top.shown + "/" + e->d_name);
  return true;
}

}  // namespace

FindCount find_matches(const std::filesystem::path& root, const FindQuery& query,
                       const FindPart& part, PathMode paths) {
  if (part.parts == 0 || part.index >= part.parts) {
    throw Error(fmt::format("find: part {} of {} does not exist", part.index, part.parts));
  }
  const int fd = ::open(root.c_str(), kDirFlags);
  if (fd < 0) throw IoError(errno, "open", root.string());
  FindCount count;
  FrameStack stack;
  stack.push(fd, root.string());
  while (!stack.frames.empty()) {
    if (!step(stack, query, part, paths, count)) stack.pop();
  }
  return count;
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
