#include "plugins/bonnie/io_workers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "plugins/bonnie/file_names.hpp"

namespace iobench::plugins::bonnie {
namespace {

/// write(2) of all `size` bytes at the file position, retrying EINTR and short writes.
void write_full(int fd, const std::byte* data, std::size_t size,
                const std::filesystem::path& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(errno, "write", path.string());
    }
    if (n == 0) throw IoError(ENOSPC, "write", path.string());
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

/// read(2) of all `size` bytes at the file position (bonnie++ loops until it has the chunk).
void read_full(int fd, std::byte* data, std::size_t size, const std::filesystem::path& path) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(errno, "read", path.string());
    }
    if (n == 0) throw IoError(EIO, "read (short read: end of file)", path.string());
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void seek_to(int fd, off_t offset, int whence, const std::filesystem::path& path) {
  if (::lseek(fd, offset, whence) < 0) throw IoError(errno, "lseek", path.string());
}

std::uint64_t file_size(int fd, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw IoError(errno, "fstat", path.string());
  return static_cast<std::uint64_t>(st.st_size);
}

// O_DIRECT where the phase moves whole chunks and `direct` asks for it. Per-char phases never
// get it: a one-byte transfer cannot meet O_DIRECT's alignment (write(2) fails with EINVAL, as
// bonnie++ 2.00a -D's per-char output does: "Can't write() - disk full?").
int direct_flag(const IoArgs& args) { return args.direct ? O_DIRECT : 0; }

// Opens with a message naming O_DIRECT where the filesystem refuses it (tmpfs says EINVAL).
UniqueFd open_block_file(const IoArgs& args, int flags, bool create) {
  try {
    // Beneath the run directory, resolved there by the kernel (never through a link).
    return create ? args.run_dir.create(args.name, flags) : args.run_dir.open(args.name, flags);
  } catch (const IoError& e) {
    if ((flags & O_DIRECT) != 0 && e.error_number() == EINVAL) {
      throw IoError(EINVAL,
                    create ? "create with O_DIRECT (direct=true; this filesystem does not "
                             "support it)"
                           : "open with O_DIRECT (direct=true; this filesystem does not support "
                             "it)",
                    args.file.string());
    }
    throw;
  }
}

/// What every I/O-file worker holds: the open file, a page-aligned chunk buffer (zeroed; the
/// readers read into it, rewrite and seeks write back what they read).
class FileWorker : public PhaseWorker {
 protected:
  FileWorker(const IoArgs& args, UniqueFd fd)
      : args_(args), fd_(std::move(fd)), buffer_(args.chunk_bytes) {
    std::memset(buffer_.data(), 0, buffer_.size());
  }

  /// bonnie++'s Close(): fsync + close, inside the timed part. A phase being abandoned (the
  /// run is stopped) skips the fsync, which could hold the stop up for seconds of writeback.
  void sync_and_close(const WorkerContext& ctx) {
    if (!ctx.stop_requested() && ::fsync(fd_.get()) != 0) {
      throw IoError(errno, "fsync", args_.file.string());
    }
    fd_.close(args_.file);
  }

  [[nodiscard]] std::uint64_t chunks_in_file() const {
    return file_size(fd_.get(), args_.file) / args_.chunk_bytes;
  }

  IoArgs args_;
  UniqueFd fd_;
  AlignedBuffer buffer_;
};

class PutcWorker final : public FileWorker {
 public:
  explicit PutcWorker(const IoArgs& args)
      : FileWorker(args, args.run_dir.create(args.name, O_RDWR)) {}

  void run(WorkerContext& ctx) override {
    const int fd = fd_.get();
    const std::uint32_t chunk = args_.chunk_bytes;
    const std::uint64_t chunks = args_.per_char_bytes / chunk;
    std::uint64_t calls = 0;
    OpTimer timer;
    for (std::uint64_t i = 0; i < chunks && ctx.keep_going(); ++i) {
      for (std::uint32_t j = 0; j < chunk; ++j) {
        const auto c = static_cast<unsigned char>(j & 0x7f);
        while (::write(fd, &c, 1) != 1) {
          if (errno != EINTR) throw IoError(errno, "write (one byte)", args_.file.string());
        }
      }
      calls += chunk;
      timer.lap(ctx, kIoOp, chunk);
    }
    ctx.add_counter(kCallsCounter, calls);
    sync_and_close(ctx);
  }
};

/// Removes the per-char output's file if it is there, so block output creates the file anew.
UniqueFd recreate(const IoArgs& args) {
  if (const int err = args.run_dir.try_unlink(args.name); err != 0 && err != ENOENT) {
    throw IoError(err, "unlink", args.file.string());
  }
  return open_block_file(args, O_RDWR | direct_flag(args), true);
}

class PutBlockWorker final : public FileWorker {
 public:
  explicit PutBlockWorker(const IoArgs& args)
      : FileWorker(args, recreate(args)), data_(args.data, args.chunk_bytes, args.seed) {}

  void run(WorkerContext& ctx) override {
    const int fd = fd_.get();
    const std::uint32_t chunk = args_.chunk_bytes;
    const std::uint64_t chunks = args_.file_bytes / chunk;
    OpTimer timer;
    for (std::uint64_t i = 0; i < chunks && ctx.keep_going(); ++i) {
      write_full(fd, data_.block(i).data(), chunk, args_.file);
      timer.lap(ctx, kIoOp, chunk);
    }
    sync_and_close(ctx);
  }

 private:
  PatternBuffer data_;
};

class RewriteWorker final : public FileWorker {
 public:
  explicit RewriteWorker(const IoArgs& args)
      : FileWorker(args, open_block_file(args, O_RDWR | direct_flag(args), false)),
        chunks_(chunks_in_file()) {}

