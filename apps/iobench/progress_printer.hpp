#pragma once

#include <iobench/suite.hpp>
#include <iosfwd>

namespace iobench::cli {

/// Prints progress to stderr: one rewritten line on a terminal, a line per update otherwise.
/// Never writes to stdout, so machine-readable output stays clean.
class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
  /// "[i/n STEP] PHASE: 3 s, 12.0 MiB, 4.00 MiB/s, 1024 IOPS, 2 worker(s), ETA 1m05s".
  void update(const SuiteProgress& progress);
  /// Ends a live line (terminal only).
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  bool line_open_ = false;
};

}  // namespace iobench::cli
