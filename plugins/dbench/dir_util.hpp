#pragma once

/// Directory helpers for the fileio replay: reading entries with getdents64 into a caller's
/// buffer (no allocation per call, unlike opendir), dbench's Deltree, and the cleanup's full
/// removal of a tree. Every name is resolved beneath a ConfinedDir (the run directory) and none
/// of them follows symbolic links: a link inside a tree is removed, never entered.

#include <cstddef>
#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <span>
#include <string>
#include <string_view>

namespace iobench::plugins::dbench {

/// Reads a directory's entries with getdents64(2) into a caller-owned buffer.
/// Usage: `DirEntryReader r(buf); if (r.open(dir, rel) == 0) while (const char* n = r.next())`.
class DirEntryReader {
 public:
  /// REQUIRES: `buffer` holds at least 1 KiB and outlives the reader.
  explicit DirEntryReader(std::span<std::byte> buffer) noexcept : buffer_(buffer) {}
  DirEntryReader(const DirEntryReader&) = delete;
  DirEntryReader& operator=(const DirEntryReader&) = delete;
  ~DirEntryReader();

  /// Opens directory `rel` beneath `dir` ("." for `dir` itself). Returns 0 or the errno.
  [[nodiscard]] int open(const ConfinedDir& dir, std::string_view rel) noexcept;
  /// Opens directory `name` relative to directory fd `dir_fd`. False with errno set on failure.
  [[nodiscard]] bool open_at(int dir_fd, const char* name) noexcept;
  /// The next entry's name (NUL-terminated, valid until the next call), skipping "." and "..";
  /// nullptr at the end or on a read error. `is_dir` is set from d_type (DT_UNKNOWN counts as
  /// "maybe": check with fstatat).
  [[nodiscard]] const char* next(unsigned char* d_type = nullptr) noexcept;
  /// The open directory's descriptor (-1 if none).
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  bool checked_open() noexcept;

  std::span<std::byte> buffer_;
  int fd_ = -1;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
};

/// The directory part of `rel` ("." when it has no '/'), as a view into `rel` or a literal.
[[nodiscard]] std::string_view parent_of(std::string_view rel) noexcept;

/// Case-insensitive search for `name` among the entries of directory `dir_rel` beneath `dir`,
/// the way dbench's fileio simulates Samba's name resolution after a failed stat. Returns 0 if
/// found, ENOENT if not, or the errno of opening the directory.
[[nodiscard]] int find_name_case_insensitive(const ConfinedDir& dir, std::string_view dir_rel,
                                             std::string_view name,
                                             std::span<std::byte> buffer) noexcept;

/// Reads up to `max_entries` entries of directory `dir_rel` beneath `dir` (dbench's FIND_FIRST).
/// Returns 0 with `count` set, or the errno of opening the directory.
[[nodiscard]] int read_dir_entries(const ConfinedDir& dir, std::string_view dir_rel,
                                   std::uint64_t max_entries, std::span<std::byte> buffer,
                                   std::int64_t& count) noexcept;

/// dbench's Deltree: removes every non-directory below `rel` beneath `dir` (recursively) and keeps
/// the directories; a link is removed, never entered. `root_error` is the errno of opening `rel`
/// (0 when it opened; ENOENT or ENOTDIR mean there is nothing to do). Returns the number of
/// entries that could not be removed.
std::uint64_t unlink_files_below(const ConfinedDir& dir, std::string_view rel, int& root_error);

/// Removes `rel` beneath `dir` and everything below it, directories included (cleanup). A missing
/// `rel` is not an error. Returns the number of entries that could not be removed and sets
/// `first_error` to a message about the first one.
std::uint64_t remove_tree(const ConfinedDir& dir, std::string_view rel, std::string& first_error);

/// fdatasync(2) of the directory holding `rel` beneath `dir` (dbench's -S after unlink, rmdir and
/// rename). Errors are ignored, as in dbench.
void sync_parent_directory(const ConfinedDir& dir, std::string_view rel) noexcept;

}  // namespace iobench::plugins::dbench
