#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace iobench {

/// Owns a file descriptor; closes it on destruction (errors ignored there: call close() to see
/// them). Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Gives up ownership and returns the descriptor.
  int release() noexcept;
  /// Closes now. Throws IoError if close(2) fails (e.g. EIO surfacing from delayed write-back).
  void close(const std::filesystem::path& path_for_errors = {});

 private:
  int fd_ = -1;
};

/// Creates a new file with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC plus `extra_flags` (e.g. O_RDWR,
/// O_DIRECT) and mode 0644: it never truncates, reuses or follows an existing path. Only its last
/// component is protected from links: inside a run directory use ConfinedDir::create, which
/// resolves every component beneath it.
/// Throws IoError (EEXIST if the path exists).
[[nodiscard]] UniqueFd create_file_exclusive(const std::filesystem::path& path, int extra_flags);

/// Opens an existing file with O_NOFOLLOW|O_CLOEXEC plus `flags` (the last component is not
/// followed; inside a run directory use ConfinedDir::open). Throws IoError.
[[nodiscard]] UniqueFd open_existing(const std::filesystem::path& path, int flags);

/// pwrite(2) of the whole buffer, retrying short writes and EINTR. Throws IoError naming `path`.
void write_all_at(int fd, std::span<const std::byte> buf, off_t offset,
                  const std::filesystem::path& path);
/// pread(2) of the whole buffer, retrying short reads and EINTR; EOF before the end throws IoError
/// (EIO, "short read"). Throws IoError naming `path`.
void read_all_at(int fd, std::span<std::byte> buf, off_t offset, const std::filesystem::path& path);

/// The most bytes read_input_file takes by default: 256 MiB, far above any real result or suite
/// file (a sweep's result JSON with time series runs to a few MiB).
inline constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{256} << 20;

/// The whole text of an input file the CLI reads (a result file, a classic tool's output, a
/// suite file, --again's RESULT.json). `what` names it in messages, e.g. "result file". Throws
/// ConfigError naming the file: it cannot be opened (the errno text; a directory says
/// "Is a directory"), it is not a regular file (a device such as /dev/zero, a FIFO or a socket
/// would be read forever or block: refused, not read), or it holds more than `max_bytes` (its
/// size and the cap named; a file that grows while read is refused once past the cap). Throws
/// IoError if read(2) fails once open (EIO: a failure, not bad input).
[[nodiscard]] std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                                          std::uint64_t max_bytes = kMaxInputFileBytes);

/// Which file read_input_file read: st_dev and st_ino of fstat(2) on the descriptor it opened.
/// Two paths naming one file (through a symbolic link, a hard link, `..` or a bind mount) give
/// equal identities; so does a file read twice. Meaningful only while that file exists: the
/// descriptor is closed on return, and once the file is deleted its inode number may be reused
/// by a new file, which then compares equal. A file replaced by rename(2) (an editor's save, a
/// new file moved over the old) is another file with a new identity.
struct InputFileIdentity {
  std::uint64_t device = 0;  ///< st_dev
  std::uint64_t inode = 0;   ///< st_ino
  bool operator==(const InputFileIdentity&) const = default;
};

/// As read_input_file above, and sets `opened` to the identity of the file it opened (the one
/// read, whatever its path names afterwards). Same errors; `opened` is left as it was on one.
[[nodiscard]] std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                                          std::uint64_t max_bytes, InputFileIdentity& opened);

}  // namespace iobench
