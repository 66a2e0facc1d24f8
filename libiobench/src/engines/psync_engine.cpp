#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "engines/open_flags.hpp"

namespace iobench {
namespace {

// pread/pwrite on one descriptor. The file keeps its path only for error messages.
class PsyncFile final : public IoFile {
 public:
  PsyncFile(UniqueFd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}

  void read_at(std::span<std::byte> buf, std::uint64_t offset) override {
    read_all_at(fd_.get(), buf, static_cast<off_t>(offset), path_);
  }
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override {
    write_all_at(fd_.get(), buf, static_cast<off_t>(offset), path_);
  }
  void sync() override {
    if (::fsync(fd_.get()) != 0) throw IoError(errno, "fsync", path_.string());
  }
  void close() override { fd_.close(path_); }
  [[nodiscard]] std::uint64_t size() const override {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) throw IoError(errno, "fstat", path_.string());
    return static_cast<std::uint64_t>(st.st_size);
  }
  [[nodiscard]] int fd() const override { return fd_.get(); }

 private:
  UniqueFd fd_;
  std::filesystem::path path_;
};

class PsyncEngine final : public Engine {
 public:
  [[nodiscard]] std::string name() const override { return "psync"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.supports_direct = true, .needs_map_size = false};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const std::filesystem::path& path,
                                             const OpenOptions& options) const override {
    const int flags = detail::open_flags(options);
    UniqueFd fd = options.create ? create_file_exclusive(path, flags) : open_existing(path, flags);
    return std::make_unique<PsyncFile>(std::move(fd), path);
  }
};

}  // namespace

std::unique_ptr<Engine> make_psync_engine() { return std::make_unique<PsyncEngine>(); }

}  // namespace iobench
