#include "plugins/disk/disk_worker.hpp"

#include <cerrno>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>

namespace iobench::plugins::disk {

OpenOptions open_options(const DiskConfig& config, bool read, bool write, bool create,
                         std::uint64_t file_bytes) {
  return OpenOptions{.read = read,
                     .write = write,
                     .create = create,
                     .direct = config.mode == IoMode::kDirect,
                     .sync = config.sync == "sync",
                     .dsync = config.sync == "dsync",
                     .map_size_bytes = file_bytes};
}

std::unique_ptr<IoFile> open_file(const Engine& engine, const FileLocation& location,
                                  const OpenOptions& options) {
  try {
    return engine.open(location, options);
  } catch (const IoError& e) {
    if (options.direct && e.error_number() == EINVAL) {
      throw IoError(EINVAL, "open with O_DIRECT (mode=direct; this filesystem does not support it)",
                    location.path().string());
    }
    throw;
  }
}

DiskWorker::DiskWorker(const PhasePlan& plan, std::unique_ptr<IoFile> file, std::uint32_t iodepth,
                       const EngineCaps& caps, const RateLimit& rate, std::uint64_t seed,
                       std::optional<VerifyPattern> pattern, const DataPattern& data,
                       bool fsync_at_end, OpId fsync_op, LatenessTrend* lateness,
                       std::uint64_t idle_ns)
    : plan_(plan),
      file_(std::move(file)),
      buffers_(static_cast<std::size_t>(plan.block_size) * iodepth),
      pattern_(std::move(pattern)),
      fsync_at_end_(fsync_at_end),
      fsync_op_(fsync_op),
      seed_(seed),
      iodepth_(iodepth),
      idle_ns_(idle_ns) {
  if (plan_.ops != PhasePlan::Ops::kRead && !pattern_) {
    data_.emplace(data, static_cast<std::size_t>(plan.block_size), seed);
    plan_.copy_writes = iodepth > 1 || caps.registered_buffers;
  }
  if (rate.active()) pacer_.emplace(rate, seed ^ 0x7061636572ULL);
  queue_ = file_->make_queue(
      QueueOptions{.depth = iodepth, .buffers = buffers_.span(), .buffer_bytes = plan.block_size});
  driver_.emplace(
      *file_, *queue_, buffers_.span(), plan.block_size,
      IoDriverOptions{.depth = iodepth,
                      .async = caps.async,
                      .untimed_work_between_ops =
                          pattern_.has_value() || plan_.copy_writes || plan_.thinktime_ns > 0,
                      .pacer = pacer_ ? &*pacer_ : nullptr,
                      .lateness = pacer_ ? lateness : nullptr,
                      .latency_sample = plan_.latency_sample,
                      .sample_seed = seed ^ 0x73616d706c65ULL,
                      // verify: one block's two writes (or a read beside a write) in flight at
                      // once would leave either version, whatever order they complete in.
                      .serialize_overlaps = pattern_.has_value() && iodepth > 1});
}

void DiskWorker::run(WorkerContext& ctx) {
  DiskSource source(plan_, seed_, pattern_ ? &*pattern_ : nullptr, data_ ? &*data_ : nullptr,
                    file_->path(), ctx, iodepth_);
  // time_based: no planned work, the time limit tells the progress how far it is.
  if (plan_.iterations != kUntilLimit) {
    const std::uint64_t ops = plan_.reads_written_only() ? plan_.written->size() * plan_.iterations
                                                         : plan_.blocks * plan_.iterations;
    // With bssplit the bytes are the mean op size's worth (the sizes are drawn as it runs).
    const double op_bytes = plan_.split == nullptr
                                ? static_cast<double>(plan_.block_size)
                                : plan_.split->mean_size(plan_.ops == PhasePlan::Ops::kRead
                                                             ? BlockSizeSplit::List::kRead
                                                             : BlockSizeSplit::List::kWrite);
    ctx.plan_work(ops, static_cast<std::uint64_t>(static_cast<double>(ops) * op_bytes));
  }
  // latency_ramp: idle first (in the warm-up), then the schedule starts from now.
  if (idle_ns_ > 0 && !sleep_until(ctx, monotonic_ns() + idle_ns_)) {
    file_->close();
    return;
  }
  driver_->run(ctx, source);
  // Writes end with fsync (timed, its own op kind) and close, so the bytes are really on disk.
  // A write being abandoned (the run is stopped) skips the fsync: seconds of writeback must
  // not hold the stop up, and an interrupted result is partial anyway.
  if (fsync_at_end_ && !ctx.stop_requested()) {
    ctx.begin_fsync();
    OpTimer timer;
    file_->sync();
    timer.lap(ctx, fsync_op_, 0);
  }
  file_->close();
  source.finish_verify();
}

}  // namespace iobench::plugins::disk
