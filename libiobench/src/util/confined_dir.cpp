#include <dirent.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iobench/confined_dir.hpp>
#include <iobench/error.hpp>
#include <vector>

namespace iobench {
namespace {

constexpr std::uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
/// openat2 returns EAGAIN when a concurrent rename or mount may have raced the walk; it is
/// always safe to retry.
constexpr int kRaceRetries = 64;

std::atomic<bool> g_openat2_missing{false};
std::atomic<bool> g_walk_forced{false};

/// Copies `text` NUL-terminated into `out` (PATH_MAX bytes). ENAMETOOLONG if it does not fit.
int copy_text(std::string_view text, char* out) noexcept {
  if (text.size() >= PATH_MAX) return ENAMETOOLONG;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return 0;
}

bool is_symlink_at(int dir_fd, const char* name) noexcept {
  struct stat st {};
  return ::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/// The fallback: one openat(O_PATH | O_DIRECTORY | O_NOFOLLOW) per directory component, then the
/// final one with `flags` | O_NOFOLLOW. `path` is modified (its slashes become NULs). Returns the
/// descriptor or -errno.
int walk_open(int root, char* path, int flags, mode_t mode) noexcept {
  if (*path == '\0') return -ENOENT;
  int cur = root;
  int owned = -1;
  const auto fail = [&](int err) {
    if (owned >= 0) ::close(owned);
    return -err;
  };
  char* comp = path;
  for (char* slash; (slash = std::strchr(comp, '/')) != nullptr; comp = slash + 1) {
    *slash = '\0';
    if (*comp == '\0' || std::strcmp(comp, ".") == 0) continue;
    const int next = ::openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      const int err = errno;
      return fail(err == ENOTDIR && is_symlink_at(cur, comp) ? ELOOP : err);
    }
    if (owned >= 0) ::close(owned);
    owned = cur = next;
  }
  // A trailing '/' (or a final ".") names the directory reached so far.
  const char* last = *comp == '\0' ? "." : comp;
  const int fd = ::openat(cur, last, flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    const int err = errno;
    return fail(err == ENOTDIR && is_symlink_at(cur, last) ? ELOOP : err);
  }
  if (owned >= 0) ::close(owned);
  return fd;
}

/// Opens NUL-terminated `path` beneath `root`. Returns the descriptor or -errno. REQUIRES: the
/// shape was checked (ConfinedDir::check_name).
int open_beneath(int root, char* path, int flags, mode_t mode) noexcept {
  if (!g_walk_forced.load(std::memory_order_relaxed) &&
      !g_openat2_missing.load(std::memory_order_relaxed)) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(static_cast<unsigned>(flags | O_CLOEXEC));
    const bool takes_mode = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
    how.mode = takes_mode ? mode : 0;
    how.resolve = kResolve;
    for (int attempt = 0;; ++attempt) {
      const long fd = ::syscall(SYS_openat2, root, path, &how, sizeof how);
      if (fd >= 0) return static_cast<int>(fd);
      if (errno == EAGAIN && attempt < kRaceRetries) continue;
      if (errno != ENOSYS) return -errno;
      break;
    }
    g_openat2_missing.store(true, std::memory_order_relaxed);
  }
  return walk_open(root, path, flags, mode);
}

/// The directory holding a name's final component, resolved beneath the root, and that
/// component NUL-terminated.
struct Parent {
  int fd = -1;
  int owned = -1;
  char name[NAME_MAX + 1];

  Parent() noexcept { name[0] = '\0'; }
  Parent(const Parent&) = delete;
  Parent& operator=(const Parent&) = delete;
  ~Parent() {
    if (owned >= 0) ::close(owned);
  }
};

int resolve_parent(int root, std::string_view rel, Parent& out) noexcept {
  if (root < 0) return EBADF;
  if (const int err = ConfinedDir::check_name(rel); err != 0) return err;
  const std::size_t slash = rel.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
  if (name.empty() || name == ".") return EINVAL;
  if (name.size() > NAME_MAX) return ENAMETOOLONG;
  std::memcpy(out.name, name.data(), name.size());
  out.name[name.size()] = '\0';
  if (slash == std::string_view::npos) {
    out.fd = root;
    return 0;
  }
  char dir[PATH_MAX];
  if (const int err = copy_text(rel.substr(0, slash), dir); err != 0) return err;
  const int fd = open_beneath(root, dir, O_PATH | O_DIRECTORY, 0);
  if (fd < 0) return -fd;
  out.fd = out.owned = fd;
  return 0;
}

int errno_of(int rc) noexcept { return rc == 0 ? 0 : errno; }

/// The call's name for a message, saying why a name was refused (EXDEV, ELOOP).
std::string describe(const char* call, int err, std::string_view rel, const ConfinedDir& dir) {
  std::string what = call;
  if (err == EXDEV && ConfinedDir::check_name(rel) == EXDEV) {
    what +=
        " (refused: an absolute name or a '..' component would leave " + dir.path().string() + ")";
  } else if (err == ELOOP) {
    what +=
        " (refused: a symbolic link on the path; links inside run directories are never "
        "followed)";
  }
  return what;
}

[[noreturn]] void fail(int err, const char* call, std::string_view rel, const ConfinedDir& dir) {
  throw IoError(err, describe(call, err, rel, dir), dir.shown(rel).string());
}

void remove_entry(int parent, const char* name, const std::string& shown) {
  struct stat st {};
  if (::fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    throw IoError(errno, "stat", shown);
  }
  const bool is_dir = S_ISDIR(st.st_mode);
  if (is_dir) {
    const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw IoError(errno, "open directory", shown);
    DIR* dir = ::fdopendir(fd);
    if (dir == nullptr) {
      const int err = errno;
      ::close(fd);
      throw IoError(err, "opendir", shown);
    }
    // Names first, removal after: removing while readdir runs may skip entries.
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      const std::string_view n = entry->d_name;
      if (n != "." && n != "..") names.emplace_back(n);
    }
    try {
      for (const std::string& n : names) remove_entry(::dirfd(dir), n.c_str(), shown + "/" + n);
    } catch (...) {
      ::closedir(dir);
      throw;
    }
    ::closedir(dir);
  }
  if (::unlinkat(parent, name, is_dir ? AT_REMOVEDIR : 0) != 0 && errno != ENOENT) {
    throw IoError(errno, is_dir ? "rmdir" : "unlink", shown);
  }
}

}  // namespace

