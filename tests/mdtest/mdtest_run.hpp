#pragma once
// Runs the mdtest workload through the runner in a temp dir (shared by the mdtest tests).

#include <filesystem>
#include <iobench/reporter.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace iobench::test::mdtest {

struct MdtestOutcome {
  StepResult step;
  /// Paths below the target, relative to the run directory, sorted (kept runs only).
  std::vector<std::string> tree;
  /// Entries left directly in the target after the run.
  std::vector<std::string> left_behind;
};

/// Every path below `root`, relative to it, sorted.
inline std::vector<std::string> list_tree(const std::filesystem::path& root) {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    paths.push_back(std::filesystem::relative(e.path(), root).string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// Runs one mdtest step with `params` on one target in `dir`; with `keep` the run directory
/// stays and `tree` lists it.
inline MdtestOutcome run_mdtest(const std::filesystem::path& dir,
                                std::map<std::string, std::string> params, bool keep = false,
                                std::uint64_t ops_limit = 0) {
  const std::filesystem::path target = dir / "target";
  std::filesystem::create_directories(target);
  const Registry registry = make_full_registry();
  Step step{.name = "md", .workload = "mdtest", .params = std::move(params), .targets = {target}};
  step.seed = 99;
  step.ops_limit = ops_limit;
  CapturingReporter reporter;
  RunOptions options;
  options.keep_files = keep;
  Runner(registry, options).run(std::span<const Step>(&step, 1), reporter);
  MdtestOutcome outcome{.step = reporter.steps.at(0), .tree = {}, .left_behind = {}};
  for (const auto& e : std::filesystem::directory_iterator(target)) {
    outcome.left_behind.push_back(e.path().filename().string());
    if (keep) outcome.tree = list_tree(e.path());
  }
  return outcome;
}

inline std::uint64_t phase_ops(const StepResult& step, const std::string& name) {
  for (const PhaseResult& p : step.phases) {
    if (p.name != name) continue;
    std::uint64_t ops = 0;
    for (const OpResult& o : p.ops) ops += o.ops;
    return ops;
  }
  throw std::runtime_error("no phase " + name);
}

}  // namespace iobench::test::mdtest
