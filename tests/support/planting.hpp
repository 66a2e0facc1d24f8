#pragma once

// Confinement tests: a workload wrapper that lets a test plant symbolic links (or anything else)
// inside the run directories before the first phase and between phases, and a sentinel tree
// outside the target whose every byte, name, mode, time and link text is compared before and
// after a run.

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <iobench/workload.hpp>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace iobench::test {

/// Phase index given to a PlantFn from prepare(), before the first phase.
inline constexpr std::size_t kBeforeFirstPhase = std::numeric_limits<std::size_t>::max();

/// Called with the step's targets (their run_dir paths are where to plant) after `phase` ended,
/// or with kBeforeFirstPhase from prepare().
using PlantFn = std::function<void(std::size_t phase, std::span<const Target> targets)>;

/// Delegates everything to `inner`, calling `plant` after prepare() and after every phase.
class PlantingWorkload final : public Workload {
 public:
  PlantingWorkload(std::unique_ptr<Workload> inner, PlantFn plant)
      : inner_(std::move(inner)), plant_(std::move(plant)) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override { return inner_->phases(); }
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t t) const override {
    return inner_->planned_bytes(t);
  }
  [[nodiscard]] std::uint64_t retained_bytes(std::size_t t) const override {
    return inner_->retained_bytes(t);
  }
  void prepare(PrepareContext& ctx) override {
    inner_->prepare(ctx);
    plant_(kBeforeFirstPhase, ctx.targets());
  }
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override {
    return inner_->make_worker(phase, ctx);
  }
  void after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) override {
    inner_->after_phase(phase, result, ctx);
    plant_(phase, ctx.targets());
  }
  void finish(PrepareContext& ctx) override { inner_->finish(ctx); }

 private:
  std::unique_ptr<Workload> inner_;
  PlantFn plant_;
};

/// The full registry plus workload "planted", which is `workload` wrapped in PlantingWorkload.
inline Registry registry_with_planting(const std::string& workload, PlantFn plant) {
  Registry registry = make_full_registry();
  WorkloadInfo info = registry.workload(workload);
  info.name = "planted";
  WorkloadFactory inner = info.factory;
  info.factory = [inner, plant](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
    return std::make_unique<PlantingWorkload>(inner(setup), plant);
  };
  registry.add_workload(std::move(info));
  return registry;
}

/// Runs one step of workload "planted" of `registry` on `targets`; returns its result.
/// Throws what Runner::run throws for bad input.
inline StepResult run_planted(const Registry& registry, std::map<std::string, std::string> params,
                              std::vector<std::filesystem::path> targets,
                              const RunOptions& options = {}) {
  Step step{.name = "planted",
            .workload = "planted",
            .params = std::move(params),
            .targets = std::move(targets)};
  step.seed = 42;
  CapturingReporter reporter;
  Runner(registry, options).run(std::span<const Step>(&step, 1), reporter);
  if (reporter.steps.empty()) return {};
  return reporter.steps.front();
}

/// A directory `base` holding `target/` (give it to the run) and, beside it, a sentinel tree:
/// `victim.txt`, `outside/` with files, a subdirectory, an empty directory and a link.
/// digest() describes everything outside `target/` exactly; a run must leave it unchanged.
class SentinelTree {
 public:
  SentinelTree() : base_("sentinel") {
    std::filesystem::create_directory(target());
    write(base_.path() / "victim.txt", "do not touch\n");
    std::filesystem::create_directories(outside() / "dir" / "sub");
    std::filesystem::create_directories(outside() / "empty");
    write(outside() / "a.txt", std::string(5000, 'a'));
    write(outside() / "dir" / "b.txt", "bbb");
    write(outside() / "dir" / "sub" / "c.txt", std::string(70000, 'c'));
    std::filesystem::create_symlink("dir/b.txt", outside() / "link");
    before_ = digest();
  }

  [[nodiscard]] std::filesystem::path base() const { return base_.path(); }
  [[nodiscard]] std::filesystem::path target() const { return base_.path() / "target"; }
  [[nodiscard]] std::filesystem::path outside() const { return base_.path() / "outside"; }
  [[nodiscard]] std::filesystem::path victim() const { return base_.path() / "victim.txt"; }

  /// One line per entry outside target/: path, type, mode, size, mtime, FNV-1a of the data (or
  /// the link text). Sorted.
  [[nodiscard]] std::vector<std::string> digest() const {
    std::vector<std::string> lines;
    lines.push_back(describe(base_.path(), "."));
    for (auto it = std::filesystem::recursive_directory_iterator(base_.path());
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      const auto rel = std::filesystem::relative(it->path(), base_.path()).string();
      if (rel == "target") {
        it.disable_recursion_pending();
        continue;
      }
      lines.push_back(describe(it->path(), rel));
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }
  /// True if nothing outside target/ changed since construction.
  [[nodiscard]] bool intact() const { return digest() == before_; }
  [[nodiscard]] const std::vector<std::string>& original() const { return before_; }

 private:
  static void write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  static std::string describe(const std::filesystem::path& path, const std::string& rel) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    std::string data;
    if (S_ISLNK(st.st_mode)) {
      data = std::filesystem::read_symlink(path).string();
    } else if (S_ISREG(st.st_mode)) {
      data = read_file(path);
    }
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : data) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    const bool is_dir = S_ISDIR(st.st_mode);
    // A directory's mtime changes when an entry is created or removed in it: keep it.
    return rel + " mode " + std::to_string(st.st_mode) + " size " +
           std::to_string(is_dir ? 0 : st.st_size) + " mtime " + std::to_string(st.st_mtim.tv_sec) +
           "." + std::to_string(st.st_mtim.tv_nsec) + " data " + std::to_string(hash);
  }

  TempDir base_;
  std::vector<std::string> before_;
};

}  // namespace iobench::test