std::filesystem::path ConfinedDir::shown(std::string_view rel) const {
  std::string out = path_.string();
  if (!out.empty() && out.back() != '/') out += '/';
  out.append(rel);
  return out;
}

int ConfinedDir::check_name(std::string_view rel) noexcept {
  if (rel.empty()) return ENOENT;
  if (rel.size() >= PATH_MAX) return ENAMETOOLONG;
  if (rel.front() == '/') return EXDEV;
  if (rel.find('\0') != std::string_view::npos) return EINVAL;
  for (std::size_t start = 0; start <= rel.size();) {
    std::size_t end = rel.find('/', start);
    if (end == std::string_view::npos) end = rel.size();
    if (end - start == 2 && rel[start] == '.' && rel[start + 1] == '.') return EXDEV;
    start = end + 1;
  }
  return 0;
}

int ConfinedDir::try_open(std::string_view rel, int flags, mode_t mode, int& fd) const noexcept {
  fd = -1;
  if (fd_ < 0) return EBADF;
  if (const int err = check_name(rel); err != 0) return err;
  char path[PATH_MAX];
  if (const int err = copy_text(rel, path); err != 0) return err;
  const int got = open_beneath(fd_, path, flags | O_NOFOLLOW, mode);
  if (got == -ENOTDIR && (flags & O_DIRECTORY) != 0) {
    // O_NOFOLLOW | O_DIRECTORY on a final link says ENOTDIR: say what it is, as for a link met
    // on the way (ELOOP).
    struct stat st {};
    if (try_stat(rel, st) == 0 && S_ISLNK(st.st_mode)) return ELOOP;
  }
  if (got < 0) return -got;
  fd = got;
  return 0;
}

int ConfinedDir::try_open_dir(std::string_view rel, int& fd) const noexcept {
  return try_open(rel, O_RDONLY | O_DIRECTORY, 0, fd);
}

int ConfinedDir::try_mkdir(std::string_view rel, mode_t mode) const noexcept {
  Parent p;
  if (const int err = resolve_parent(fd_, rel, p); err != 0) return err;
  return errno_of(::mkdirat(p.fd, p.name, mode));
}

int ConfinedDir::try_unlink(std::string_view rel) const noexcept {
  Parent p;
  if (const int err = resolve_parent(fd_, rel, p); err != 0) return err;
  return errno_of(::unlinkat(p.fd, p.name, 0));
}

int ConfinedDir::try_rmdir(std::string_view rel) const noexcept {
  Parent p;
  if (const int err = resolve_parent(fd_, rel, p); err != 0) return err;
  return errno_of(::unlinkat(p.fd, p.name, AT_REMOVEDIR));
}

int ConfinedDir::try_rename(std::string_view from, std::string_view to) const noexcept {
  return try_rename(from, *this, to);
}

int ConfinedDir::try_rename(std::string_view from, const ConfinedDir& to_dir,
                            std::string_view to) const noexcept {
  Parent source;
  if (const int err = resolve_parent(fd_, from, source); err != 0) return err;
  Parent dest;
  if (const int err = resolve_parent(to_dir.fd_, to, dest); err != 0) return err;
  return errno_of(::renameat(source.fd, source.name, dest.fd, dest.name));
}

int ConfinedDir::try_stat(std::string_view rel, struct stat& st) const noexcept {
  Parent p;
  if (const int err = resolve_parent(fd_, rel, p); err != 0) return err;
  return errno_of(::fstatat(p.fd, p.name, &st, AT_SYMLINK_NOFOLLOW));
}

