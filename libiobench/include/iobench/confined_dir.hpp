#pragma once

/// Confinement: every path a workload opens, creates, renames, deletes, stats, lists or sets
/// times or xattrs on is resolved by the kernel beneath a directory descriptor (the run
/// directory), whatever a loadfile, a param or a planted symbolic link says.
///
/// How a relative name is resolved beneath a ConfinedDir:
/// - openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: the kernel
///   refuses absolute names and `..` that climb out (EXDEV) and every symbolic link met on the
///   way, the last component included (ELOOP), also against concurrent renames.
/// - Where openat2 is missing (ENOSYS: Linux before 5.6), each component is opened from the
///   directory descriptor with O_NOFOLLOW | O_DIRECTORY (O_PATH), so no link is ever followed
///   either (a link met gives ELOOP).
/// - Before either, the name's shape is checked the same way for both: an absolute name or any
///   `..` component is refused with EXDEV (without links a `..` is never needed, and refusing it
///   keeps both walks identical); names of PATH_MAX bytes or more give ENAMETOOLONG.
///
/// Operations without an openat2 form (mkdir, unlink, rmdir, rename, stat, utimensat, getxattr)
/// resolve the parent directory that way and then act with the *at call on the final component,
/// which must not be empty or "." (EINVAL) or ".." (EXDEV). A name without '/' acts on the
/// directory descriptor directly: one system call, no resolution.
///
/// Two forms of every operation: throwing ones for ordinary workloads (IoError naming the
/// directory's path joined with the name, the errno and, for EXDEV and ELOOP, that the name was
/// refused), and noexcept ones returning the errno (0 on success) for callers that compare
/// outcomes with an expectation (dbench's loadfile statuses) or must not allocate.
///
/// Trust: the directory descriptor itself is the root of trust. Moving the run directory (or a
/// directory below it) elsewhere while a run holds it moves what the run acts on with it; no
/// name given to these functions can reach outside it.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <iobench/file_util.hpp>
#include <span>
#include <string>
#include <string_view>

namespace iobench {

class OwnedConfinedDir;

/// A non-owning view of a directory descriptor beneath which names are resolved (see above).
/// Cheap to copy; the descriptor must outlive every view. All operations are const and
/// thread-safe (they only make system calls on the descriptor); a forked child may use views
/// of descriptors it inherited.
class ConfinedDir {
 public:
  /// An empty view: fd() is -1, every operation fails with EBADF.
  ConfinedDir() noexcept = default;
  /// A view of directory descriptor `dir_fd` (O_RDONLY or O_PATH, O_DIRECTORY). `shown` is the
  /// directory's path as the user knows it, used only in messages.
  ConfinedDir(int dir_fd, std::filesystem::path shown) noexcept
      : fd_(dir_fd), path_(std::move(shown)) {}

  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// The directory's path for messages (never resolved again).
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
  /// path() / rel, for messages.
  [[nodiscard]] std::filesystem::path shown(std::string_view rel) const;

  /// 0 if `rel` has an acceptable shape; EXDEV for an absolute name or a `..` component,
  /// ENAMETOOLONG for PATH_MAX bytes or more, ENOENT for an empty name. Pure: no system call.
  [[nodiscard]] static int check_name(std::string_view rel) noexcept;

  // ----- throwing forms: IoError(errno, call, shown(rel)) -----

  /// Opens `rel` with `flags` (O_RDONLY, O_RDWR, O_CREAT, O_TRUNC, O_DIRECT, O_SYNC...; O_NOFOLLOW
  /// and O_CLOEXEC are added) and, with O_CREAT, `mode`.
  [[nodiscard]] UniqueFd open(std::string_view rel, int flags, mode_t mode = 0644) const;
  /// Creates a new file: open() with O_CREAT | O_EXCL (never reuses or truncates a path).
  [[nodiscard]] UniqueFd create(std::string_view rel, int flags, mode_t mode = 0644) const;
  /// Opens directory `rel` ("." for this one) O_RDONLY | O_DIRECTORY: for listing, fsync and as
  /// the root of further confined names.
  [[nodiscard]] OwnedConfinedDir open_dir(std::string_view rel) const;
  void mkdir(std::string_view rel, mode_t mode = 0755) const;
  void unlink(std::string_view rel) const;
  void rmdir(std::string_view rel) const;
  /// renameat(2) of `from` to `to`, both beneath this directory (an existing `to` is replaced).
  void rename(std::string_view from, std::string_view to) const;
  /// fstatat(2) with AT_SYMLINK_NOFOLLOW: a link is described, never followed.
  [[nodiscard]] struct stat stat(std::string_view rel) const;
  /// False where `rel` does not exist (ENOENT); other errors throw.
  [[nodiscard]] bool exists(std::string_view rel) const;
  /// Removes `rel` and everything below it without following links (a missing `rel` is not an
  /// error). Throws IoError at the first entry that cannot be removed.
  void remove_all(std::string_view rel) const;

  // ----- errno-returning forms: 0 on success, else the errno; they never allocate -----

