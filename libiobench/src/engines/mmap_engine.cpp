#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "engines/mapping_fault_guard.hpp"
#include "engines/open_flags.hpp"

namespace iobench {
namespace {

// Free space below which a write fault is put down to a full filesystem: a page fault fails
// for want of a block before statvfs shows exactly 0 (delayed-allocation reserves, other
// writers, metadata), so "almost nothing left" counts.
std::uint64_t nearly_full_bytes(const struct statvfs& vfs) {
  return std::max<std::uint64_t>(1ULL << 20, 64ULL * vfs.f_frsize);
}

// The error of a SIGBUS at `offset` of the mapping. The kernel gives no errno with it, so it
// is inferred, and the message says from what: a read-only filesystem (EROFS), a full one
// (ENOSPC), a file now shorter than the mapping (truncated by someone else: EIO), otherwise
// the device failing the page (EIO).
IoError fault_error(int fd, const std::filesystem::path& path, bool write, std::uint64_t offset) {
  const char* op = write ? "write" : "read";
  struct stat st {};
  if (::fstat(fd, &st) == 0 && offset >= static_cast<std::uint64_t>(st.st_size)) {
    return IoError(EIO,
                   fmt::format("mmap {} (SIGBUS at offset {}: the file is now {} bytes, shorter "
                               "than its mapping; truncated during the run?)",
                               op, offset, st.st_size),
                   path.string());
  }
  struct statvfs vfs {};
  if (write && ::fstatvfs(fd, &vfs) == 0) {
    if ((vfs.f_flag & ST_RDONLY) != 0) {
      return IoError(
          EROFS,
          fmt::format("mmap write (SIGBUS at offset {}; the filesystem is now read-only)", offset),
          path.string());
    }
    const std::uint64_t free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (free_bytes < nearly_full_bytes(vfs)) {
      return IoError(ENOSPC,
                     fmt::format("mmap write (SIGBUS at offset {}; {} bytes free on the "
                                 "filesystem)",
                                 offset, free_bytes),
                     path.string());
    }
  }
  return IoError(EIO,
                 fmt::format("mmap {} (SIGBUS at offset {}; the filesystem or device failed the "
                             "page)",
                             op, offset),
                 path.string());
}

// The whole file mapped MAP_SHARED: reads and writes are memcpy through the page cache, so the
// cost measured is page faults and copies, as in the seeds' "mode=mmap".
//
// Faults: a page the filesystem cannot provide raises SIGBUS inside the copy (a sparse file's
// page on a full filesystem, a device error on read, a truncated file). The copies run under
// guarded_copy(), so such a fault ends the op with an IoError naming the offset and the
// inferred errno, like a failed pwrite, and the runner ends the phase cleanly. Reserving the
// blocks up front (posix_fallocate at open) would turn the full-filesystem case into a plain
// ENOSPC before the phase, but it changes what a write phase measures (block allocation moves
// out of the timed page faults) and leaves the EIO and truncation cases anyway; so we do not.
class MmapFile final : public IoFile {
 public:
  MmapFile(UniqueFd fd, std::filesystem::path path, std::uint64_t size, bool writable)
      : fd_(std::move(fd)), path_(std::move(path)), size_(size) {
    if (size_ == 0) return;
    if (const int err = detail::install_mapping_fault_handler(); err != 0) {
      throw IoError(err, "sigaction (SIGBUS handler for mapped I/O)", path_.string());
    }
    const int prot = PROT_READ | (writable ? PROT_WRITE : 0);
    void* map = ::mmap(nullptr, size_, prot, MAP_SHARED, fd_.get(), 0);
    if (map == MAP_FAILED) throw IoError(errno, "mmap", path_.string());
    map_ = static_cast<std::byte*>(map);
  }
  ~MmapFile() override {
    if (map_ != nullptr) ::munmap(map_, size_);
  }
  MmapFile(const MmapFile&) = delete;
  MmapFile& operator=(const MmapFile&) = delete;

  void read_at(std::span<std::byte> buf, std::uint64_t offset) override {
    check_range(buf.size(), offset, "mmap read");
    if (const std::byte* fault =
            detail::guarded_copy(buf.data(), map_ + offset, buf.size(), map_, size_)) {
      throw fault_error(fd_.get(), path_, false, static_cast<std::uint64_t>(fault - map_));
    }
  }
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override {
    check_range(buf.size(), offset, "mmap write");
    if (const std::byte* fault =
            detail::guarded_copy(map_ + offset, buf.data(), buf.size(), map_, size_)) {
      throw fault_error(fd_.get(), path_, true, static_cast<std::uint64_t>(fault - map_));
    }
  }
  void sync() override {
    if (map_ != nullptr && ::msync(map_, size_, MS_SYNC) != 0) {
      throw IoError(errno, "msync", path_.string());
    }
  }
  void close() override {
    if (map_ != nullptr) {
      ::munmap(map_, size_);
      map_ = nullptr;
    }
    fd_.close(path_);
  }
  [[nodiscard]] std::uint64_t size() const override { return size_; }
  [[nodiscard]] int fd() const override { return fd_.get(); }
  [[nodiscard]] const std::filesystem::path& path() const override { return path_; }

 private:
  void check_range(std::size_t len, std::uint64_t offset, const char* what) const {
    if (map_ == nullptr || offset > size_ || len > size_ - offset) {
      throw IoError(EINVAL, what, path_.string() + " (beyond the mapped size)");
    }
  }

  UniqueFd fd_;
  std::filesystem::path path_;
  std::uint64_t size_;
  std::byte* map_ = nullptr;
};

class MmapEngine final : public Engine {
 public:
  [[nodiscard]] std::string name() const override { return "mmap"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.supports_direct = false, .needs_map_size = true};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    const std::filesystem::path& path = location.path();
    OpenOptions adjusted = options;
    adjusted.direct = false;
    adjusted.read = true;  // a writable shared mapping needs O_RDWR
    const int flags = detail::open_flags(adjusted);
    UniqueFd fd = location.open(flags, options.create);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw IoError(errno, "fstat", path.string());
    std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    if (options.write && options.map_size_bytes > size) {
      if (::ftruncate(fd.get(), static_cast<off_t>(options.map_size_bytes)) != 0) {
        throw IoError(errno, "ftruncate", path.string());
      }
      size = options.map_size_bytes;
    }
    return std::make_unique<MmapFile>(std::move(fd), path, size, options.write);
  }
};

}  // namespace

std::unique_ptr<Engine> make_mmap_engine() { return std::make_unique<MmapEngine>(); }

}  // namespace iobench
