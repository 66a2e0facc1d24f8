// What the write path's new parts cost per op: PatternBuffer::block() (the `data` param) and the
// mmap engine's SIGBUS guard around its copies, against the bare operation in the same binary.
// Run from a Release-type build:
//   data_path_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iobench/iobench.hpp>
#include <string>

#include "libiobench/src/engines/mapping_fault_guard.hpp"

namespace {

using iobench::DataPattern;
using Kind = iobench::DataPattern::Kind;

constexpr std::size_t kFileBytes = 16ULL << 20;  // beyond L2, so copies reach memory

// block(n) alone, for n = 0, 1, 2...: the per-op cost a writing loop pays for its data.
void BM_PatternBlock(benchmark::State& state, DataPattern pattern) {
  const auto block_bytes = static_cast<std::size_t>(state.range(0));
  iobench::PatternBuffer buffer(pattern, block_bytes, 1);
  std::uint64_t n = 0;
  for (auto _ : state) {
    const auto block = buffer.block(n++);
    benchmark::DoNotOptimize(block.data());
  }
}
BENCHMARK_CAPTURE(BM_PatternBlock, random, DataPattern{Kind::kRandom, 0})
    ->Arg(4096)
    ->Arg(65536)
    ->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_PatternBlock, compressible50, DataPattern{Kind::kCompressible, 50})->Arg(4096);
BENCHMARK_CAPTURE(BM_PatternBlock, zeros, DataPattern{Kind::kZeros, 0})->Arg(4096);
BENCHMARK_CAPTURE(BM_PatternBlock, bonnie, DataPattern{Kind::kBonnie, 0})->Arg(8192);

// A file in the temp directory, removed at exit.
class ScratchFile {
 public:
  ScratchFile() {
    dir_ = std::filesystem::temp_directory_path() / ("iobench-bench." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / "scratch";
    iobench::UniqueFd fd = iobench::create_file_exclusive(path_, O_RDWR);
    if (::ftruncate(fd.get(), static_cast<off_t>(kFileBytes)) != 0) std::abort();
  }
  ~ScratchFile() { std::filesystem::remove_all(dir_); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

const ScratchFile& scratch() {
  static const ScratchFile file;
  return file;
}

// 4 KiB pwrite(2) to the page cache from the `pattern`'s buffer: the ring of random data is
// 1 MiB (L2-resident here), a zero block is one hot 4 KiB.
void BM_Pwrite4k(benchmark::State& state, DataPattern pattern) {
  iobench::UniqueFd fd = iobench::open_existing(scratch().path(), O_RDWR);
  iobench::PatternBuffer buffer(pattern, 4096, 1);
  const std::uint64_t blocks = kFileBytes / 4096;
  std::uint64_t n = 0;
  for (auto _ : state) {
    const std::uint64_t block = n++ % blocks;
    if (::pwrite(fd.get(), buffer.block(block).data(), 4096, static_cast<off_t>(block * 4096)) !=
        4096) {
      state.SkipWithError("pwrite");
      break;
    }
  }
}
BENCHMARK_CAPTURE(BM_Pwrite4k, zeros, DataPattern{Kind::kZeros, 0});
BENCHMARK_CAPTURE(BM_Pwrite4k, random, DataPattern{Kind::kRandom, 0});

// 4 KiB copies into a resident MAP_SHARED mapping: a bare memcpy into our own mapping of the file
// against the mmap engine's write_at (range check, guarded copy, virtual call).
void BM_MappedWriteBare(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  iobench::UniqueFd fd = iobench::open_existing(scratch().path(), O_RDWR);
  void* map = ::mmap(nullptr, kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (map == MAP_FAILED) std::abort();
  auto* base = static_cast<std::byte*>(map);
  std::memset(base, 1, kFileBytes);  // fault every page in first
  iobench::AlignedBuffer source(bytes);
  std::uint64_t n = 0;
  const std::uint64_t slots = kFileBytes / bytes;
  for (auto _ : state) {
    std::memcpy(base + (n++ % slots) * bytes, source.data(), bytes);
    benchmark::ClobberMemory();
  }
  ::munmap(map, kFileBytes);
}
BENCHMARK(BM_MappedWriteBare)->Arg(4096)->Arg(65536);

void BM_MappedWriteEngine(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  const auto engine = iobench::make_mmap_engine();
  auto file = engine->open(iobench::FileLocation::user_target(scratch().path()),
                           {.read = true, .write = true});
  iobench::AlignedBuffer source(bytes);
  for (std::uint64_t off = 0; off < kFileBytes; off += bytes) file->write_at(source.span(), off);
  std::uint64_t n = 0;
  const std::uint64_t slots = kFileBytes / bytes;
  for (auto _ : state) {
    file->write_at(source.span(), (n++ % slots) * bytes);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MappedWriteEngine)->Arg(4096)->Arg(65536);

// The guard's fixed cost: guarded_copy against memcpy for small copies (the mapping here is a
// plain buffer; no fault happens).
void BM_CopyBare(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  iobench::AlignedBuffer from(bytes), to(bytes);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_CopyBare)->Arg(64)->Arg(4096);

void BM_CopyGuarded(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  iobench::AlignedBuffer from(bytes), to(bytes);
  if (iobench::detail::install_mapping_fault_handler() != 0) std::abort();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        iobench::detail::guarded_copy(to.data(), from.data(), bytes, to.data(), bytes));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_CopyGuarded)->Arg(64)->Arg(4096);

}  // namespace
