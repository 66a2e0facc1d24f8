// What each engine's queue costs per op: submit + reap of 4 KiB reads from a file in the page
// cache (or on tmpfs, which also takes O_DIRECT), against a bare pread() loop over the same
// offsets. The difference is the engine layer's own cost, which the workloads' IoDriver pays on
// top of the system call. Run from a Release-type build:
//   engine_queue_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// "time_per_op" is wall time per completed read (asynchronous engines do part of their work in
// kernel threads, which the process's CPU time would not count).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <iobench/iobench.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kBlock = 4096;
constexpr std::size_t kFileBytes = 16ULL << 20;
constexpr std::size_t kBlocks = kFileBytes / kBlock;

// tmpfs where there is one: no device noise, and O_DIRECT works there (Linux >= 6.6).
std::filesystem::path scratch_root() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

// A filled file, removed at exit, and a random permutation of its block offsets that every
// benchmark walks in the same order.
class ScratchFile {
 public:
  ScratchFile() {
    dir_ = scratch_root() / ("iobench-engine-bench." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / "scratch";
    iobench::UniqueFd fd = iobench::create_file_exclusive(path_, O_RDWR);
    std::vector<char> block(kBlock, 'x');
    for (std::size_t i = 0; i < kBlocks; ++i) {
      if (::pwrite(fd.get(), block.data(), kBlock, static_cast<off_t>(i * kBlock)) !=
          static_cast<ssize_t>(kBlock)) {
        std::abort();
      }
    }
    offsets_.resize(kBlocks);
    for (std::size_t i = 0; i < kBlocks; ++i) offsets_[i] = i * kBlock;
    std::shuffle(offsets_.begin(), offsets_.end(), std::mt19937_64(42));
  }
  ~ScratchFile() { std::filesystem::remove_all(dir_); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::uint64_t offset(std::size_t n) const { return offsets_[n % kBlocks]; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
  std::vector<std::uint64_t> offsets_;
};

const ScratchFile& scratch() {
  static const ScratchFile file;
  return file;
}

void set_time_per_op(benchmark::State& state, std::uint64_t ops) {
  // kIsRate divides by the run's seconds (wall: UseRealTime) and kInvert turns ops/s into s/op.
  state.counters["time_per_op"] = benchmark::Counter(
      static_cast<double>(ops), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_BarePread(benchmark::State& state) {
  const ScratchFile& file = scratch();
  iobench::UniqueFd fd(::open(file.path().c_str(), O_RDONLY | O_CLOEXEC));
  iobench::AlignedBuffer buffer(kBlock);
  std::size_t n = 0;
  for (auto _ : state) {
    if (::pread(fd.get(), buffer.data(), kBlock, static_cast<off_t>(file.offset(n++))) !=
        static_cast<ssize_t>(kBlock)) {
      state.SkipWithError("short pread");
      return;
    }
  }
  set_time_per_op(state, n);
}
BENCHMARK(BM_BarePread)->UseRealTime();

// Keeps `depth` reads in flight: each iteration refills the queue in one submit() and reaps
// what has completed (at least one). Sync engines run at depth 1, where submit does the read.
void BM_EngineQueue(benchmark::State& state, const char* engine_spec, bool direct) {
  const auto depth = static_cast<std::uint32_t>(state.range(0));
  const ScratchFile& file = scratch();
  iobench::Registry registry;
  iobench::register_builtins(registry);
  std::unique_ptr<iobench::Engine> engine;
  std::unique_ptr<iobench::IoFile> io_file;
  std::unique_ptr<iobench::IoQueue> queue;
  iobench::AlignedBuffer buffers(kBlock * depth);
  try {
    engine = registry.create_engine(engine_spec);
    if (const std::string why = engine->unavailable_reason(); !why.empty()) {
      state.SkipWithError(why.c_str());
      return;
    }
    if (depth > engine->caps().max_depth) {
      state.SkipWithError("depth above the engine's maximum");
      return;
    }
    io_file = engine->open(iobench::FileLocation::user_target(file.path()),
                           iobench::OpenOptions{.read = true, .direct = direct});
    queue = io_file->make_queue(
        iobench::QueueOptions{.depth = depth, .buffers = buffers.span(), .buffer_bytes = kBlock});
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::vector<iobench::IoRequest> requests(depth);
  std::vector<iobench::IoCompletion> completions(depth);
  std::vector<std::uint32_t> free_slots(depth);
  for (std::uint32_t i = 0; i < depth; ++i) free_slots[i] = i;
  std::size_t free_count = depth;
  std::uint64_t submitted = 0;
  std::uint64_t completed = 0;
  for (auto _ : state) {
    std::size_t batch = 0;
    while (free_count > 0) {
      const std::uint32_t slot = free_slots[--free_count];
      requests[batch++] = iobench::IoRequest{.direction = iobench::IoDirection::kRead,
                                             .length = kBlock,
                                             .buffer = buffers.data() + slot * kBlock,
                                             .offset = file.offset(submitted++),
                                             .tag = slot,
                                             .buffer_index = slot};
    }
    queue->submit({requests.data(), batch});
    const std::size_t reaped = queue->reap(completions, 1);
    for (std::size_t i = 0; i < reaped; ++i) {
      if (completions[i].result != static_cast<std::int64_t>(kBlock)) {
        state.SkipWithError("short or failed read");
        return;
      }
      free_slots[free_count++] = static_cast<std::uint32_t>(completions[i].tag);
    }
    completed += reaped;
  }
  while (queue->in_flight() > 0) {
    completed += queue->reap(completions, queue->in_flight());
  }
  set_time_per_op(state, completed);
}
BENCHMARK_CAPTURE(BM_EngineQueue, null, "null", false)->Arg(1)->Arg(16)->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, psync, "psync", false)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, pvsync2, "pvsync2", false)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, mmap, "mmap", false)->Arg(1)->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, io_uring, "io_uring", false)
    ->Arg(1)
    ->Arg(16)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, io_uring_fixed, "io_uring:fixedbufs,registerfiles", false)
    ->Arg(1)
    ->Arg(16)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, io_uring_direct, "io_uring", true)
    ->Arg(1)
    ->Arg(16)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, libaio_direct, "libaio", true)
    ->Arg(1)
    ->Arg(16)
    ->Arg(64)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_EngineQueue, psync_direct, "psync", true)->Arg(1)->UseRealTime();

}  // namespace
