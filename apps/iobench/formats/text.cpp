// --format text: the text report (run, validate), the comparison tables (compare), the run list
// (history).
#include <fmt/format.h>

#include <iobench/printable.hpp>
#include <memory>
#include <ostream>
#include <sstream>

#include "output_formats.hpp"

namespace iobench::cli {
namespace {

// "Linux 6.1.0-28-amd64 #1 SMP ..." -> "6.1.0-28-amd64": the part a reader compares.
std::string kernel_release(const std::string& kernel) {
  std::istringstream words(kernel);
  std::string system;
  std::string release;
  words >> system >> release;
  return release.empty() ? kernel : release;
}

void write_history(const std::vector<HistoryRun>& runs, std::ostream& out) {
  out << fmt::format("{:>5}  {:<20}  {:<16}  {:<24}  {:<8}  {:<20}  {}\n", "run", "stored (UTC)",
                     "host", "kernel", "fs", "workloads", "status");
  for (const HistoryRun& r : runs) {
    out << fmt::format("{:>5}  {:<20}  {:<16}  {:<24}  {:<8}  {:<20}  {}\n",
                       fmt::format("#{}", r.id), printable(r.stored_at), printable(r.hostname),
                       printable(kernel_release(r.kernel)), printable(r.fs_type),
                       printable(r.suite.empty() || r.suite == r.workloads
                                     ? r.workloads
                                     : fmt::format("{} ({})", r.suite, r.workloads)),
                       printable(r.status));
  }
  out << fmt::format("{} run(s)\n", runs.size());
}

// The text report is made for every run; as the format it adds nothing.
std::unique_ptr<RunOutput> make_run_output() { return std::make_unique<RunOutput>(); }

}  // namespace

OutputFormat text_output_format() {
  return OutputFormat{.name = "text",
                      .is_text_report = true,
                      .run = make_run_output,
                      .compare = write_comparison_text,
                      .history = write_history};
}

}  // namespace iobench::cli
