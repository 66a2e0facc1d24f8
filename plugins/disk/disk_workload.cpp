#include "plugins/disk/disk_workload.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "plugins/disk/block_order.hpp"

namespace iobench::plugins::disk {
namespace {

constexpr std::size_t kFillChunkBytes = 1 << 20;

OpenOptions open_options(const DiskConfig& config, bool write, bool create) {
  return OpenOptions{.read = !write,
                     .write = write,
                     .create = create,
                     .direct = config.mode == IoMode::kDirect,
                     .sync = config.sync == "sync",
                     .dsync = config.sync == "dsync",
                     .map_size_bytes = config.working_set_bytes()};
}

// Opens with a clearer message for the classic O_DIRECT failure (tmpfs and others say EINVAL).
std::unique_ptr<IoFile> open_file(const Engine& engine, const std::filesystem::path& path,
                                  const OpenOptions& options) {
  try {
    return engine.open(path, options);
  } catch (const IoError& e) {
    if (options.direct && e.error_number() == EINVAL) {
      throw IoError(EINVAL, "open with O_DIRECT (mode=direct; this filesystem does not support it)",
                    path.string());
    }
    throw;
  }
}

// Creates the file a read phase reads, untimed, with the same incompressible pattern writes use.
void create_read_file(const std::filesystem::path& path, std::uint64_t size_bytes) {
  UniqueFd fd = create_file_exclusive(path, O_WRONLY);
  AlignedBuffer chunk(kFillChunkBytes);
  for (std::uint64_t offset = 0; offset < size_bytes; offset += kFillChunkBytes) {
    const std::size_t len =
        static_cast<std::size_t>(std::min<std::uint64_t>(kFillChunkBytes, size_bytes - offset));
    write_all_at(fd.get(), chunk.span().first(len), static_cast<off_t>(offset), path);
  }
  if (::fsync(fd.get()) != 0) throw IoError(errno, "fsync", path.string());
  // Written data is clean after fsync, so DONTNEED really evicts it: the timed reads then come
  // from the device, as the seeds' "read back" tests intend.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  fd.close(path);
}

// The timed loop, one per target. Block order is computed on the fly (no per-op table).
class DiskWorker final : public PhaseWorker {
 public:
  DiskWorker(DiskConfig config, std::unique_ptr<IoFile> file, bool write)
      : config_(std::move(config)),
        file_(std::move(file)),
        buffer_(static_cast<std::size_t>(config_.block_size_bytes)),
        write_(write) {}

  void run(WorkerContext& ctx) override {
    const std::uint64_t bs = config_.block_size_bytes;
    std::uint64_t seed = ctx.seed();
    OpTimer timer;
    for (std::uint64_t pass = 0; pass < config_.iterations; ++pass) {
      if (config_.seek == SeekPattern::kSequential) {
        for (std::uint64_t block = 0; block < config_.blocks; ++block) {
          if (!ctx.keep_going()) return finish(ctx, timer);
          io(block * bs);
          timer.lap(ctx, kOp, bs);
        }
      } else if (config_.random_order == RandomOrder::kPermutation) {
        const BlockPermutation order(config_.blocks, splitmix64(seed));
        timer.restart();  // building the permutation is not I/O
        for (std::uint64_t i = 0; i < config_.blocks; ++i) {
          if (!ctx.keep_going()) return finish(ctx, timer);
          io(order.at(i) * bs);
          timer.lap(ctx, kOp, bs);
        }
      } else {
        UniformBlocks picks(config_.blocks, splitmix64(seed));
        for (std::uint64_t i = 0; i < config_.blocks; ++i) {
          if (!ctx.keep_going()) return finish(ctx, timer);
          io(picks.next() * bs);
          timer.lap(ctx, kOp, bs);
        }
      }
    }
    finish(ctx, timer);
  }

 private:
  static constexpr OpId kOp = 0;

  void io(std::uint64_t offset) {
    if (write_) {
      file_->write_at(buffer_.span(), offset);
    } else {
      file_->read_at(buffer_.span(), offset);
    }
  }

  // Writes end with fsync (timed, its own op kind) and close, so the bytes are really on disk.
  void finish(WorkerContext& ctx, OpTimer& timer) {
    if (write_ && config_.fsync) {
      timer.restart();
      file_->sync();
      timer.lap(ctx, DiskWorkload::kFsync, 0);
    }
    file_->close();
  }

  DiskConfig config_;
  std::unique_ptr<IoFile> file_;
  AlignedBuffer buffer_;
  bool write_;
};

}  // namespace

DiskWorkload::DiskWorkload(DiskConfig config, std::size_t target_count)
    : config_(std::move(config)), target_count_(target_count) {}

std::vector<PhaseSpec> DiskWorkload::phases() const {
  std::vector<PhaseSpec> phases;
  const bool write = config_.operation == Operation::kWrite;
  if (config_.prime) {
    phases.push_back(PhaseSpec{
        .name = "prime", .op_names = {"read"}, .workers = target_count_, .measured = false});
  }
  phases.push_back(PhaseSpec{.name = write ? "write" : "read",
                             .op_names = write ? std::vector<std::string>{"write", "fsync"}
                                               : std::vector<std::string>{"read"},
                             .workers = target_count_});
  return phases;
}

std::uint64_t DiskWorkload::planned_bytes(std::size_t target_index) const {
  return target_index < config_.existing_file_target.size() &&
                 config_.existing_file_target[target_index]
             ? 0
             : config_.working_set_bytes();
}

void DiskWorkload::prepare(PrepareContext& ctx) {
  if (config_.mode == IoMode::kMmap) mmap_engine_ = make_mmap_engine();
  ctx.set_attribute("block_size_bytes", static_cast<std::int64_t>(config_.block_size_bytes));
  ctx.set_attribute("blocks_per_target", static_cast<std::int64_t>(config_.blocks));
  ctx.set_attribute("iterations", static_cast<std::int64_t>(config_.iterations));
  for (std::size_t i = 0; i < ctx.targets().size(); ++i) {
    ctx.set_attribute(fmt::format("file.{}", i), file_path(ctx.targets()[i]).string());
  }
}

std::filesystem::path DiskWorkload::file_path(const Target& target) const {
  return target.is_existing_file ? target.user_path : target.run_dir / config_.file_name;
}

std::unique_ptr<PhaseWorker> DiskWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  const Engine& engine = mmap_engine_ ? *mmap_engine_ : ctx.engine();
  const Target& target = ctx.target();
  const auto path = file_path(target);
  const bool priming = config_.prime && phase == 0;
  const bool write = config_.operation == Operation::kWrite && !priming;
  if (!write && !target.is_existing_file && !std::filesystem::exists(path)) {
    create_read_file(path, config_.working_set_bytes());
  }
  OpenOptions options = open_options(config_, write, write);
  DiskConfig worker_config = config_;
  if (priming) {
    // One sequential pass through the page cache fills it; the measured phase then reads it.
    options.direct = false;
    worker_config.seek = SeekPattern::kSequential;
    worker_config.iterations = 1;
  }
  return std::make_unique<DiskWorker>(std::move(worker_config), open_file(engine, path, options),
                                      write);
}

}  // namespace iobench::plugins::disk