  /// As open(); on success `fd` is the new descriptor (the caller owns it).
  [[nodiscard]] int try_open(std::string_view rel, int flags, mode_t mode, int& fd) const noexcept;
  /// As open_dir(); on success `fd` is the new descriptor (the caller owns it).
  [[nodiscard]] int try_open_dir(std::string_view rel, int& fd) const noexcept;
  [[nodiscard]] int try_mkdir(std::string_view rel, mode_t mode) const noexcept;
  [[nodiscard]] int try_unlink(std::string_view rel) const noexcept;
  [[nodiscard]] int try_rmdir(std::string_view rel) const noexcept;
  [[nodiscard]] int try_rename(std::string_view from, std::string_view to) const noexcept;
  /// renameat(2) of `from` beneath this directory to `to` beneath `to_dir`.
  [[nodiscard]] int try_rename(std::string_view from, const ConfinedDir& to_dir,
                               std::string_view to) const noexcept;
  [[nodiscard]] int try_stat(std::string_view rel, struct stat& st) const noexcept;
  /// utimensat(2) with AT_SYMLINK_NOFOLLOW; `times` as for utimensat (atime, mtime).
  [[nodiscard]] int try_set_times(std::string_view rel,
                                  const struct timespec times[2]) const noexcept;
  /// lgetxattr(2) of attribute `name` of `rel` (never through a link) into `value`; on success
  /// `size` is the attribute's length. Uses /proc/thread-self/fd (the calling thread's table) of
  /// the resolved parent (Linux has no getxattrat before 6.13), so it fails with ENOENT where
  /// /proc is not mounted.
  [[nodiscard]] int try_get_xattr(std::string_view rel, const char* name,
                                  std::span<std::byte> value, std::size_t& size) const noexcept;

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

/// A ConfinedDir that owns its descriptor (closed on destruction). Move-only; copying it as a
/// ConfinedDir gives a view that must not outlive it.
class OwnedConfinedDir : public ConfinedDir {
 public:
  OwnedConfinedDir() noexcept = default;
  /// Takes ownership of `fd`.
  OwnedConfinedDir(UniqueFd fd, std::filesystem::path shown) noexcept
      : ConfinedDir(fd.get(), std::move(shown)), owner_(std::move(fd)) {}
  OwnedConfinedDir(OwnedConfinedDir&& other) noexcept
      : ConfinedDir(std::move(other)), owner_(std::move(other.owner_)) {
    static_cast<ConfinedDir&>(other) = ConfinedDir();
  }
  OwnedConfinedDir& operator=(OwnedConfinedDir&& other) noexcept {
    if (this != &other) {
      owner_ = std::move(other.owner_);
      static_cast<ConfinedDir&>(*this) = std::move(other);
      static_cast<ConfinedDir&>(other) = ConfinedDir();
    }
    return *this;
  }
  OwnedConfinedDir(const OwnedConfinedDir&) = delete;
  OwnedConfinedDir& operator=(const OwnedConfinedDir&) = delete;
  ~OwnedConfinedDir() = default;

  /// A view of this directory.
  [[nodiscard]] ConfinedDir view() const { return ConfinedDir(fd(), path()); }

 private:
  UniqueFd owner_;
};

/// Where an engine opens a file: a name beneath a run directory, or the user's own existing
/// target (a regular file or block device named with -d). Cheap to copy.
class FileLocation {
 public:
  /// `name` beneath `dir` (any ConfinedDir name; the workloads use plain file names).
  [[nodiscard]] static FileLocation beneath(ConfinedDir dir, std::string name);
  /// The user's existing file or block device. A symbolic link the user named is followed
  /// (/dev/disk/by-id/..., /dev/mapper/...): it is their choice of target, unlike any link inside
  /// a run directory. It is never created; workloads read it, and only tiotest's raw mode writes
  /// it, after the user's explicit raw_overwrite=true.
  [[nodiscard]] static FileLocation user_target(std::filesystem::path path);

  /// The path for messages: the directory's path joined with the name, or the user's path.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return shown_; }
  [[nodiscard]] bool is_user_target() const noexcept { return !dir_; }

  /// Opens with `flags` (O_RDONLY, O_RDWR, O_DIRECT, O_SYNC...; O_CLOEXEC added). Beneath a
  /// directory: ConfinedDir::open with O_NOFOLLOW, and with `create` O_CREAT | O_EXCL, mode 0644.
  /// A user target: open(2) following the user's link; `create` fails with EEXIST, and anything
  /// but a regular file or block device with EINVAL. Throws IoError naming path().
  [[nodiscard]] UniqueFd open(int flags, bool create) const;

 private:
  FileLocation(ConfinedDir dir, std::string name, std::filesystem::path shown)
      : dir_(std::move(dir)), name_(std::move(name)), shown_(std::move(shown)) {}

  ConfinedDir dir_;
  std::string name_;
  std::filesystem::path shown_;
};

/// How ConfinedDir resolves names in this process.
enum class ResolveMethod {
  kOpenat2,        ///< openat2(2) RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
  kComponentWalk,  ///< one openat(O_NOFOLLOW | O_DIRECTORY | O_PATH) per component
};
/// The method in use: kOpenat2 until openat2 has returned ENOSYS once (or the walk is forced).
[[nodiscard]] ResolveMethod resolve_method() noexcept;
/// Forces the component walk (`on`) or returns to openat2 where the kernel has it: for tests
/// and measurements of the fallback. Safe to call at any time.
void force_component_walk(bool on) noexcept;

}  // namespace iobench
