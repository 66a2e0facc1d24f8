#pragma once

#include <iosfwd>

#include <iobench/runner.hpp>

namespace iobench::cli {

/// Prints progress to stderr: one rewritten line on a terminal, a line per update otherwise.
/// Never writes to stdout, so machine-readable output stays clean.
class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
  void update(const ProgressSnapshot& snapshot);
  /// Ends a live line (terminal only).
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  bool line_open_ = false;
};

}  // namespace iobench::cli
