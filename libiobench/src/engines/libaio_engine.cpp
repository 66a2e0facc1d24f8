// Linux native AIO (libaio): io_submit of a batch, io_getevents for completions. Only O_DIRECT is
// really asynchronous (buffered requests are copied inside io_submit), so the engine's caps say
// so and buffered use is refused before any I/O.
#include <fmt/format.h>
#include <libaio.h>
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

class AioQueue final : public IoQueue {
 public:
  AioQueue(int fd, const std::filesystem::path& path, std::uint32_t depth)
      : IoQueue(depth), fd_(fd), path_(path), iocbs_(depth), tags_(depth), events_(depth) {
    if (const int ret = io_setup(static_cast<int>(depth), &context_); ret < 0) {
      throw IoError(
          -ret,
          -ret == EAGAIN ? "io_setup (fs.aio-max-nr is too low for this iodepth)" : "io_setup",
          path.string());
    }
    free_.reserve(depth);
    for (std::uint32_t i = depth; i > 0; --i) free_.push_back(i - 1);
    batch_.reserve(depth);
  }
  ~AioQueue() override { io_destroy(context_); }
  AioQueue(const AioQueue&) = delete;
  AioQueue& operator=(const AioQueue&) = delete;

  void submit(std::span<const IoRequest> requests) override {
    batch_.clear();
    for (const IoRequest& r : requests) {
      const std::uint32_t slot = free_.back();
      free_.pop_back();
      iocb* cb = &iocbs_[slot];
      if (r.direction == IoDirection::kRead) {
        io_prep_pread(cb, fd_, r.buffer, r.length, static_cast<long long>(r.offset));
      } else {
        io_prep_pwrite(cb, fd_, r.buffer, r.length, static_cast<long long>(r.offset));
      }
      tags_[slot] = r.tag;
      batch_.push_back(cb);
    }
    std::size_t done = 0;
    while (done < batch_.size()) {
      const int ret =
          io_submit(context_, static_cast<long>(batch_.size() - done), batch_.data() + done);
      if (ret == -EINTR || ret == -EAGAIN) continue;
      if (ret < 0) throw IoError(-ret, "io_submit", path_.string());
      done += static_cast<std::size_t>(ret);
    }
    in_flight_ += static_cast<std::uint32_t>(requests.size());
  }

  std::size_t reap(std::span<IoCompletion> out, std::size_t min_completions) override {
    const auto max = static_cast<long>(std::min(out.size(), events_.size()));
    int n = 0;
    while (true) {
      n = io_getevents(context_, static_cast<long>(min_completions), max, events_.data(), nullptr);
      if (n >= 0) break;
      if (n != -EINTR) throw IoError(-n, "io_getevents", path_.string());
    }
    for (int i = 0; i < n; ++i) {
      const auto slot = static_cast<std::uint32_t>(events_[i].obj - iocbs_.data());
      // res is the transfer's byte count or a negated errno, in an unsigned long.
      out[i] = {tags_[slot], static_cast<std::int64_t>(static_cast<long>(events_[i].res))};
      free_.push_back(slot);
    }
    in_flight_ -= static_cast<std::uint32_t>(n);
    return static_cast<std::size_t>(n);
  }

 private:
  io_context_t context_{};
  int fd_;
  std::filesystem::path path_;
  std::vector<iocb> iocbs_;
  std::vector<std::uint64_t> tags_;
  std::vector<io_event> events_;
  std::vector<std::uint32_t> free_;
  std::vector<iocb*> batch_;
};

class AioFile final : public detail::DescriptorFile {
 public:
  using DescriptorFile::DescriptorFile;
  [[nodiscard]] std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override {
    if (options.depth < 1 || options.depth > kMaxDepth) {
      throw ConfigError(fmt::format("iodepth={}: libaio takes 1..{}", options.depth, kMaxDepth));
    }
    return std::make_unique<AioQueue>(fd_.get(), path_, options.depth);
  }
};

class AioEngine final : public Engine {
 public:
  AioEngine() {
    io_context_t context{};
    if (const int ret = io_setup(1, &context); ret < 0) {
      unavailable_ = fmt::format("io_setup: {}", std::strerror(-ret));
    } else {
      io_destroy(context);
    }
  }
  [[nodiscard]] std::string name() const override { return "libaio"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{
        .async = true, .max_depth = kMaxDepth, .supports_direct = true, .async_needs_direct = true};
  }
  [[nodiscard]] std::string unavailable_reason() const override { return unavailable_; }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    const std::filesystem::path& path = location.path();
    const int flags = detail::open_flags(options);
    UniqueFd fd = location.open(flags, options.create);
    return std::make_unique<AioFile>(std::move(fd), path);
  }

 private:
  std::string unavailable_;
};

}  // namespace

std::unique_ptr<Engine> make_libaio_engine() { return std::make_unique<AioEngine>(); }

}  // namespace iobench
