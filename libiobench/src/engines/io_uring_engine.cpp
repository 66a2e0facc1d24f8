// io_uring through liburing: one ring per worker queue, requests batched into one
// io_uring_submit and reaped in batches from the completion ring (no syscall while completions are
// already there). Options as fio names them: fixedbufs, registerfiles, sqpoll, hipri.
#include <fmt/format.h>
#include <liburing.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <vector>

#include "engines/descriptor_file.hpp"
#include "engines/open_flags.hpp"

namespace iobench {
namespace {

constexpr std::uint32_t kMaxDepth = 4096;

struct UringOptions {
  bool fixed_buffers = false;
  bool registered_file = false;
  bool sq_poll = false;
  bool polled = false;
};

// What a user can do about a refused ring: the usual causes, named.
std::string ring_error_hint(int err) {
  switch (err) {
    case ENOSYS:
      return " (this kernel has no io_uring)";
    case EPERM:
      return " (io_uring is disabled here: kernel.io_uring_disabled, a seccomp filter or a "
             "container policy)";
    case ENOMEM:
      return " (locked-memory limit too low for the ring: raise ulimit -l or lower iodepth)";
    default:
      return "";
  }
}

class UringQueue final : public IoQueue {
 public:
  UringQueue(int fd, const std::filesystem::path& path, const QueueOptions& options,
             const UringOptions& uring)
      : IoQueue(options.depth), path_(path), fd_(fd), fixed_buffers_(uring.fixed_buffers) {
    io_uring_params params{};
    if (uring.sq_poll) {
      params.flags |= IORING_SETUP_SQPOLL;
      params.sq_thread_idle = 1000;  // ms before the kernel thread sleeps
    }
    if (uring.polled) params.flags |= IORING_SETUP_IOPOLL;
    // One worker thread submits and reaps, so completions can wait for its next reap instead of
    // interrupting it (COOP_TASKRUN) and run in its reaping call (DEFER_TASKRUN, which needs
    // SINGLE_ISSUER and no SQ thread), as fio sets up its rings. Kernels before 6.1 refuse the
    // flags with EINVAL: the ring is then made without them.
    const unsigned taskrun_flags =
        uring.sq_poll
            ? 0U
            : IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    io_uring_params with_flags = params;
    with_flags.flags |= taskrun_flags;
    int init = io_uring_queue_init_params(options.depth, &ring_, &with_flags);
    if (init == -EINVAL && taskrun_flags != 0) {
      init = io_uring_queue_init_params(options.depth, &ring_, &params);
    } else {
      deferred_completions_ = init >= 0 && taskrun_flags != 0;
    }
    if (init < 0) {
      throw IoError(-init, "io_uring_queue_init" + ring_error_hint(-init), path.string());
    }
    ready_ = true;
    if (uring.registered_file) {
      if (const int ret = io_uring_register_files(&ring_, &fd_, 1); ret < 0) {
        throw IoError(-ret, "io_uring_register_files", path.string());
      }
      fd_ = 0;  // index into the registered table
      sqe_flags_ = IOSQE_FIXED_FILE;
    }
    if (fixed_buffers_) {
      if (options.buffers.empty() || options.buffer_bytes == 0) {
        throw IoError(EINVAL, "io_uring fixedbufs (no buffers to register)", path.string());
      }
      std::vector<iovec> iovecs;
      for (std::size_t at = 0; at + options.buffer_bytes <= options.buffers.size();
           at += options.buffer_bytes) {
        iovecs.push_back({options.buffers.data() + at, options.buffer_bytes});
      }
      const int ret =
          io_uring_register_buffers(&ring_, iovecs.data(), static_cast<unsigned>(iovecs.size()));
      if (ret < 0) {
        throw IoError(-ret, "io_uring_register_buffers" + ring_error_hint(-ret), path.string());
      }
    }
    cqes_.resize(options.depth);
  }
  ~UringQueue() override {
    if (ready_) io_uring_queue_exit(&ring_);
  }
  UringQueue(const UringQueue&) = delete;
  UringQueue& operator=(const UringQueue&) = delete;

