#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace iobench::cli {

/// The file -o names: checked and opened before any I/O, written only once the run has results.
///
/// The results go to a temporary file in its directory, created when the object is made (so an
/// unusable place is refused before the run) and renamed over it at the end: an existing file
/// keeps its content until the run has produced its results and never holds half of them; a
/// symbolic link to a regular file stays, its target is replaced. The temporary file is unnamed
/// (O_TMPFILE) until commit() names it ".NAME.iobench-XXXXXX" just before the rename, so a
/// process killed outright leaves nothing; where the filesystem has no O_TMPFILE it is named
/// from the start.
class OutputFile {
 public:
  /// Refuses, with a ConfigError naming the path and the real cause, what cannot take the
  /// results: an empty name, a directory, anything but a regular file (a device such as
  /// /dev/full, a FIFO, a socket), a dangling link, a missing or unwritable directory.
  /// Touches nothing (stat(2) and access(2) only).
  static void check(const std::string& path);

  /// check(), then creates the temporary file in the (link-resolved) file's directory.
  /// ConfigError if it cannot be created there (/proc, a read-only filesystem, no permission).
  explicit OutputFile(const std::string& path);
  /// Removes the temporary file unless commit() succeeded (an unnamed one just goes).
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Writes `text` to the temporary file, flushes it to disk, gives it the permissions (and,
  /// as root, the owner) of the file it replaces (a new file: 0666 less the umask) and renames
  /// it over the file. Throws IoError on failure; the file named by -o is then untouched.
  void commit(std::string_view text);

  /// The file the results end up in (the -o path, or the file its link points to).
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return final_path_; }

 private:
  /// "DIR/.NAME.iobench-XXXXXX" beside the final file.
  [[nodiscard]] std::string temp_template() const;
  /// Gives the unnamed temporary file (holding `text`, synced) a name, temp_path_; where that
  /// cannot be done, writes `text` into a new named file instead. Throws IoError.
  void name_unnamed_file(std::string_view text);

  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  bool replaces_existing_ = false;
  bool committed_ = false;
};

}  // namespace iobench::cli
