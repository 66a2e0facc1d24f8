#include "plugins/filebench/flowop_aio.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>

namespace iobench::plugins::filebench {

namespace {

// A request's tag: its flowop index (high half) and length (low half), so that a short write is
// seen and named.
std::uint64_t tag_of(std::uint32_t flowop, std::uint32_t length) {
  return (std::uint64_t{flowop} << 32) | length;
}

[[noreturn]] void refuse(const WmlModel& model, std::string_view path, const FlowopDef& f,
                         const std::string& why) {
  throw ConfigError(
      "filebench: " +
      model.located(f.where, path, fmt::format("flowop aiowrite '{}' {}", f.name, why)));
}

template <typename Visit>
void for_each_aiowrite(const WmlModel& model, Visit visit) {
  for (const ProcessDef& p : model.processes) {
    for (const ThreadDef& t : p.threads) {
      for (const FlowopDef& f : t.flowops) {
        if (f.kind == FlowopKind::kAioWrite) visit(f);
      }
    }
  }
}

}  // namespace

void check_aio_engine(const WmlModel& model, const Engine& engine, std::string_view spec_text,
                      std::string_view path) {
  const EngineCaps caps = engine.caps();
  for_each_aiowrite(model, [&](const FlowopDef& f) {
    if (!caps.async) {
      refuse(model, path, f,
             fmt::format("needs an asynchronous engine and aio_engine={} is not one; give "
                         "aio_engine=io_uring or aio_engine=libaio",
                         spec_text));
    }
    if (const std::string why = engine.unavailable_reason(); !why.empty()) {
      refuse(model, path, f,
             fmt::format("needs engine {} (aio_engine={}), which is not available here: {}; give "
                         "the other of aio_engine=io_uring and aio_engine=libaio (libaio with "
                         "directio on the aiowrite)",
                         engine.name(), spec_text, why));
    }
    if ((caps.async_needs_direct || caps.polls_completions) && !f.directio) {
      refuse(model, path, f,
             fmt::format("is buffered and engine {} is asynchronous only with O_DIRECT; give the "
                         "aiowrite directio, or aio_engine=io_uring",
                         spec_text));
    }
    if (f.directio && !caps.supports_direct) {
      refuse(model, path, f,
             fmt::format("asks for directio, which engine {} does not do", spec_text));
    }
  });
}

std::unique_ptr<Engine> make_aio_engine(const WmlModel& model, std::string_view spec_text,
                                        std::string_view path) {
  bool any = false;
  for_each_aiowrite(model, [&](const FlowopDef&) { any = true; });
  if (!any) return nullptr;
  std::unique_ptr<Engine> engine;
  if (spec_text == "io_uring") {
    engine = make_io_uring_engine(EngineSpec{.name = "io_uring"});
  } else if (spec_text == "libaio") {
    engine = make_libaio_engine();
  } else {
    throw ConfigError(
        fmt::format("filebench: aio_engine={} is not an asynchronous engine; give "
                    "aio_engine=io_uring or aio_engine=libaio (the engine of {}'s "
                    "aiowrite flowops)",
                    spec_text, path));
  }
  check_aio_engine(model, *engine, spec_text, path);
  return engine;
}

AioWriter::AioWriter(const Engine& engine, std::size_t buffer_bytes,
                     std::vector<std::string> flowop_names)
    : engine_(engine),
      buffer_(std::max<std::size_t>(buffer_bytes, AlignedBuffer::kAlignment)),
      names_(std::move(flowop_names)),
      channels_(kMaxFd) {
  std::memset(buffer_.data(), 'f', buffer_.size());  // the bytes filebench's tf_mem holds
}

AioWriter::~AioWriter() {
  for (Channel& c : channels_) {
    if (!c.queue) continue;
    try {
      while (c.queue->in_flight() > 0) (void)c.queue->reap(done_, c.queue->in_flight());
    } catch (const std::exception&) {
      // Closing on the way out of a failed run: the first error was reported already.
    }
  }
}

bool AioWriter::is_open(std::uint32_t fd) const noexcept { return channels_[fd].file != nullptr; }

void AioWriter::open(std::uint32_t fd, const FileLocation& location, bool direct, bool dsync) {
  Channel& c = channels_[fd];
  c.file = engine_.open(location,
                        OpenOptions{.read = false, .write = true, .direct = direct, .sync = dsync});
  c.queue = c.file->make_queue(QueueOptions{
      .depth = kAioQueueDepth, .buffers = buffer_.span(), .buffer_bytes = buffer_.size()});
}

std::uint64_t AioWriter::reap(Channel& c, std::size_t min) {
  const std::size_t got = c.queue->reap(done_, std::min(min, done_.size()));
  for (std::size_t i = 0; i < got; ++i) {
    const IoCompletion& done = done_[i];
    const auto flowop = static_cast<std::uint32_t>(done.tag >> 32);
    const auto length = static_cast<std::uint32_t>(done.tag);
    const std::string& name = flowop < names_.size() ? names_[flowop] : names_.front();
    if (done.result < 0) {
      throw IoError(static_cast<int>(-done.result), fmt::format("flowop {} (aiowrite)", name),
                    c.file->path().string());
    }
    if (static_cast<std::uint64_t>(done.result) < length) {
      throw IoError(
          ENOSPC,
          fmt::format("flowop {} (aiowrite: {} of {} bytes written)", name, done.result, length),
          c.file->path().string());
    }
  }
  return got;
}

void AioWriter::submit(std::uint32_t fd, std::uint64_t offset, std::uint32_t length,
                       std::uint32_t flowop) {
  Channel& c = channels_[fd];
  if (c.queue->in_flight() >= c.queue->depth()) (void)reap(c, 1);
  const IoRequest request{.direction = IoDirection::kWrite,
                          .length = length,
                          .buffer = buffer_.data(),
                          .offset = offset,
                          .tag = tag_of(flowop, length),
                          .buffer_index = 0};
  c.queue->submit(std::span<const IoRequest>(&request, 1));
}

std::uint64_t AioWriter::wait_all() {
  std::uint64_t completed = 0;
  for (Channel& c : channels_) {
    while (c.queue && c.queue->in_flight() > 0) completed += reap(c, c.queue->in_flight());
  }
  return completed;
}

void AioWriter::close(std::uint32_t fd) {
  Channel& c = channels_[fd];
  if (!c.file) return;
  while (c.queue->in_flight() > 0) (void)reap(c, c.queue->in_flight());
  c.queue.reset();
  c.file->close();
  c.file.reset();
}

std::uint64_t AioWriter::in_flight() const noexcept {
  std::uint64_t n = 0;
  for (const Channel& c : channels_) n += c.queue ? c.queue->in_flight() : 0;
  return n;
}

}  // namespace iobench::plugins::filebench
