// A metadata workload as an external plugin: each worker creates `files` files in a directory of
// its own, then stats them, then unlinks them, one phase each. The create phase may be cut short
// (`create_time`, the step's --time or --ops): after_phase() reads from its result how many files
// each worker really made, and the stat and unlink phases work on exactly those.
//
// Build it out of tree with find_package(iobench) + iobench_add_plugin(), then:
//   iobench --plugin ./metadata_plugin.so run metadata -d /mnt/test files=10000 threads=4
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/confined_dir.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/plugin.hpp>
#include <iobench/result.hpp>
#include <string>
#include <vector>

namespace {

enum Phase : std::size_t { kCreate, kStat, kUnlink };
constexpr iobench::OpId kOp = 0;                 // one op kind per phase
constexpr iobench::CounterId kFilesCreated = 0;  // create phase's counter

// The directory of worker `worker`, inside its target's run directory. Every name is opened
// beneath a directory descriptor (ConfinedDir): the kernel resolves it there, never through a
// symbolic link, whatever else is planted in the target.
std::string worker_dir(std::size_t worker) { return "meta." + std::to_string(worker); }

std::string file_name(std::uint64_t i) { return "f" + std::to_string(i); }

// Creates files 0, 1, ... (written with `size` bytes each, then closed) while keep_going().
class CreateWorker final : public iobench::PhaseWorker {
 public:
  CreateWorker(const iobench::ConfinedDir& run_dir, const std::string& dir, std::uint64_t files,
               std::uint64_t size)
      : files_(files), buffer_(size) {
    // Untimed set-up: the worker's own directory (mkdir fails rather than reuse a name).
    run_dir.mkdir(dir, 0700);
    dir_ = run_dir.open_dir(dir);
  }
  void run(iobench::WorkerContext& ctx) override {
    iobench::OpTimer timer;
    std::uint64_t made = 0;
    for (; made < files_ && ctx.keep_going(); ++made) {
      const std::string name = file_name(made);
      iobench::UniqueFd fd = dir_.create(name, O_WRONLY);
      if (buffer_.size() > 0) iobench::write_all_at(fd.get(), buffer_.span(), 0, dir_.shown(name));
      fd.close(dir_.shown(name));
      timer.lap(ctx, kOp, buffer_.size());
    }
    // After any warm-up reset of the figures: the files made, warm-up included.
    ctx.add_counter(kFilesCreated, made);
  }

 private:
  iobench::OwnedConfinedDir dir_;
  std::uint64_t files_;
  iobench::AlignedBuffer buffer_;
};

// Stats or unlinks files 0 .. files-1, which must all exist.
class EachFileWorker final : public iobench::PhaseWorker {
 public:
  EachFileWorker(const iobench::ConfinedDir& run_dir, const std::string& dir, std::uint64_t files,
                 bool unlink)
      : dir_(run_dir.open_dir(dir)), files_(files), unlink_(unlink) {}
  void run(iobench::WorkerContext& ctx) override {
    iobench::OpTimer timer;
    for (std::uint64_t i = 0; i < files_ && ctx.keep_going(); ++i) {
      const std::string name = file_name(i);
      struct stat st {};
      if (const int err = unlink_ ? dir_.try_unlink(name) : dir_.try_stat(name, st); err != 0) {
        throw iobench::IoError(err, unlink_ ? "unlink" : "stat", dir_.shown(name).string());
      }
      timer.lap(ctx, kOp, 0);
    }
  }

 private:
  iobench::OwnedConfinedDir dir_;
  std::uint64_t files_;
  bool unlink_;
};

class MetadataWorkload final : public iobench::Workload {
 public:
  MetadataWorkload(std::uint64_t files, std::uint64_t size, std::size_t threads,
                   std::size_t targets, std::chrono::nanoseconds create_time)
      : files_(files),
        size_(size),
        threads_(threads),
        targets_(targets),
        create_time_(create_time),
        made_(threads, 0) {}

