#pragma once

// Helpers for the dbench replay tests: run the "dbench" workload on a temp directory through the
// real Runner, and list what the clients left behind.

#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace dbench_test {

namespace fs = std::filesystem;

/// A target directory plus a loadfile written next to it.
class Fixture {
 public:
  Fixture() : target_("dbt"), files_("dbl") {}

  /// Writes `text` as loadfile `name` and returns its path.
  std::string loadfile(std::string_view text, const std::string& name = "load.txt") {
    const fs::path path = files_.path() / name;
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return path.string();
  }

  /// Runs one dbench step with `params` on the target; keeps the run directory when `keep`.
  /// A loadfile run once ends long before dbench's default warm-up (time_limit / 5) and would
  /// measure nothing, so such runs get warmup=0 unless they set one.
  iobench::StepResult run(std::map<std::string, std::string> params, bool keep = true) {
    if (params.count("run_once") != 0 && params.at("run_once") == "true") {
      params.emplace("warmup", "0");
    }
    const iobench::Registry registry = iobench::test::make_full_registry();
    iobench::RunOptions options;
    options.keep_files = keep;
    iobench::Runner runner(registry, options);
    const iobench::Step step{.name = "dbench",
                             .workload = "dbench",
                             .params = std::move(params),
                             .targets = {target_.path()}};
    iobench::test::CapturingReporter reporter;
    runner.run(std::span<const iobench::Step>(&step, 1), reporter);
    REQUIRE(reporter.steps.size() == 1);
    return reporter.steps.front();
  }

  /// The run directory (iobench.<pid>.<random>) the last kept run left in the target.
  [[nodiscard]] fs::path run_dir() const {
    fs::path found;
    for (const auto& e : fs::directory_iterator(target_.path())) found = e.path();
    REQUIRE(!found.empty());
    return found;
  }

  /// Removes what earlier kept runs left in the target.
  void clear_target() const {
    for (const auto& e : fs::directory_iterator(target_.path())) fs::remove_all(e.path());
  }

  [[nodiscard]] const fs::path& target() const { return target_.path(); }

 private:
  iobench::test::TempDir target_;
  iobench::test::TempDir files_;
};

/// Everything below `root`, sorted: "d <relative path>" for directories, "f <path> <size>" for
/// files.
inline std::vector<std::string> tree(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).string();
    if (e.is_directory()) {
      out.push_back("d " + rel);
    } else {
      out.push_back("f " + rel + " " + std::to_string(e.file_size()));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The merged stats of op `name` in the step's execute phase.
inline const iobench::OpResult& op(const iobench::StepResult& step, std::string_view name) {
  REQUIRE(!step.phases.empty());
  const auto& phase = step.phases.front();
  const std::size_t i = phase.op_index(name);
  REQUIRE(i < phase.ops.size());
  return phase.ops[i];
}

/// The summed counter `name` of the step's execute phase.
inline std::uint64_t counter(const iobench::StepResult& step, std::string_view name) {
  REQUIRE(!step.phases.empty());
  const auto& phase = step.phases.front();
  const auto it = std::find(phase.counter_names.begin(), phase.counter_names.end(), name);
  REQUIRE(it != phase.counter_names.end());
  return phase.counters[static_cast<std::size_t>(it - phase.counter_names.begin())];
}

}  // namespace dbench_test