int ConfinedDir::try_set_times(std::string_view rel,
                               const struct timespec times[2]) const noexcept {
  Parent p;
  if (const int err = resolve_parent(fd_, rel, p); err != 0) return err;
  return errno_of(::utimensat(p.fd, p.name, times, AT_SYMLINK_NOFOLLOW));
}

int ConfinedDir::try_get_xattr(std::string_view rel, const char* name, std::span<std::byte> value,
                               std::size_t& size) const noexcept {
  size = 0;
  Parent p;
  if (const int err = resolve_parent(fd_, rel, p); err != 0) return err;
  // The magic link of our own descriptor, then the final component, which lgetxattr does not
  // follow: nothing is resolved outside the parent. The calling thread's table, which may be
  // its own (WorkerContext::own_descriptor_table()): /proc/self/fd is the main thread's.
  char path[PATH_MAX];
  if (std::snprintf(path, sizeof path, "/proc/thread-self/fd/%d/%s", p.fd, p.name) >=
      static_cast<int>(sizeof path)) {
    return ENAMETOOLONG;
  }
  const ssize_t got = ::lgetxattr(path, name, value.data(), value.size());
  if (got < 0) return errno;
  size = static_cast<std::size_t>(got);
  return 0;
}

UniqueFd ConfinedDir::open(std::string_view rel, int flags, mode_t mode) const {
  int fd = -1;
  if (const int err = try_open(rel, flags, mode, fd); err != 0) {
    fail(err, (flags & O_CREAT) != 0 ? "create" : "open", rel, *this);
  }
  return UniqueFd(fd);
}

UniqueFd ConfinedDir::create(std::string_view rel, int flags, mode_t mode) const {
  return open(rel, flags | O_CREAT | O_EXCL, mode);
}

OwnedConfinedDir ConfinedDir::open_dir(std::string_view rel) const {
  int fd = -1;
  if (const int err = try_open_dir(rel, fd); err != 0) fail(err, "open directory", rel, *this);
  return OwnedConfinedDir(UniqueFd(fd), rel == "." ? path_ : shown(rel));
}

void ConfinedDir::mkdir(std::string_view rel, mode_t mode) const {
  if (const int err = try_mkdir(rel, mode); err != 0) fail(err, "mkdir", rel, *this);
}

void ConfinedDir::unlink(std::string_view rel) const {
  if (const int err = try_unlink(rel); err != 0) fail(err, "unlink", rel, *this);
}

void ConfinedDir::rmdir(std::string_view rel) const {
  if (const int err = try_rmdir(rel); err != 0) fail(err, "rmdir", rel, *this);
}

void ConfinedDir::rename(std::string_view from, std::string_view to) const {
  if (const int err = try_rename(from, to); err != 0) {
    const std::string_view refused = check_name(from) != 0 ? from : to;
    throw IoError(err, describe("rename", err, refused, *this),
                  shown(from).string() + " -> " + shown(to).string());
  }
}

struct stat ConfinedDir::stat(std::string_view rel) const {
  struct stat st {};
  if (const int err = try_stat(rel, st); err != 0) fail(err, "stat", rel, *this);
  return st;
}

bool ConfinedDir::exists(std::string_view rel) const {
  struct stat st {};
  const int err = try_stat(rel, st);
  if (err == ENOENT) return false;
  if (err != 0) fail(err, "stat", rel, *this);
  return true;
}

void ConfinedDir::remove_all(std::string_view rel) const {
  Parent p;
  const int err = resolve_parent(fd_, rel, p);
  if (err == ENOENT) return;
  if (err != 0) fail(err, "remove", rel, *this);
  remove_entry(p.fd, p.name, shown(rel).string());
}

FileLocation FileLocation::beneath(ConfinedDir dir, std::string name) {
  std::filesystem::path shown = dir.shown(name);
  return FileLocation(std::move(dir), std::move(name), std::move(shown));
}

FileLocation FileLocation::user_target(std::filesystem::path path) {
  return FileLocation(ConfinedDir(), std::string(), std::move(path));
}

UniqueFd FileLocation::open(int flags, bool create) const {
  if (dir_) {
    return create ? dir_.create(name_, flags) : dir_.open(name_, flags);
  }
  if (create) throw IoError(EEXIST, "create (the user's own target is never created)", shown_);
  // The user's own link is followed: it is how they named the file or device.
  UniqueFd fd(::open(shown_.c_str(), flags | O_CLOEXEC));
  if (!fd) throw IoError(errno, "open", shown_.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw IoError(errno, "fstat", shown_.string());
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
    throw IoError(EINVAL, "open (not a regular file or block device)", shown_.string());
  }
  return fd;
}

ResolveMethod resolve_method() noexcept {
  return g_walk_forced.load(std::memory_order_relaxed) ||
                 g_openat2_missing.load(std::memory_order_relaxed)
             ? ResolveMethod::kComponentWalk
             : ResolveMethod::kOpenat2;
}

void force_component_walk(bool on) noexcept { g_walk_forced.store(on, std::memory_order_relaxed); }

}  // namespace iobench
