#pragma once

#include <cstdint>
#include <iobench/engine.hpp>
#include <memory>
#include <vector>

namespace iobench::plugins::disk {

/// A worker's files (nrfiles) seen as one IoFile, and the trims (fio's trim ops) its queue does
/// itself. File f's byte x lies at offset f * file_span + x of the set, so a source addresses
/// every file through one IoDriver; requests go to the file their offset names.
/// A trim is a request whose slot (IoRequest::tag) is marked in trim_slots(): it punches a hole
/// in the file (fallocate FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, as fio's trims on files)
/// or, on a block device, discards the range (ioctl BLKDISCARD, as fio's trims on devices),
/// synchronously inside submit(); it completes with its length. An engine without a descriptor
/// (null) completes it without a call. Not thread-safe (one worker's).
class DiskFileSet final : public IoFile {
 public:
  /// REQUIRES: files not empty, file_span > 0; `slots` the queue depth (trim_slots' size).
  DiskFileSet(std::vector<std::unique_ptr<IoFile>> files, std::uint64_t file_span,
              std::uint32_t slots);

  /// Per request slot (IoRequest::tag): 1 if the request built there is a trim. The source
  /// sets it in next(); the queue reads it in submit().
  [[nodiscard]] std::vector<char>& trim_slots() noexcept { return trim_slots_; }

  void read_at(std::span<std::byte> buf, std::uint64_t offset) override;
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override;
  /// Punches the hole [offset, offset + length) of the set (a block device: discards it).
  /// Throws IoError naming fallocate (or BLKDISCARD), its errno (EOPNOTSUPP: the filesystem or
  /// device has no hole punching or discard; EINVAL: a range not aligned to the device's
  /// logical block size) and the file.
  void trim(std::uint64_t offset, std::uint64_t length);
  /// fsync of every file, in order; throws the first failure.
  void sync() override;
  void close() override;
  /// The sum of the files' sizes.
  [[nodiscard]] std::uint64_t size() const override;
  /// The first file's descriptor.
  [[nodiscard]] int fd() const override { return files_.front()->fd(); }
  [[nodiscard]] const std::filesystem::path& path() const override {
    return files_.front()->path();
  }
  /// A queue with one queue of depth `options.depth` per file beneath it.
  [[nodiscard]] std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override;

  /// The file `offset` lies in, and the offset within it.
  [[nodiscard]] std::pair<std::size_t, std::uint64_t> locate(std::uint64_t offset) const noexcept {
    return {static_cast<std::size_t>(offset / span_), offset % span_};
  }

 private:
  std::vector<std::unique_ptr<IoFile>> files_;
  std::uint64_t span_;
  std::vector<char> trim_slots_;
  std::vector<char> block_device_;  ///< per file: 1 for a block device (trims discard)
};

}  // namespace iobench::plugins::disk
