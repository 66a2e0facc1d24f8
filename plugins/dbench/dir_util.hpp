#pragma once

/// Directory helpers for the fileio replay: reading entries with getdents64 into a caller's
/// buffer (no allocation per call, unlike opendir), dbench's Deltree, and the cleanup's full
/// removal of a tree. None of them follows symbolic links.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace iobench::plugins::dbench {

/// Reads a directory's entries with getdents64(2) into a caller-owned buffer.
/// Usage: `DirEntryReader r(buf); if (r.open(path)) while (const char* n = r.next()) ...`.
class DirEntryReader {
 public:
  /// REQUIRES: `buffer` holds at least 1 KiB and outlives the reader.
  explicit DirEntryReader(std::span<std::byte> buffer) noexcept : buffer_(buffer) {}
  DirEntryReader(const DirEntryReader&) = delete;
  DirEntryReader& operator=(const DirEntryReader&) = delete;
  ~DirEntryReader();

  /// Opens directory `path` (O_DIRECTORY|O_NOFOLLOW). False with errno set on failure.
  [[nodiscard]] bool open(const char* path) noexcept;
  /// Opens directory `name` relative to directory fd `dir_fd`. False with errno set on failure.
  [[nodiscard]] bool open_at(int dir_fd, const char* name) noexcept;
  /// The next entry's name (NUL-terminated, valid until the next call), skipping "." and "..";
  /// nullptr at the end or on a read error. `is_dir` is set from d_type (DT_UNKNOWN counts as
  /// "maybe": check with fstatat).
  [[nodiscard]] const char* next(unsigned char* d_type = nullptr) noexcept;
  /// The open directory's descriptor (-1 if none).
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  std::span<std::byte> buffer_;
  int fd_ = -1;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
};

/// Case-insensitive search for `name` among the entries of `dir_path`, the way dbench's fileio
/// simulates Samba's name resolution after a failed stat. Returns true if found.
[[nodiscard]] bool find_name_case_insensitive(const char* dir_path, std::string_view name,
                                              std::span<std::byte> buffer) noexcept;

/// Reads up to `max_entries` entries of `dir_path` (dbench's FIND_FIRST). Returns the number read,
/// or -1 if the directory cannot be opened.
[[nodiscard]] std::int64_t read_dir_entries(const char* dir_path, std::uint64_t max_entries,
                                            std::span<std::byte> buffer) noexcept;

/// dbench's Deltree: removes every non-directory below `path` (recursively) and keeps the
/// directories. A missing `path` is not an error. Returns the number of entries that could not be
/// removed.
std::uint64_t unlink_files_below(const char* path);

/// Removes `path` and everything below it, directories included (cleanup). A missing `path` is
/// not an error. Returns the number of entries that could not be removed and sets `first_error`
/// to a message about the first one.
std::uint64_t remove_tree(const std::string& path, std::string& first_error);

/// fdatasync(2) of the directory holding `path` (dbench's -S after unlink, rmdir and rename).
/// Errors are ignored, as in dbench.
void sync_parent_directory(std::string_view path) noexcept;

}  // namespace iobench::plugins::dbench
