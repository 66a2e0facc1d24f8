// An external workload plugin in one screen: "hello" creates `files` small files per worker,
// each written and fsynced, and records one "create" op per file. Build it out of tree with
//   find_package(iobench) + iobench_add_plugin(NAME hello_plugin SOURCES hello_plugin.cpp)
// and run it with: iobench --plugin ./hello_plugin.so run hello -d /mnt/test files=100
#include <fcntl.h>
#include <unistd.h>

#include <iobench/confined_dir.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/plugin.hpp>
#include <string>

namespace {

class HelloWorker final : public iobench::PhaseWorker {
 public:
  HelloWorker(std::uint64_t files, std::uint64_t size) : files_(files), buffer_(size) {}
  void run(iobench::WorkerContext& ctx) override {
    // Every name is resolved by the kernel beneath the run directory (no links followed).
    const iobench::ConfinedDir& dir = ctx.target().run_dir;
    iobench::OpTimer timer;
    for (std::uint64_t i = 0; i < files_ && ctx.keep_going(); ++i) {
      const std::string name =
          "hello." + std::to_string(ctx.worker_index()) + "." + std::to_string(i);
      const auto path = dir.shown(name);
      iobench::UniqueFd fd = dir.create(name, O_WRONLY);
      iobench::write_all_at(fd.get(), buffer_.span(), 0, path);
      if (::fsync(fd.get()) != 0) throw iobench::IoError(errno, "fsync", path.string());
      fd.close(path);
      timer.lap(ctx, 0, buffer_.size());
    }
  }

 private:
  std::uint64_t files_;
  iobench::AlignedBuffer buffer_;
};

class HelloWorkload final : public iobench::Workload {
 public:
  HelloWorkload(std::uint64_t files, std::uint64_t size, std::uint64_t threads)
      : files_(files), size_(size), threads_(threads) {}
  [[nodiscard]] std::vector<iobench::PhaseSpec> phases() const override {
    return {{.name = "create", .op_names = {"create"}, .workers = threads_}};
  }
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t) const override {
    return files_ * size_ * threads_;
  }
  std::unique_ptr<iobench::PhaseWorker> make_worker(std::size_t, iobench::WorkerContext&) override {
    return std::make_unique<HelloWorker>(files_, size_);
  }

 private:
  std::uint64_t files_, size_, threads_;
};

void register_hello(iobench::PluginRegistrar& registrar) {
  registrar.add_workload(
      {.name = "hello",
       .summary = "example plugin: each worker creates, writes and fsyncs small files",
       .params = {{.key = "files",
                   .type = iobench::ParamType::kCount,
                   .default_value = "100",
                   .unit = "files",
                   .help = "files per worker",
                   .min = 1},
                  {.key = "size",
                   .type = iobench::ParamType::kSize,
                   .default_value = "4k",
                   .unit = "bytes",
                   .help = "bytes per file",
                   .min = 1,
                   .max = 1ULL << 30},
                  {.key = "threads",
                   .type = iobench::ParamType::kCount,
                   .default_value = "1",
                   .unit = "workers",
                   .help = "workers",
                   .min = 1,
                   .max = 256}},
       .factory = [](const iobench::WorkloadSetup& setup) -> std::unique_ptr<iobench::Workload> {
         return std::make_unique<HelloWorkload>(setup.params.get_u64("files"),
                                                setup.params.get_u64("size"),
                                                setup.params.get_u64("threads"));
       }});
}

}  // namespace

IOBENCH_PLUGIN("hello", "1.0", register_hello)
