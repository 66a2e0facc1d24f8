// psync: pread(2)/pwrite(2), one request at a time (fio's engine of the same name).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/detail/psync_fast_path.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "engines/descriptor_file.hpp"
#include "engines/open_flags.hpp"

namespace iobench {
namespace {

// The queue of the most common run (psync at depth 1): one pread/pwrite per request, made by
// detail::psync_transfer(), which IoDriver's one-at-a-time loops also call inline without this
// queue's submit() and reap() (detail/psync_fast_path.hpp). Right after a system call the
// worker's TLB and caches are cold (a kernel with page-table isolation and no PCID flushes the
// TLB at every entry), and each extra layer, page of code or PLT hop then costs misses: through
// IoFile::read_at and read_all_at a 4 KiB page-cache read cost 85 ns more than one direct call
// (the two alternated in one process, 2 us reads on tmpfs).
class PsyncQueue final : public IoQueue {
 public:
  explicit PsyncQueue(detail::DescriptorFile& file) noexcept
      : IoQueue(1), file_(file), fd_(file.fd()) {}

  [[gnu::hot]] void submit(std::span<const IoRequest> requests) override {
    for (const IoRequest& r : requests) {
      done_ = detail::psync_transfer(*this, fd_, r);
      ++in_flight_;
    }
  }

  [[gnu::hot]] std::size_t reap(std::span<IoCompletion> out,
                                std::size_t /*min_completions*/) override {
    if (in_flight_ == 0 || out.empty()) return 0;
    out[0] = done_;
    --in_flight_;
    return 1;
  }

  /// The descriptor the requests read and write (detail::psync_queue_fd()).
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  friend void detail::psync_finish_request(IoQueue& queue, const IoRequest& r, ssize_t n);

  // A failed, interrupted or short call: what the file's read_at/write_at would have done from
  // there (EINTR retried, the rest moved, or the call's IoError thrown, naming pread/pwrite).
  [[gnu::cold, gnu::noinline]] void finish(const IoRequest& r, ssize_t n) {
    const std::size_t done = n > 0 ? static_cast<std::size_t>(n) : 0;
    if (n < 0 && errno != EINTR) {
      throw IoError(errno, r.direction == IoDirection::kRead ? "pread" : "pwrite",
                    file_.path().string());
    }
    if (r.direction == IoDirection::kRead) {
      file_.read_at({r.buffer + done, r.length - done}, r.offset + done);
    } else {
      file_.write_at({r.buffer + done, r.length - done}, r.offset + done);
    }
  }

  detail::DescriptorFile& file_;
  int fd_;
  IoCompletion done_;
};

class PsyncFile final : public detail::DescriptorFile {
 public:
  using DescriptorFile::DescriptorFile;
  [[nodiscard]] std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override {
    if (options.depth != 1) return IoFile::make_queue(options);  // refused: synchronous engine
    return std::make_unique<PsyncQueue>(*this);
  }
};

class PsyncEngine final : public Engine {
 public:
  [[nodiscard]] std::string name() const override { return "psync"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.supports_direct = true, .needs_map_size = false};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    const std::filesystem::path& path = location.path();
    const int flags = detail::open_flags(options);
    UniqueFd fd = location.open(flags, options.create);
    return std::make_unique<PsyncFile>(std::move(fd), path);
  }
};

}  // namespace

std::unique_ptr<Engine> make_psync_engine() { return std::make_unique<PsyncEngine>(); }

int detail::psync_queue_fd(const IoQueue& queue) noexcept {
  const auto* psync = dynamic_cast<const PsyncQueue*>(&queue);
  return psync != nullptr ? psync->fd() : -1;
}

void detail::psync_finish_request(IoQueue& queue, const IoRequest& r, ssize_t n) {
  const int saved_errno = errno;  // the failed call's, for finish()
  auto* psync = dynamic_cast<PsyncQueue*>(&queue);
  if (psync == nullptr) throw Error("psync_finish_request: the queue is not the psync engine's");
  errno = saved_errno;
  psync->finish(r, n);
}

}  // namespace iobench
