#pragma once

/// How a flowop thread names its fileset files and leaf directories (FilesetDirs): whole paths
/// for opens, its cache of their parent directories for the other calls.

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/filebench/fileset.hpp"

namespace iobench::plugins::filebench {

/// How a flowop thread names its fileset files and leaf directories to the kernel, with one
/// system call per op where filebench makes one (its ops are calls on whole absolute paths).
///
/// Opening a file (openfile, and every flowop that opens the file on its fd): open_file(), one
/// openat2(2) of the file's whole path relative to the run directory (ConfinedDir::try_open:
/// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, O_NOFOLLOW), as filebench's one open(2); no directory
/// is opened for it.
///
/// The calls without an openat2 form (stat, unlink, mkdir, rmdir) and createfile (filebench
/// stats the parent before it creates, done here as an fstat of the parent) act through the
/// thread's most recently used fileset directories (on_file(), on_leafdir()), each opened once
/// (O_PATH) beneath the run directory, so that a statfile is one fstatat(2) on the 8-digit name
/// in its directory as filebench's one stat(2), where ConfinedDir on the whole path makes three
/// (openat2 of the parent, fstatat, close). A miss costs the openat2 of the directory and, at
/// its eviction, a close.
///
/// Confinement is unchanged: every cached descriptor was resolved beneath the run directory by
/// the kernel (ConfinedDir::try_open: no link, no '..'), and the final component is acted on
/// by a call that follows no link. A run never renames or removes a directory that holds
/// files or leaf directories (removedir removes only empty leaf directories), so the cache is
/// never stale by the run's own doing; a directory someone else removed (an ENOENT, and the
/// cached directory's st_nlink 0) is resolved again, as its name would be.
///
/// Descriptors: at most kEntries per thread. When opening one fails with EMFILE or ENFILE the
/// cache is emptied and the open tried once more: out of descriptors, a thread holds only the
/// one its flowop needs, as resolving the parent per op did.
class FilesetDirs {
 public:
  static constexpr std::size_t kEntries = 4;

  /// `run_dir`: the run directory the filesets lie beneath; `filesets`: their shared states,
  /// indexed as WmlModel::filesets (both outlive this).
  FilesetDirs(ConfinedDir run_dir, std::span<FilesetState* const> filesets) noexcept;
  FilesetDirs(const FilesetDirs&) = delete;
  FilesetDirs& operator=(const FilesetDirs&) = delete;

  /// Runs `op(const ConfinedDir& dir, std::string_view name) -> errno` on file `file` of
  /// fileset `fileset`: `name` its name in its parent directory `dir` (for a `define file`,
  /// the run directory and the file's name). Returns the errno of opening the parent or op's.
  template <typename Op>
  int on_file(std::uint32_t fileset, std::uint32_t file, Op&& op) {
    const FilesetLayout& layout = filesets_[fileset]->layout();
    if (layout.single_file) return op(run_dir_, std::string_view(layout.name));
    const FilesetLayout::File& f = layout.files[file];
    return apply(fileset, f.parent, f.serial & ~FilesetLayout::kPreallocBit, op);
  }
  /// Opens file `file` of fileset `fileset` by its whole path relative to the run directory
  /// (for a `define file`, its name there): one ConfinedDir::try_open, one openat2(2) (the
  /// component walk where the kernel lacks it); `flags` and `mode` as for try_open. On success
  /// `fd` is the new descriptor (the caller owns it). Returns 0 or the errno (ELOOP for a
  /// symbolic link anywhere on the path). Uses no cached directory: misses() and hits() are
  /// unchanged. The path is built in a buffer this object reuses (no allocation once grown).
  int open_file(std::uint32_t fileset, std::uint32_t file, int flags, mode_t mode, int& fd) {
    return run_dir_.try_open(file_path(fileset, file), flags, mode, fd);
  }
  /// As on_file() for leaf directory `leafdir` of fileset `fileset`.
  template <typename Op>
  int on_leafdir(std::uint32_t fileset, std::uint32_t leafdir, Op&& op) {
    const FilesetLayout::LeafDir& l = filesets_[fileset]->layout().leafdirs[leafdir];
    return apply(fileset, l.parent, l.serial & ~FilesetLayout::kPreallocBit, op);
  }

  /// Directory descriptors opened (misses) and lookups served from the cache (hits).
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_; }
  [[nodiscard]] std::uint64_t hits() const noexcept { return hits_; }

 private:
  struct Entry {
    std::uint32_t fileset = kNoFileset;
    std::uint32_t dir = 0;
    std::uint64_t used = 0;  ///< clock_ at its last use: the least recently used goes first
    OwnedConfinedDir handle;
  };

  template <typename Op>
  int apply(std::uint32_t fileset, std::uint32_t dir, std::uint32_t serial, Op& op) {
    const ConfinedDir* parent = nullptr;
    int err = find(fileset, dir, parent);
    if (err != 0) return err;
    const std::string_view name = serial_name(serial);
    err = op(*parent, name);
    if (err == ENOENT && removed(*parent)) {
      forget(parent);
      err = find(fileset, dir, parent);
      if (err == 0) err = op(*parent, name);
    }
    return err;
  }
  /// Directory `dir` of fileset `fileset`, from the cache or opened into it.
  int find(std::uint32_t fileset, std::uint32_t dir, const ConfinedDir*& out);
  /// File `file` of fileset `fileset`'s path relative to the run directory, as
  /// FilesetLayout::file_path, in path_ (valid until the next call).
  std::string_view file_path(std::uint32_t fileset, std::uint32_t file);
  /// `serial` as the layout names it ("%08u"), in name_ (valid until the next call).
  std::string_view serial_name(std::uint32_t serial) noexcept;
  static bool removed(const ConfinedDir& dir) noexcept {
    struct stat st {};
    return ::fstat(dir.fd(), &st) == 0 && st.st_nlink == 0;
  }
  void forget(const ConfinedDir* dir) noexcept;
  void clear() noexcept;

  ConfinedDir run_dir_;
  std::span<FilesetState* const> filesets_;
  std::array<Entry, kEntries> entries_{};
  std::uint64_t clock_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  char name_[16] = {};
  std::string path_;                  ///< file_path()'s buffer
  std::vector<std::uint32_t> chain_;  ///< file_path()'s directories, the file's parent first
};

}  // namespace iobench::plugins::filebench