  void submit(std::span<const IoRequest> requests) override {
    for (const IoRequest& r : requests) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);  // never null: in flight + batch <= depth
      const bool read = r.direction == IoDirection::kRead;
      if (fixed_buffers_) {
        if (read) {
          io_uring_prep_read_fixed(sqe, fd_, r.buffer, r.length, r.offset,
                                   static_cast<int>(r.buffer_index));
        } else {
          io_uring_prep_write_fixed(sqe, fd_, r.buffer, r.length, r.offset,
                                    static_cast<int>(r.buffer_index));
        }
      } else if (read) {
        io_uring_prep_read(sqe, fd_, r.buffer, r.length, r.offset);
      } else {
        io_uring_prep_write(sqe, fd_, r.buffer, r.length, r.offset);
      }
      sqe->flags |= sqe_flags_;
      io_uring_sqe_set_data64(sqe, r.tag);
    }
    std::size_t left = requests.size();
    while (left > 0) {
      const int ret = io_uring_submit(&ring_);
      if (ret == -EINTR || ret == -EAGAIN) continue;
      if (ret < 0) throw IoError(-ret, "io_uring_submit", path_.string());
      left -= std::min<std::size_t>(left, static_cast<std::size_t>(ret));
      if (ret == 0) break;  // SQPOLL: the kernel thread took them (counted as submitted)
    }
    in_flight_ += static_cast<std::uint32_t>(requests.size());
  }

  std::size_t reap(std::span<IoCompletion> out, std::size_t min_completions) override {
    const auto max = static_cast<unsigned>(std::min(out.size(), cqes_.size()));
    unsigned n = io_uring_peek_batch_cqe(&ring_, cqes_.data(), max);
    if (n == 0 && min_completions == 0 && deferred_completions_) {
      // A poll (open loop): deferred completions are posted only when the ring is entered.
      if (const int r = io_uring_get_events(&ring_); r < 0 && r != -EINTR && r != -EAGAIN) {
        throw IoError(-r, "io_uring_get_events", path_.string());
      }
      n = io_uring_peek_batch_cqe(&ring_, cqes_.data(), max);
    }
    while (n < min_completions) {
      io_uring_cqe* cqe = nullptr;
      const int ret = io_uring_wait_cqe_nr(&ring_, &cqe, static_cast<unsigned>(min_completions));
      if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -ETIME) {
        throw IoError(-ret, "io_uring_wait_cqe", path_.string());
      }
      n = io_uring_peek_batch_cqe(&ring_, cqes_.data(), max);
    }
    for (unsigned i = 0; i < n; ++i) {
      out[i] = {io_uring_cqe_get_data64(cqes_[i]), cqes_[i]->res};
    }
    io_uring_cq_advance(&ring_, n);
    in_flight_ -= n;
    return n;
  }

 private:
  io_uring ring_{};
  bool ready_ = false;
  std::filesystem::path path_;
  int fd_;
  bool fixed_buffers_;
  bool deferred_completions_ = false;  // IORING_SETUP_DEFER_TASKRUN took
  unsigned char sqe_flags_ = 0;
  std::vector<io_uring_cqe*> cqes_;
};

class UringFile final : public detail::DescriptorFile {
 public:
  UringFile(UniqueFd fd, std::filesystem::path path, UringOptions options)
      : DescriptorFile(std::move(fd), std::move(path)), options_(options) {}
  [[nodiscard]] std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override {
    if (options.depth < 1 || options.depth > kMaxDepth) {
      throw ConfigError(fmt::format("iodepth={}: io_uring takes 1..{}", options.depth, kMaxDepth));
    }
    return std::make_unique<UringQueue>(fd_.get(), path_, options, options_);
  }

 private:
  UringOptions options_;
};

class UringEngine final : public Engine {
 public:
  explicit UringEngine(const EngineSpec& spec)
      : options_{.fixed_buffers = spec.has("fixedbufs"),
                 .registered_file = spec.has("registerfiles"),
                 .sq_poll = spec.has("sqpoll"),
                 .polled = spec.has("hipri")} {
    // Probe once: a container or kernel that refuses io_uring says so before any I/O.
    io_uring ring{};
    if (const int ret = io_uring_queue_init(2, &ring, 0); ret < 0) {
      unavailable_ =
          fmt::format("io_uring_queue_init: {}{}", std::strerror(-ret), ring_error_hint(-ret));
    } else {
      io_uring_queue_exit(&ring);
    }
  }
  [[nodiscard]] std::string name() const override { return "io_uring"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.async = true,
                      .max_depth = kMaxDepth,
                      .supports_direct = true,
                      .polls_completions = options_.polled,
                      .registered_buffers = options_.fixed_buffers,
                      .registered_files = options_.registered_file};
  }
  [[nodiscard]] std::string unavailable_reason() const override { return unavailable_; }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    const std::filesystem::path& path = location.path();
    const int flags = detail::open_flags(options);
    UniqueFd fd = location.open(flags, options.create);
    return std::make_unique<UringFile>(std::move(fd), path, options_);
  }

 private:
  UringOptions options_;
  std::string unavailable_;
};

}  // namespace

std::unique_ptr<Engine> make_io_uring_engine(const EngineSpec& spec) {
  return std::make_unique<UringEngine>(spec);
}

}  // namespace iobench
