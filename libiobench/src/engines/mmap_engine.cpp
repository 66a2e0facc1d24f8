#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "engines/open_flags.hpp"

namespace iobench {
namespace {

// The whole file mapped MAP_SHARED: reads and writes are memcpy through the page cache, so the
// cost measured is page faults and copies, as in the seeds' "mode=mmap".
class MmapFile final : public IoFile {
 public:
  MmapFile(UniqueFd fd, std::filesystem::path path, std::uint64_t size, bool writable)
      : fd_(std::move(fd)), path_(std::move(path)), size_(size) {
    if (size_ == 0) return;
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
    std::memcpy(buf.data(), map_ + offset, buf.size());
  }
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override {
    check_range(buf.size(), offset, "mmap write");
    std::memcpy(map_ + offset, buf.data(), buf.size());
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
  [[nodiscard]] std::unique_ptr<IoFile> open(const std::filesystem::path& path,
                                             const OpenOptions& options) const override {
    OpenOptions adjusted = options;
    adjusted.direct = false;
    adjusted.read = true;  // a writable shared mapping needs O_RDWR
    const int flags = detail::open_flags(adjusted);
    UniqueFd fd = options.create ? create_file_exclusive(path, flags) : open_existing(path, flags);
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
