#pragma once

// Running the iobench CLI under mpirun (OpenMPI) in tests: the command line, and a skip where
// mpirun cannot start ranks here.

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace iobench::test {

/// mpirun's argv for `ranks` ranks on this machine, as root.
inline std::vector<std::string> mpirun_argv(int ranks) {
  return {IOBENCH_MPIRUN, "--oversubscribe", "--allow-run-as-root", "-n", std::to_string(ranks)};
}

/// Why mpirun cannot start ranks here, or "" if it can (asked once).
inline const std::string& mpirun_problem() {
  static const std::string problem = [] {
    std::vector<std::string> argv = mpirun_argv(2);
    argv.push_back("true");
    const CliResult r = run_command(argv);
    return r.exit_code == 0 ? std::string()
                            : fmt::format("mpirun -n 2 true exited {}: {}", r.exit_code, r.err);
  }();
  return problem;
}

/// How often `what` occurs in `text` (what rank 0 alone prints occurs once).
inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// `iobench ARGS...` under mpirun with `ranks` ranks.
inline CliResult run_ranked(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> argv = mpirun_argv(ranks);
  argv.push_back(IOBENCH_CLI_PATH);
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

/// A run of `iobench run WORKLOAD -d TARGET ARGS... --format json -o JSON` under mpirun
/// (run_ranked()): TARGET a new directory "target" in a test's TempDir, JSON the file "out.json"
/// beside it (rank 0's aggregate with every rank's results under "ranks"), the text report on
/// stdout.
struct RankedJsonRun {
  std::filesystem::path target;  ///< the run's target, empty again after a run without --keep
  std::filesystem::path json;    ///< the JSON document rank 0 wrote
  CliResult result;              ///< the command's exit code and output
};

/// Runs `workload` with `args` (params and options) under mpirun with `ranks` ranks as
/// RankedJsonRun says, in `dir` (a test's TempDir).
inline RankedJsonRun run_ranked_json(const std::filesystem::path& dir, int ranks,
                                     const std::string& workload,
                                     const std::vector<std::string>& args) {
  RankedJsonRun run{.target = dir / "target", .json = dir / "out.json", .result = {}};
  std::filesystem::create_directories(run.target);
  std::vector<std::string> cli = {"run", workload, "-d", run.target.string()};
  cli.insert(cli.end(), args.begin(), args.end());
  for (const char* arg : {"--format", "json", "-o"}) cli.emplace_back(arg);
  cli.push_back(run.json.string());
  run.result = run_ranked(ranks, cli);
  return run;
}

}  // namespace iobench::test

/// Ends the test case with a warning where mpirun cannot start ranks here.
#define SKIP_WITHOUT_MPIRUN()                                                       \
  do {                                                                              \
    if (const std::string& why = ::iobench::test::mpirun_problem(); !why.empty()) { \
      WARN("skipped: " << why);                                                     \
      return;                                                                       \
    }                                                                               \
  } while (false)
