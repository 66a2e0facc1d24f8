#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "plugins/dbench/loadfile_program.hpp"

struct gzFile_s;

namespace iobench::plugins::dbench {

/// The default of the max_loadfile_size param: 128 MiB of text (Debian's client.txt has 25 MiB).
/// The text is never held whole; the limit bounds the time a validation takes and what a gzip
/// bomb can make it read.
inline constexpr std::size_t kDefaultMaxLoadfileBytes = std::size_t{128} << 20;

/// Reads a loadfile's text a chunk at a time, plain or gzip-compressed (recognised by its content,
/// not its name, and decompressed with zlib as dbench 4.x/5.0 does), so that a parser can take it
/// line by line without ever holding the whole text (parse_loadfile_file()).
class LoadfileTextReader {
 public:
  /// Opens `path`. Throws ConfigError naming the path if it is missing, unreadable or not a
  /// regular file (a FIFO, a device, /dev/stdin: a replay reads the file again for every pass).
  LoadfileTextReader(const std::filesystem::path& path, std::size_t max_bytes);
  ~LoadfileTextReader();
  LoadfileTextReader(const LoadfileTextReader&) = delete;
  LoadfileTextReader& operator=(const LoadfileTextReader&) = delete;

  /// The file opened, as fstat(2) saw it then.
  [[nodiscard]] const FileIdentity& identity() const noexcept { return identity_; }
  /// The file as fstat(2) sees it now (after its text was read: was it changed meanwhile?).
  /// Throws ConfigError naming the path if fstat fails.
  [[nodiscard]] FileIdentity identity_now() const;
  /// Appends up to `chunk` bytes of the text to `out`; false (nothing appended) at its end.
  /// Throws ConfigError naming the path on corrupt gzip data or a read error, as soon as the
  /// text read holds more than `max_bytes` (naming the limit and the max_loadfile_size param),
  /// and at the end if the file changed since it was opened (identity_now() != identity()).
  bool read(std::string& out, std::size_t chunk);

 private:
  /// read(2) of up to `want` bytes of plain text, EINTR retried; -1 with errno on failure.
  int read_plain(char* out, std::size_t want);

  std::filesystem::path path_;
  std::size_t max_bytes_;
  int fd_ = -1;               ///< plain text: the file
  int stat_fd_ = -1;          ///< the file, plain or gzip (for identity_now(); not owned)
  gzFile_s* file_ = nullptr;  ///< gzip: zlib's reader (it owns the descriptor)
  FileIdentity identity_;
  std::size_t total_ = 0;
  bool done_ = false;
};

/// Reads the whole text of a loadfile, plain or gzip-compressed (recognised by its content, not
/// its name, and decompressed with zlib as dbench 4.x/5.0 does), refusing it as soon as it holds
/// more than `max_bytes` of text: memory stays below about `max_bytes` whatever the file, so a
/// small gzip bomb is never inflated into RAM. Throws ConfigError naming the path: missing or
/// unreadable file, corrupt gzip data, more text than `max_bytes` (naming the limit and the
/// max_loadfile_size param that raises it).
[[nodiscard]] std::string read_loadfile_text(const std::filesystem::path& path,
                                             std::size_t max_bytes = kDefaultMaxLoadfileBytes);

}  // namespace iobench::plugins::dbench
