#pragma once

// Running the iobench CLI under mpirun (OpenMPI) in tests: the command line, and a skip where
// mpirun cannot start ranks here.

#include <fmt/format.h>

#include <catch2/catch.hpp>
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

}  // namespace iobench::test

/// Ends the test case with a warning where mpirun cannot start ranks here.
#define SKIP_WITHOUT_MPIRUN()                                                       \
  do {                                                                              \
    if (const std::string& why = ::iobench::test::mpirun_problem(); !why.empty()) { \
      WARN("skipped: " << why);                                                     \
      return;                                                                       \
    }                                                                               \
  } while (false)
