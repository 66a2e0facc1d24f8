// What the disk workload adds to a 4 KiB random pread loop on a page-cached file, against a bare
// pread loop over the same file in the same binary. Both use manual time over the I/O loop only
// (the workload's time is its phase wall time from the result). Run from a Release-type build:
//   disk_overhead_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <iobench/iobench.hpp>
#include <string>

#include "plugins/disk/block_order.hpp"

namespace {

constexpr std::uint64_t kFileBytes = 64ULL << 20;
constexpr std::uint64_t kBlock = 4096;
constexpr std::uint64_t kBlocks = kFileBytes / kBlock;

// A 64 MiB file read once so every later read is a page-cache hit; removed at exit.
class CachedFile {
 public:
  CachedFile() {
    dir_ = std::filesystem::temp_directory_path() / ("iobench-bench." + std::to_string(::getpid()));
    std::filesystem::create_directory(dir_);
    path_ = dir_ / "cached";
    iobench::UniqueFd fd = iobench::create_file_exclusive(path_, O_RDWR);
    iobench::AlignedBuffer chunk(1 << 20);
    for (std::uint64_t off = 0; off < kFileBytes; off += chunk.size()) {
      iobench::write_all_at(fd.get(), chunk.span(), static_cast<off_t>(off), path_);
    }
    for (std::uint64_t off = 0; off < kFileBytes; off += chunk.size()) {
      iobench::read_all_at(fd.get(), chunk.span(), static_cast<off_t>(off), path_);
    }
  }
  ~CachedFile() { std::filesystem::remove_all(dir_); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

const CachedFile& cached_file() {
  static const CachedFile file;
  return file;
}

void BM_BarePread4k(benchmark::State& state) {
  const auto& path = cached_file().path();
  iobench::UniqueFd fd = iobench::open_existing(path, O_RDONLY);
  iobench::AlignedBuffer buffer(kBlock);
  std::uint64_t seed = 1;
  for (auto _ : state) {
    const iobench::plugins::disk::BlockPermutation order(kBlocks, seed++);
    const std::uint64_t start = iobench::monotonic_ns();
    for (std::uint64_t i = 0; i < kBlocks; ++i) {
      if (::pread(fd.get(), buffer.data(), kBlock, static_cast<off_t>(order.at(i) * kBlock)) !=
          static_cast<ssize_t>(kBlock)) {
        state.SkipWithError("short pread");
        return;
      }
    }
    state.SetIterationTime(static_cast<double>(iobench::monotonic_ns() - start) / 1e9);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBlocks));
}
BENCHMARK(BM_BarePread4k)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_DiskWorkloadPread4k(benchmark::State& state) {
  iobench::Registry registry;
  iobench::register_builtins(registry);
  iobench::register_builtin_workloads(registry);
  const std::vector<iobench::Step> steps{
      iobench::Step{.workload = "disk",
                    .params = {{"operation", "read"},
                               {"bs", "4k"},
                               {"blocks", std::to_string(kBlocks)},
                               {"seek", "random"}},
                    .targets = {cached_file().path()}}};
  struct Silent final : iobench::Reporter {
    void on_step_end(const iobench::StepResult&) override {}
  } silent;
  for (auto _ : state) {
    const iobench::RunResult run = iobench::Runner(registry, {}).run(steps, silent);
    const iobench::PhaseResult& phase = run.steps.at(0).phases.at(0);
    if (run.status != iobench::Status::kOk || phase.ops.at(0).ops != kBlocks) {
      state.SkipWithError("disk workload run failed");
      return;
    }
    state.SetIterationTime(static_cast<double>(phase.wall_ns) / 1e9);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBlocks));
}
BENCHMARK(BM_DiskWorkloadPread4k)->UseManualTime()->Unit(benchmark::kMillisecond);

// The per-op bookkeeping alone (keep_going + clock read + histogram record), without I/O.
void BM_WorkerContextPerOp(benchmark::State& state) {
  iobench::Registry registry;
  iobench::register_builtins(registry);
  std::uint64_t recorded = 0;
  struct LoopWorker final : iobench::PhaseWorker {
    explicit LoopWorker(benchmark::State& s) : state(s) {}
    void run(iobench::WorkerContext& ctx) override {
      iobench::OpTimer timer;
      for (auto _ : state) {
        if (!ctx.keep_going()) break;
        timer.lap(ctx, 0, kBlock);
      }
    }
    benchmark::State& state;
  };
  struct LoopWorkload final : iobench::Workload {
    explicit LoopWorkload(benchmark::State& s) : state(s) {}
    [[nodiscard]] std::vector<iobench::PhaseSpec> phases() const override {
      return {{.name = "loop", .op_names = {"op"}, .workers = 1}};
    }
    std::unique_ptr<iobench::PhaseWorker> make_worker(std::size_t,
                                                      iobench::WorkerContext&) override {
      return std::make_unique<LoopWorker>(state);
    }
    benchmark::State& state;
  };
  registry.add_workload(
      {.name = "loop",
       .summary = "",
       .params = {},
       .factory = [&state](const iobench::WorkloadSetup&) -> std::unique_ptr<iobench::Workload> {
         return std::make_unique<LoopWorkload>(state);
       }});
  struct Silent final : iobench::Reporter {
    void on_step_end(const iobench::StepResult&) override {}
  } silent;
  const auto run =
      iobench::Runner(registry, {})
          .run(std::vector<iobench::Step>{iobench::Step{
                   .workload = "loop", .targets = {std::filesystem::temp_directory_path()}}},
               silent);
  recorded = run.steps.at(0).phases.at(0).ops.at(0).ops;
  state.counters["recorded"] = static_cast<double>(recorded);
}
BENCHMARK(BM_WorkerContextPerOp);

}  // namespace
