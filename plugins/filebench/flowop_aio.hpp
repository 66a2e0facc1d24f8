#pragma once

/// filebench's aiowrite and aiowait (fb_lfsflow_aiowrite/_aiowait, POSIX AIO there) through one
/// of iobench's asynchronous engines (io_uring or libaio: param aio_engine): the engine that
/// serves the step, its queue per open file, never a private copy of io_submit.

#include <array>
#include <cstdint>
#include <iobench/engine.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// Writes in flight on one file of a thread at most (its engine queue's depth); an aiowrite that
/// finds the queue full first reaps a completion, inside its timed op.
inline constexpr std::uint32_t kAioQueueDepth = 256;

/// The engine of a model's aiowrite flowops: `spec_text` ("io_uring" or "libaio", param
/// aio_engine) made and checked against every aiowrite of `model` (check_aio_engine); nullptr
/// when the model has none. Throws ConfigError naming the file `path`, the flowop's line and
/// column and the fix for another name, an engine not available here or one that cannot serve
/// an aiowrite.
[[nodiscard]] std::unique_ptr<Engine> make_aio_engine(const WmlModel& model,
                                                      std::string_view spec_text,
                                                      std::string_view path);

/// Checks that `engine` (named `spec_text` by param aio_engine) can serve every aiowrite of
/// `model`: it is asynchronous (EngineCaps::async), available here (Engine::unavailable_reason()
/// empty), and where it is asynchronous only with O_DIRECT or polls completions (libaio,
/// io_uring hipri) each aiowrite has directio. Throws ConfigError "filebench: FILE:LINE:COL:
/// ..." naming the first aiowrite it cannot serve, why, and the fix.
void check_aio_engine(const WmlModel& model, const Engine& engine, std::string_view spec_text,
                      std::string_view path);

/// A thread's asynchronous writes: one engine file and queue (kAioQueueDepth) per fd slot it
/// aiowrites on, and one source buffer aligned for O_DIRECT. Not thread-safe (one per thread).
class AioWriter {
 public:
  /// `engine`: asynchronous, outliving the writer; `buffer_bytes`: the writes' source (the
  /// thread's memsize), filled with 'f' as the thread's own buffer; `flowop_names`: the thread's
  /// flowop names by index, naming a failed write (the tag of submit()).
  AioWriter(const Engine& engine, std::size_t buffer_bytes, std::vector<std::string> flowop_names);
  /// Waits for what is still in flight (errors are not reported here: call wait_all() first).
  ~AioWriter();
  AioWriter(const AioWriter&) = delete;
  AioWriter& operator=(const AioWriter&) = delete;

  /// Whether fd slot `fd` has its engine file open.
  [[nodiscard]] bool is_open(std::uint32_t fd) const noexcept;
  /// Opens `location` for writing through the engine as fd slot `fd`'s file, with O_DIRECT
  /// (`direct`) and O_SYNC (`dsync`: filebench opens a dsync file with O_SYNC). Throws IoError
  /// (open) or IoError/ConfigError (queue set-up).
  void open(std::uint32_t fd, const FileLocation& location, bool direct, bool dsync);
  /// Starts a write of `length` bytes (at most the buffer's size) from the start of the buffer
  /// to byte `offset` of slot `fd`'s file (open), for flowop `flowop` of the thread. With the
  /// slot's queue full it first reaps at least one completion. Throws IoError for the engine's
  /// failure or a failed or short write reaped.
  void submit(std::uint32_t fd, std::uint64_t offset, std::uint32_t length, std::uint32_t flowop);
  /// aiowait: waits for every write in flight on every file of the thread; returns how many
  /// completed. Throws IoError naming the flowop of a failed or short write.
  std::uint64_t wait_all();
  /// Waits for slot `fd`'s writes (errors thrown as wait_all()) and closes its engine file.
  void close(std::uint32_t fd);
  /// Writes submitted and not yet reaped, over all files.
  [[nodiscard]] std::uint64_t in_flight() const noexcept;

 private:
  struct Channel {
    std::unique_ptr<IoFile> file;
    std::unique_ptr<IoQueue> queue;
  };
  /// Reaps at least `min` completions of `channel` (up to a batch), checking each.
  std::uint64_t reap(Channel& channel, std::size_t min);

  const Engine& engine_;
  AlignedBuffer buffer_;
  std::vector<std::string> names_;
  std::vector<Channel> channels_;  ///< by fd slot (kMaxFd)
  std::array<IoCompletion, 64> done_{};
};

}  // namespace iobench::plugins::filebench