  [[nodiscard]] std::vector<iobench::PhaseSpec> phases() const override {
    return {{.name = "create",
             .op_names = {"create"},
             .counter_names = {"files_created"},
             .workers = threads_,
             .time_limit = create_time_},
            {.name = "stat", .op_names = {"stat"}, .workers = threads_},
            {.name = "unlink", .op_names = {"unlink"}, .workers = threads_}};
  }
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override {
    std::uint64_t workers_here = 0;
    for (std::size_t w = 0; w < threads_; ++w) {
      workers_here += iobench::target_index_of(w, targets_) == target_index ? 1 : 0;
    }
    return workers_here * files_ * size_;
  }
  [[nodiscard]] std::uint64_t retained_bytes(std::size_t) const override { return 0; }

  std::unique_ptr<iobench::PhaseWorker> make_worker(std::size_t phase,
                                                    iobench::WorkerContext& ctx) override {
    const std::string dir = worker_dir(ctx.worker_index());
    const iobench::ConfinedDir& run_dir = ctx.target().run_dir;
    if (phase == kCreate) return std::make_unique<CreateWorker>(run_dir, dir, files_, size_);
    return std::make_unique<EachFileWorker>(run_dir, dir, made_.at(ctx.worker_index()),
                                            phase == kUnlink);
  }

  void after_phase(std::size_t phase, const iobench::PhaseResult& result,
                   iobench::PrepareContext& ctx) override {
    if (phase == kCreate) {
      for (const iobench::WorkerResult& worker : result.workers) {
        made_.at(worker.index) = worker.counters.at(kFilesCreated);
      }
    } else if (phase == kUnlink) {
      for (std::size_t w = 0; w < threads_; ++w) remove_dir(ctx, w);
    }
  }
  // Also after a failure or interruption: whatever is left of the workers' directories.
  void finish(iobench::PrepareContext& ctx) override {
    for (std::size_t w = 0; w < threads_; ++w) remove_dir(ctx, w);
  }

 private:
  void remove_dir(iobench::PrepareContext& ctx, std::size_t worker) const {
    const iobench::Target& target = ctx.targets()[iobench::target_index_of(worker, targets_)];
    if (target.run_dir) target.run_dir.remove_all(worker_dir(worker));  // nothing if gone
  }

  std::uint64_t files_, size_;
  std::size_t threads_, targets_;
  std::chrono::nanoseconds create_time_;
  std::vector<std::uint64_t> made_;  // per worker: files the create phase made
};

void register_metadata(iobench::PluginRegistrar& registrar) {
  registrar.add_workload(
      {.name = "metadata",
       .summary = "example plugin: each worker creates, stats and unlinks its own files",
       .params = {{.key = "files",
                   .type = iobench::ParamType::kCount,
                   .default_value = "1000",
                   .unit = "files",
                   .help = "files each worker creates",
                   .min = 1},
                  {.key = "size",
                   .type = iobench::ParamType::kSize,
                   .default_value = "0",
                   .unit = "bytes",
                   .help = "bytes written into each file",
                   .max = 1ULL << 30},
                  {.key = "threads",
                   .type = iobench::ParamType::kCount,
                   .default_value = "1",
                   .unit = "workers",
                   .help = "workers, spread over the targets",
                   .min = 1,
                   .max = 256},
                  {.key = "create_time",
                   .type = iobench::ParamType::kDuration,
                   .default_value = "0",
                   .unit = "s",
                   .help = "end the create phase after this long (0: when all files exist)"}},
       .factory = [](const iobench::WorkloadSetup& setup) -> std::unique_ptr<iobench::Workload> {
         return std::make_unique<MetadataWorkload>(
             setup.params.get_u64("files"), setup.params.get_u64("size"),
             static_cast<std::size_t>(setup.params.get_u64("threads")), setup.targets.size(),
             setup.params.get_duration("create_time"));
       }});
}

}  // namespace

IOBENCH_PLUGIN("metadata", "1.0", register_metadata)
