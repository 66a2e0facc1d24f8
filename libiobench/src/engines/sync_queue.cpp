// The queue every synchronous engine serves by default: depth 1, the I/O done inside submit().
#include <fmt/format.h>

#include <iobench/engine.hpp>
#include <iobench/error.hpp>

namespace iobench {
namespace {

class SyncQueue final : public IoQueue {
 public:
  explicit SyncQueue(IoFile& file) noexcept : IoQueue(1), file_(file) {}

  void submit(std::span<const IoRequest> requests) override {
    for (const IoRequest& request : requests) {
      // read_at/write_at move the whole request or throw the failed call's IoError, which ends
      // the worker the same way as before queues existed.
      if (request.direction == IoDirection::kRead) {
        file_.read_at({request.buffer, request.length}, request.offset);
      } else {
        file_.write_at({request.buffer, request.length}, request.offset);
      }
      done_ = {request.tag, static_cast<std::int64_t>(request.length)};
      ++in_flight_;
    }
  }

  std::size_t reap(std::span<IoCompletion> out, std::size_t /*min_completions*/) override {
    if (in_flight_ == 0 || out.empty()) return 0;
    out[0] = done_;
    --in_flight_;
    return 1;
  }

 private:
  IoFile& file_;
  IoCompletion done_;
};

}  // namespace

std::unique_ptr<IoQueue> IoFile::make_queue(const QueueOptions& options) {
  if (options.depth != 1) {
    throw ConfigError(fmt::format(
        "iodepth={}: this engine is synchronous (one I/O at a time); use iodepth=1, or an "
        "asynchronous engine such as io_uring or libaio",
        options.depth));
  }
  return std::make_unique<SyncQueue>(*this);
}

}  // namespace iobench
