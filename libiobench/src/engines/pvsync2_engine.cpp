// pvsync2: preadv2(2)/pwritev2(2), fio's engine of the same name. The per-call flags are the point:
// RWF_HIPRI polls for the completion (O_DIRECT on a device with poll queues), RWF_NOWAIT fails a
// request that would block with EAGAIN instead of waiting.
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "engines/depth1_queue.hpp"
#include "engines/descriptor_file.hpp"
#include "engines/open_flags.hpp"

namespace iobench {
namespace {

// One call; returns bytes moved or -errno (EINTR retried).
std::int64_t transfer(int fd, IoDirection direction, std::byte* buffer, std::size_t length,
                      std::uint64_t offset, int flags) noexcept {
  iovec iov{buffer, length};
  while (true) {
    const ssize_t n = direction == IoDirection::kRead
                          ? ::preadv2(fd, &iov, 1, static_cast<off_t>(offset), flags)
                          : ::pwritev2(fd, &iov, 1, static_cast<off_t>(offset), flags);
    if (n >= 0) return n;
    if (errno != EINTR) return -errno;
  }
}

class Pvsync2File final : public detail::DescriptorFile {
 public:
  Pvsync2File(UniqueFd fd, std::filesystem::path path, int flags)
      : DescriptorFile(std::move(fd), std::move(path)), flags_(flags) {}

  void read_at(std::span<std::byte> buf, std::uint64_t offset) override {
    move_all(IoDirection::kRead, buf.data(), buf.size(), offset);
  }
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override {
    // pwritev2 does not write through the iovec; the cast only fits the shared signature.
    move_all(IoDirection::kWrite, const_cast<std::byte*>(buf.data()), buf.size(), offset);
  }
  [[nodiscard]] std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override;

  // One request: a would-block (EAGAIN under RWF_NOWAIT) comes back as a result for the caller
  // to count; other failures throw, and a short transfer is finished without the flags.
  [[nodiscard]] std::int64_t request(const IoRequest& r) {
    const std::int64_t n = transfer(fd_.get(), r.direction, r.buffer, r.length, r.offset, flags_);
    if (n == -EAGAIN && (flags_ & RWF_NOWAIT) != 0) return n;
    if (n < 0) throw IoError(static_cast<int>(-n), call_name(r.direction), path_.string());
    if (static_cast<std::uint64_t>(n) < r.length) {
      const auto done = static_cast<std::size_t>(n);
      move_all(r.direction, r.buffer + done, r.length - done, r.offset + done);
    }
    return r.length;
  }

 private:
  static const char* call_name(IoDirection d) noexcept {
    return d == IoDirection::kRead ? "preadv2" : "pwritev2";
  }
  void move_all(IoDirection direction, std::byte* buffer, std::size_t length,
                std::uint64_t offset) {
    while (length > 0) {
      // Blocking and unpolled here: this path finishes what a flagged call left.
      const std::int64_t n = transfer(fd_.get(), direction, buffer, length, offset, 0);
      if (n < 0) throw IoError(static_cast<int>(-n), call_name(direction), path_.string());
      if (n == 0) {
        throw IoError(
            direction == IoDirection::kRead ? EIO : ENOSPC,
            direction == IoDirection::kRead ? "preadv2 (short read: end of file)" : "pwritev2",
            path_.string());
      }
      const auto moved = static_cast<std::size_t>(n);
      buffer += moved;
      length -= moved;
      offset += moved;
    }
  }

  int flags_;
};

std::unique_ptr<IoQueue> Pvsync2File::make_queue(const QueueOptions& options) {
  if (options.depth != 1) return IoFile::make_queue(options);  // the same refusal as psync
  const auto transfer = [this](const IoRequest& r) { return request(r); };
  return std::make_unique<detail::Depth1Queue<decltype(transfer)>>(transfer);
}

class Pvsync2Engine final : public Engine {
 public:
  explicit Pvsync2Engine(const EngineSpec& spec)
      : flags_((spec.has("hipri") ? RWF_HIPRI : 0) | (spec.has("nowait") ? RWF_NOWAIT : 0)) {}
  [[nodiscard]] std::string name() const override { return "pvsync2"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.supports_direct = true,
                      .polls_completions = (flags_ & RWF_HIPRI) != 0,
                      .may_refuse_to_block = (flags_ & RWF_NOWAIT) != 0};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    const std::filesystem::path& path = location.path();
    const int flags = detail::open_flags(options);
    UniqueFd fd = location.open(flags, options.create);
    return std::make_unique<Pvsync2File>(std::move(fd), path, flags_);
  }

 private:
  int flags_;
};

}  // namespace

std::unique_ptr<Engine> make_pvsync2_engine(const EngineSpec& spec) {
  return std::make_unique<Pvsync2Engine>(spec);
}

}  // namespace iobench
