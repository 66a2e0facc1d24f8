#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

namespace iobench::detail {

/// An IoFile over one open descriptor: read_at/write_at by pread(2)/pwrite(2) to the full length,
/// fsync(2), fstat(2), close(2). psync's file as it is; pvsync2, io_uring and libaio derive from
/// it for their queues (pvsync2 also for its flagged transfers). The path is for messages only.
/// Throws IoError naming the path and the call.
class DescriptorFile : public IoFile {
 public:
  DescriptorFile(UniqueFd fd, std::filesystem::path path)
      : fd_(std::move(fd)), path_(std::move(path)) {}

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
  [[nodiscard]] const std::filesystem::path& path() const override { return path_; }

 protected:
  UniqueFd fd_;
  std::filesystem::path path_;
};

}  // namespace iobench::detail
