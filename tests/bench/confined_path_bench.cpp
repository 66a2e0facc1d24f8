// The cost of confinement per path operation, on a dbench-like name three directories deep
// ("clients/client0/~dmtmp/PWRPNT/PCBENCHM.PPT"), against the unconfined calls dbench makes
// (stat/open/unlink of the absolute path, as iobench did before):
//   Plain      - fstatat/openat/unlinkat with AT_FDCWD and the full path
//   Confined   - ConfinedDir: openat2 of the parent + the *at call (+ close), per op
//   Walk       - the same with the component walk (kernels without openat2)
//   Cached     - dbench's ParentCache: the *at call on the cached parent descriptor
// Run from a Release-type build:
//   confined_path_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iobench/confined_dir.hpp>
#include <string>

#include "plugins/dbench/parent_cache.hpp"

namespace {

using iobench::ConfinedDir;
using iobench::plugins::dbench::ParentCache;

constexpr const char* kDir = "clients/client0/~dmtmp/PWRPNT";
constexpr const char* kName = "clients/client0/~dmtmp/PWRPNT/PCBENCHM.PPT";
constexpr const char* kMissing = "clients/client0/~dmtmp/PWRPNT/NOTTHERE.PPT";

class Tree {
 public:
  Tree() {
    root_ =
        std::filesystem::temp_directory_path() / ("iobench-cbench." + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / kDir);
    ::close(::open((root_ / kName).c_str(), O_CREAT | O_WRONLY, 0644));
    fd_ = iobench::UniqueFd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    full_ = (root_ / kName).string();
    missing_ = (root_ / kMissing).string();
  }
  ~Tree() { std::filesystem::remove_all(root_); }
  [[nodiscard]] ConfinedDir dir() const { return ConfinedDir(fd_.get(), root_); }
  [[nodiscard]] const std::string& full() const { return full_; }
  [[nodiscard]] const std::string& missing() const { return missing_; }

 private:
  std::filesystem::path root_;
  iobench::UniqueFd fd_;
  std::string full_;
  std::string missing_;
};

Tree& tree() {
  static Tree t;
  return t;
}

struct WalkScope {
  explicit WalkScope(bool on) { iobench::force_component_walk(on); }
  ~WalkScope() { iobench::force_component_walk(false); }
};

void BM_StatPlain(benchmark::State& state) {
  struct stat st {};
  const std::string& path = state.range(0) != 0 ? tree().missing() : tree().full();
  for (auto _ : state) benchmark::DoNotOptimize(::fstatat(AT_FDCWD, path.c_str(), &st, 0));
}

void BM_StatConfined(benchmark::State& state) {
  const WalkScope walk(state.range(1) != 0);
  const ConfinedDir dir = tree().dir();
  const std::string_view name = state.range(0) != 0 ? kMissing : kName;
  struct stat st {};
  for (auto _ : state) benchmark::DoNotOptimize(dir.try_stat(name, st));
}

void BM_StatCached(benchmark::State& state) {
  ParentCache cache(tree().dir());
  const std::string_view name = state.range(0) != 0 ? kMissing : kName;
  struct stat st {};
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.apply(
        name, [&](const ConfinedDir& d, std::string_view leaf) { return d.try_stat(leaf, st); }));
  }
}

void BM_OpenClosePlain(benchmark::State& state) {
  for (auto _ : state) ::close(::open(tree().full().c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
}

void BM_OpenCloseConfined(benchmark::State& state) {
  const WalkScope walk(state.range(0) != 0);
  const ConfinedDir dir = tree().dir();
  for (auto _ : state) {
    int fd = -1;
    benchmark::DoNotOptimize(dir.try_open(kName, O_RDWR, 0, fd));
    ::close(fd);
  }
}

void BM_OpenCloseCached(benchmark::State& state) {
  ParentCache cache(tree().dir());
  for (auto _ : state) {
    int fd = -1;
    benchmark::DoNotOptimize(cache.apply(kName, [&](const ConfinedDir& d, std::string_view leaf) {
      return d.try_open(leaf, O_RDWR, 0, fd);
    }));
    ::close(fd);
  }
}

}  // namespace

// Args: {missing name, component walk}.
BENCHMARK(BM_StatPlain)->Arg(0)->Arg(1);
BENCHMARK(BM_StatConfined)->Args({0, 0})->Args({1, 0})->Args({0, 1})->Args({1, 1});
BENCHMARK(BM_StatCached)->Arg(0)->Arg(1);
BENCHMARK(BM_OpenClosePlain);
BENCHMARK(BM_OpenCloseConfined)->Arg(0)->Arg(1);
BENCHMARK(BM_OpenCloseCached);
