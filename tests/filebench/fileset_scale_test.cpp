// Filesets at scale: 10^5 files within 64 bytes of metadata per file (the structures' own
// accounting and the process's RSS), the same seed drawing the same names and sizes, and the
// creation's progress reaching the runner's set-up progress.
#include <malloc.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <memory>
#include <string>
#include <vector>

#include "plugins/filebench/fileset.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kFiles = 100000;

fb::FilesetDef big_set() {
  fb::FilesetDef def;
  def.name = "big";
  def.size.kind = fb::SizeSpec::Kind::kGamma;
  def.size.mean_bytes = 16384;
  def.size.gamma = 1.5;
  def.entries = kFiles;
  def.dir_width = 20;
  def.prealloc_pct = 80;
  return def;
}

// This process's resident set, bytes (VmRSS: anonymous, file and shared pages).
std::uint64_t rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  FAIL("no VmRSS in /proc/self/status");
  return 0;
}

// FNV-1a over every file's path, size and preallocation.
std::uint64_t digest(const fb::FilesetLayout& layout) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto mix = [&h](const void* data, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<const unsigned char*>(data)[i];
      h *= 1099511628211ULL;
    }
  };
  for (std::uint32_t f = 0; f < layout.files.size(); ++f) {
    const std::string path = layout.file_path(f);
    mix(path.data(), path.size());
    mix(&layout.files[f].size, sizeof layout.files[f].size);
    const bool pre = layout.preallocated(f);
    mix(&pre, sizeof pre);
  }
  return h;
}

}  // namespace

TEST_CASE("a 10^5-file fileset and its pick state take at most 64 bytes per file") {
  (void)::malloc_trim(0);
  const std::uint64_t before = rss_bytes();
  auto state = std::make_unique<fb::FilesetState>(fb::draw_layout(big_set(), 3));
  // Touch every shared flag page, as the workers' picks will.
  for (std::uint32_t f = 0; f < kFiles; ++f) state->release(f, (f & 1) != 0);
  const std::uint64_t after = rss_bytes();
  REQUIRE(state->layout().files.size() == kFiles);
  const double accounted =
      static_cast<double>(state->layout().memory_bytes() + state->shared_bytes()) / kFiles;
  INFO("accounted " << accounted << " B/file, RSS " << before << " -> " << after);
  CHECK(accounted <= 64.0);
  CHECK(static_cast<double>(after > before ? after - before : 0) / kFiles <= 64.0);
  CHECK(state->existing() == kFiles / 2);
}

TEST_CASE("the same seed draws the same 10^5 names and sizes, another seed others") {
  const std::uint64_t a = digest(fb::draw_layout(big_set(), 11));
  const std::uint64_t b = digest(fb::draw_layout(big_set(), 11));
  const std::uint64_t c = digest(fb::draw_layout(big_set(), 12));
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("creating a fileset tells the runner's set-up progress how far it is") {
  const iobench::test::TempDir dir("fbpgf");
  const iobench::test::TempDir target("fbpgt");
  const fs::path file = dir.path() / "p.f";
  filebench_test::write_file(file,
                             "define fileset name=p,entries=3000,dirwidth=50,size=1k,prealloc=50\n"
                             "define process name=q { thread name=t { flowop statfile name=s,"
                             "filesetname=p } }\n");
  std::vector<iobench::ProgressSnapshot> seen;
  iobench::RunOptions options;
  options.progress_interval = std::chrono::nanoseconds(1);  // every report the fileset makes
  options.on_progress = [&seen](const iobench::ProgressSnapshot& s) {
    if (s.state == iobench::ProgressState::kSetUp && s.phase_name.empty() && s.done_fraction)
      seen.push_back(s);
  };
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, options);
  const iobench::Step step{.name = "fb",
                           .workload = "filebench",
                           .params = {{"file", file.string()}, {"time_limit", "1s"}},
                           .targets = {target.path()},
                           .ops_limit = 10,
                           .seed = 5};
  iobench::test::CapturingReporter reporter;
  runner.run(std::span<const iobench::Step>(&step, 1), reporter);
  REQUIRE(reporter.steps.size() == 1);
  REQUIRE(reporter.steps.front().status == iobench::Status::kOk);
  // 3000 files and their directories, reported every 256 entries and at the end.
  REQUIRE(seen.size() >= 12);
  for (std::size_t i = 1; i < seen.size(); ++i)
    CHECK(*seen[i].done_fraction > *seen[i - 1].done_fraction);
  CHECK(*seen.back().done_fraction == 1.0);
  // The ETA: the creation's time left plus the 1 s run.
  REQUIRE(seen.back().step_left_ns);
  CHECK(*seen.back().step_left_ns == 1'000'000'000);
  CHECK(seen.back().step_name == "fb");
}
