// The queue every synchronous engine serves by default: depth 1, the I/O done inside submit().
#include <fmt/format.h>

#include <iobench/engine.hpp>
#include <iobench/error.hpp>

#include "engines/depth1_queue.hpp"

namespace iobench {

std::unique_ptr<IoQueue> IoFile::make_queue(const QueueOptions& options) {
  if (options.depth != 1) {
    throw ConfigError(fmt::format(
        "iodepth={}: this engine is synchronous (one I/O at a time); use iodepth=1, or an "
        "asynchronous engine such as io_uring or libaio",
        options.depth));
  }
  // read_at/write_at move the whole request or throw the failed call's IoError, which ends the
  // worker the same way as before queues existed.
  const auto transfer = [this](const IoRequest& request) {
    if (request.direction == IoDirection::kRead) {
      read_at({request.buffer, request.length}, request.offset);
    } else {
      write_at({request.buffer, request.length}, request.offset);
    }
    return static_cast<std::int64_t>(request.length);
  };
  return std::make_unique<detail::Depth1Queue<decltype(transfer)>>(transfer);
}

}  // namespace iobench
