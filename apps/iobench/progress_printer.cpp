#include "progress_printer.hpp"

#include <cstdio>
#include <iostream>
#include <ostream>

#include "progress_line.hpp"

namespace iobench::cli {
namespace {

class ProgressClearer final : public Reporter {
 public:
  explicit ProgressClearer(ProgressPrinter& printer) : printer_(printer) {}
  void on_run_start(const Environment& /*env*/) override { printer_.clear(); }
  void on_step_end(const StepResult& /*step*/) override { printer_.clear(); }
  void on_run_end(const RunResult& /*run*/) override { printer_.clear(); }

 private:
  ProgressPrinter& printer_;
};

}  // namespace

void ProgressPrinter::update(const SuiteProgress& progress) {
  if (!terminal_) {
    if (progress.phase.state_changed) return;  // off a terminal: one line per interval
    out_ << plain_progress_line(progress) << '\n';
    out_.flush();
    return;
  }
  // Results printed since the last update reach the terminal first, never after the line.
  std::cout.flush();
  std::fflush(stdout);
  const std::vector<LineField> fields = progress_fields(progress);
  out_ << terminal_->carriage_return() << fit_line(fields, terminal_->line_width())
       << terminal_->clear_to_eol();
  out_.flush();
  line_open_ = true;
}

void ProgressPrinter::clear() {
  if (!line_open_) return;
  out_ << terminal_->carriage_return() << terminal_->clear_to_eol();
  out_.flush();
  line_open_ = false;
}

std::unique_ptr<Reporter> make_progress_clearer(ProgressPrinter& printer) {
  return std::make_unique<ProgressClearer>(printer);
}

}  // namespace iobench::cli
