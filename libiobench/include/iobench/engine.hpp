#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace iobench {

/// How a file is opened by an engine.
struct OpenOptions {
  bool read = true;
  bool write = false;
  /// Create the file: O_CREAT|O_EXCL|O_NOFOLLOW (never reuses or follows an existing path).
  bool create = false;
  /// O_DIRECT: bypass the page cache. Buffers and offsets must be aligned (see AlignedBuffer).
  bool direct = false;
  /// O_SYNC (each write durable with metadata); see `dsync`.
  bool sync = false;
  /// O_DSYNC (each write's data durable).
  bool dsync = false;
  /// For engines that map the file (mmap): the size to map; a created file is extended to it.
  std::uint64_t map_size_bytes = 0;
};

/// What an engine can do; the core and workloads decide by these flags, never by engine name.
struct EngineCaps {
  bool supports_direct = false;  ///< honours OpenOptions::direct
  bool needs_map_size = false;   ///< OpenOptions::map_size_bytes must be set for writes
};

/// An open file of an engine. Owned by one worker; not thread-safe.
///
/// read_at/write_at move the whole span or throw: short transfers are retried, EINTR is retried,
/// a read past end of file throws IoError(EIO-like "short read").
class IoFile {
 public:
  virtual ~IoFile() = default;
  /// Reads buf.size() bytes at `offset`. Throws IoError.
  virtual void read_at(std::span<std::byte> buf, std::uint64_t offset) = 0;
  /// Writes buf.size() bytes at `offset`. Throws IoError (ENOSPC, EIO...).
  virtual void write_at(std::span<const std::byte> buf, std::uint64_t offset) = 0;
  /// fsync(2) (or msync for mapped files). Throws IoError.
  virtual void sync() = 0;
  /// Closes now (errors from close are reported, unlike the destructor). Throws IoError.
  virtual void close() = 0;
  /// Current size of the file in bytes.
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  /// The underlying descriptor (-1 once closed).
  [[nodiscard]] virtual int fd() const = 0;
};

/// How bytes move: psync (pread/pwrite), mmap, ... Stateless and shareable across workers.
class Engine {
 public:
  virtual ~Engine() = default;
  /// Registered name, e.g. "psync".
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual EngineCaps caps() const = 0;
  /// Opens `path`. Throws IoError on failure (EEXIST when `create` finds an existing path).
  [[nodiscard]] virtual std::unique_ptr<IoFile> open(const std::filesystem::path& path,
                                                     const OpenOptions& options) const = 0;
};

/// A heap buffer aligned for O_DIRECT (4096 bytes) and filled with a non-zero, non-repeating byte
/// pattern so filesystems that compress or dedupe zeroes are not flattered. Move-only.
class AlignedBuffer {
 public:
  static constexpr std::size_t kAlignment = 4096;
  AlignedBuffer() = default;
  /// Allocates `size_bytes` (rounded up to kAlignment). Throws std::bad_alloc.
  explicit AlignedBuffer(std::size_t size_bytes);
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  [[nodiscard]] std::span<std::byte> span() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const std::byte> span() const noexcept { return {data_, size_}; }
  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// The psync engine: pread(2)/pwrite(2) with OpenOptions' O_DIRECT, O_SYNC, O_DSYNC.
[[nodiscard]] std::unique_ptr<Engine> make_psync_engine();
/// The mmap engine: the file is mapped MAP_SHARED; reads and writes are memcpy, sync is msync.
[[nodiscard]] std::unique_ptr<Engine> make_mmap_engine();

}  // namespace iobench
