#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

namespace iobench {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

int UniqueFd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::close(const std::filesystem::path& path_for_errors) {
  if (fd_ < 0) return;
  const int fd = release();
  // close(2) must not be retried on EINTR on Linux: the descriptor is gone either way.
  if (::close(fd) != 0 && errno != EINTR) throw IoError(errno, "close", path_for_errors.string());
}

UniqueFd create_file_exclusive(const std::filesystem::path& path, int extra_flags) {
  const int fd =
      ::open(path.c_str(), O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags, 0644);
  if (fd < 0) throw IoError(errno, "create", path.string());
  return UniqueFd(fd);
}

UniqueFd open_existing(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), O_NOFOLLOW | O_CLOEXEC | flags);
  if (fd < 0) throw IoError(errno, "open", path.string());
  return UniqueFd(fd);
}

void write_all_at(int fd, std::span<const std::byte> buf, off_t offset,
                  const std::filesystem::path& path) {
  while (!buf.empty()) {
    const ssize_t n = ::pwrite(fd, buf.data(), buf.size(), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(errno, "pwrite", path.string());
    }
    if (n == 0) throw IoError(ENOSPC, "pwrite", path.string());
    buf = buf.subspan(static_cast<std::size_t>(n));
    offset += n;
  }
}

void read_all_at(int fd, std::span<std::byte> buf, off_t offset,
                 const std::filesystem::path& path) {
  while (!buf.empty()) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(errno, "pread", path.string());
    }
    if (n == 0) throw IoError(EIO, "pread (short read: end of file)", path.string());
    buf = buf.subspan(static_cast<std::size_t>(n));
    offset += n;
  }
}

}  // namespace iobench