  void run(WorkerContext& ctx) override {
    const int fd = fd_.get();
    const std::uint32_t chunk = args_.chunk_bytes;
    std::byte* buf = buffer_.data();
    OpTimer timer;
    for (std::uint64_t j = 0; j < chunks_ && ctx.keep_going(); ++j) {
      read_full(fd, buf, chunk, args_.file);
      auto& b = buf[j % chunk];
      b = static_cast<std::byte>(static_cast<unsigned char>(b) + 1);
      seek_to(fd, -static_cast<off_t>(chunk), SEEK_CUR, args_.file);
      write_full(fd, buf, chunk, args_.file);
      timer.lap(ctx, kIoOp, chunk);
    }
    sync_and_close(ctx);
  }

 private:
  std::uint64_t chunks_;
};

class GetcWorker final : public FileWorker {
 public:
  explicit GetcWorker(const IoArgs& args)
      : FileWorker(args, args.run_dir.open(args.name, O_RDWR)),
        chunks_(std::min(args.per_char_bytes / args.chunk_bytes, chunks_in_file())) {}

  void run(WorkerContext& ctx) override {
    const int fd = fd_.get();
    const std::uint32_t chunk = args_.chunk_bytes;
    std::uint64_t calls = 0;
    unsigned char c = 0;
    OpTimer timer;
    for (std::uint64_t i = 0; i < chunks_ && ctx.keep_going(); ++i) {
      for (std::uint32_t j = 0; j < chunk; ++j) {
        for (;;) {
          const ssize_t n = ::read(fd, &c, 1);
          if (n == 1) break;
          if (n == 0) throw IoError(EIO, "read (one byte; end of file)", args_.file.string());
          if (errno != EINTR) throw IoError(errno, "read (one byte)", args_.file.string());
        }
      }
      calls += chunk;
      timer.lap(ctx, kIoOp, chunk);
    }
    ctx.add_counter(kCallsCounter, calls);
    sync_and_close(ctx);
  }

 private:
  std::uint64_t chunks_;
};

class GetBlockWorker final : public FileWorker {
 public:
  explicit GetBlockWorker(const IoArgs& args)
      : FileWorker(args, open_block_file(args, O_RDWR | direct_flag(args), false)),
        chunks_(chunks_in_file()) {}

  void run(WorkerContext& ctx) override {
    const int fd = fd_.get();
    const std::uint32_t chunk = args_.chunk_bytes;
    std::byte* buf = buffer_.data();
    OpTimer timer;
    for (std::uint64_t i = 0; i < chunks_ && ctx.keep_going(); ++i) {
      read_full(fd, buf, chunk, args_.file);
      timer.lap(ctx, kIoOp, chunk);
    }
    sync_and_close(ctx);
  }

 private:
  std::uint64_t chunks_;
};

class SeekWorker final : public FileWorker {
 public:
  explicit SeekWorker(const IoArgs& args)
      : FileWorker(args, open_block_file(args, O_RDWR | direct_flag(args), false)),
        chunks_(chunks_in_file()) {
    if (chunks_ == 0) throw IoError(EIO, "seek (file shorter than one chunk)", args.file.string());
  }

  void run(WorkerContext& ctx) override {
    const int fd = fd_.get();
    const std::uint32_t chunk = args_.chunk_bytes;
    std::byte* buf = buffer_.data();
    std::uint64_t updates = 0;
    OpTimer timer;
    while (ctx.keep_going()) {
      const std::uint64_t n = args_.next_ticket->fetch_add(1, std::memory_order_relaxed);
      if (n >= args_.seeks) break;
      const std::uint64_t ticket = seek_ticket(args_.seed, n);
      const std::uint64_t index = ticket % chunks_;
      const auto offset = static_cast<off_t>(index * chunk);
      seek_to(fd, offset, SEEK_SET, args_.file);
      read_full(fd, buf, chunk, args_.file);
      std::uint64_t bytes = chunk;
      if (ticket % 10 == 0) {
        auto& b = buf[index % chunk];
        b = static_cast<std::byte>(static_cast<unsigned char>(b) - 1);
        seek_to(fd, offset, SEEK_SET, args_.file);
        write_full(fd, buf, chunk, args_.file);
        if (args_.fsync && ::fsync(fd) != 0) throw IoError(errno, "fsync", args_.file.string());
        bytes += chunk;
        ++updates;
      }
      timer.lap(ctx, kIoOp, bytes);
    }
    ctx.add_counter(kUpdatesCounter, updates);
    sync_and_close(ctx);
  }

 private:
  std::uint64_t chunks_;
};

}  // namespace

std::uint64_t seek_ticket(std::uint64_t seed, std::uint64_t n) noexcept {
  return stream_value(seed, kSaltSeeks, n) >> 1;
}

std::unique_ptr<PhaseWorker> make_io_worker(PhaseId id, const IoArgs& args) {
  switch (id) {
    case PhaseId::kPutc:
      return std::make_unique<PutcWorker>(args);
    case PhaseId::kPutBlock:
      return std::make_unique<PutBlockWorker>(args);
    case PhaseId::kRewrite:
      return std::make_unique<RewriteWorker>(args);
    case PhaseId::kGetc:
      return std::make_unique<GetcWorker>(args);
    case PhaseId::kGetBlock:
      return std::make_unique<GetBlockWorker>(args);
    case PhaseId::kSeeks:
      return std::make_unique<SeekWorker>(args);
    default:
      break;
  }
  throw ConfigError("bonnie: internal error: not an I/O phase");
}

}  // namespace iobench::plugins::bonnie
