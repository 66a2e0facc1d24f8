#pragma once

// Helpers for the filebench workload tests: run a .f file through the real Runner on a target,
// keeping the run directory, and read the step's ops and attributes.

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <string>

#include "tests/support/test_support.hpp"

namespace filebench_test {

namespace fs = std::filesystem;

struct Run {
  iobench::StepResult step;
  fs::path run_dir;  ///< the kept run directory in the target
};

/// Runs `file` on `target` for `seconds` with `seed` and, if not 0, `ops` ops per worker; the
/// step must end ok.
inline Run run_filebench(const iobench::test::TempDir& target, const fs::path& file,
                         const std::string& seconds = "1s", std::uint64_t seed = 1234,
                         std::uint64_t ops = 0) {
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::RunOptions options;
  options.keep_files = true;
  iobench::Runner runner(registry, options);
  const iobench::Step step{.name = "filebench",
                           .workload = "filebench",
                           .params = {{"file", file.string()}, {"time_limit", seconds}},
                           .targets = {target.path()},
                           .ops_limit = ops,
                           .seed = seed};
  iobench::test::CapturingReporter reporter;
  runner.run(std::span<const iobench::Step>(&step, 1), reporter);
  REQUIRE(reporter.steps.size() == 1);
  Run run{reporter.steps.front(), {}};
  INFO(run.step.message);
  REQUIRE(run.step.status == iobench::Status::kOk);
  for (const auto& e : fs::directory_iterator(target.path())) run.run_dir = e.path();
  REQUIRE(!run.run_dir.empty());
  return run;
}

/// Writes the .f text `text` to a file of its own (removed on return) and runs it as
/// run_filebench does.
inline Run run_filebench_text(const iobench::test::TempDir& target, const std::string& text,
                              const std::string& seconds = "1s", std::uint64_t seed = 1234,
                              std::uint64_t ops = 0) {
  const iobench::test::TempDir files("fbtext");
  const fs::path f = files.path() / "w.f";
  std::ofstream(f) << text;
  return run_filebench(target, f, seconds, seed, ops);
}

/// The merged stats of flowop `name` in the run phase.
inline const iobench::OpResult& op(const Run& run, std::string_view name) {
  REQUIRE(!run.step.phases.empty());
  const auto& phase = run.step.phases.front();
  const std::size_t i = phase.op_index(name);
  REQUIRE(i < phase.ops.size());
  return phase.ops[i];
}

/// The step attribute `key` (an integer the workload set in prepare()).
inline std::int64_t attribute(const Run& run, const std::string& key) {
  for (const auto& [name, value] : run.step.attributes) {
    if (name == key) return std::get<std::int64_t>(value);
  }
  FAIL("no attribute " << key);
  return 0;
}

/// Regular files under `root` (recursively) and their summed sizes in bytes.
struct Tree {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

inline Tree tree(const fs::path& root) {
  Tree t;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) {
      ++t.files;
      t.bytes += e.file_size();
    }
  }
  return t;
}

}  // namespace filebench_test
