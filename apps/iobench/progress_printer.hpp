#pragma once

#include <iobench/reporter.hpp>
#include <iobench/suite.hpp>
#include <iosfwd>
#include <memory>
#include <optional>

#include "terminal.hpp"

namespace iobench::cli {

/// Prints progress to stderr, never to stdout, so machine-readable output stays clean. On a
/// terminal (Terminal::open succeeded): one line, fitted to its width (fit_line), redrawn at
/// each update and state change, and cleared before anything else is printed (clear()).
/// Otherwise: a plain line (plain_progress_line) per progress interval, state changes left out.
class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, std::optional<Terminal> terminal)
      : out_(out), terminal_(std::move(terminal)) {}
  [[nodiscard]] bool live() const noexcept { return terminal_.has_value(); }
  void update(const SuiteProgress& progress);
  /// Clears the live line (terminal only); the next update draws it again. Call before
  /// printing anything on stdout or stderr while it may be shown.
  void clear();

 private:
  std::ostream& out_;
  std::optional<Terminal> terminal_;
  bool line_open_ = false;
};

/// A reporter that clears `printer`'s live line before each result is reported: add it to a
/// ReporterSet before the reporters that print.
[[nodiscard]] std::unique_ptr<Reporter> make_progress_clearer(ProgressPrinter& printer);

}  // namespace iobench::cli
