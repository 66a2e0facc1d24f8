#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "live_screen.hpp"
#include "live_view.hpp"

namespace iobench::cli {

/// --live and --live-csv for one run: each SuiteProgress becomes a LiveFrame (LiveRates), drawn
/// full screen (LiveScreen) and, with --live-csv, kept as CSV lines for the file.
class LiveDisplay {
 public:
  /// `view`: --live; `csv`: --live-csv was given. The screen opens at start().
  LiveDisplay(bool view, bool csv) : view_(view), csv_(csv) {}

  /// Opens the full-screen view on stderr (fd 2) if asked; off a terminal, says once on `note`
  /// why it stays off ("iobench: --live: stderr is not a terminal; no live view") and the run
  /// goes on. Returns whether the view is shown.
  bool start(std::ostream& note);
  /// Draws `progress` and keeps its CSV lines.
  void update(const SuiteProgress& progress);
  /// Gives the terminal back (the destructor does too); idempotent.
  void finish();

  [[nodiscard]] bool shown() const noexcept { return screen_ != nullptr; }
  /// The CSV file's text: the header and every refresh's lines.
  [[nodiscard]] const std::string& csv_text() const noexcept { return csv_text_; }

 private:
  bool view_;
  bool csv_;
  LiveRates rates_;
  std::unique_ptr<LiveScreen> screen_;
  std::string csv_text_;
};

}  // namespace iobench::cli
