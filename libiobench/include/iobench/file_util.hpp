#pragma once

#include <sys/types.h>

#include <filesystem>
#include <span>

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

}  // namespace iobench
