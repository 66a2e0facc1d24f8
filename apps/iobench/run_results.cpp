#include "run_results.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/html_report.hpp>
#include <iobench/printable.hpp>
#include <iobench/result_history.hpp>
#include <span>
#include <utility>

#include "again.hpp"
#include "csv_outputs.hpp"

namespace iobench::cli {

void open_run_files(const CliOptions& options, RunFiles& files) {
  if (!options.output_path.empty()) files.output.emplace(options.output_path);
  if (!options.html_path.empty()) files.html.emplace(options.html_path);
  if (!options.time_series_csv_path.empty()) {
    files.series_output.emplace(options.time_series_csv_path);
  }
  if (!options.live_csv_path.empty()) files.live_csv_output.emplace(options.live_csv_path);
}

bool live_csv_failed(RunFiles& files, const std::string& csv_text, std::ostream& err) {
  // Written at once, and a failure here fails alone: the results below are still written.
  if (files.live_csv_output) {
    try {
      files.live_csv_output->commit(csv_text);
    } catch (const Error& e) {
      fmt::print(err, "iobench: cannot write {}: {}\n",
                 printable(files.live_csv_output->path().string()), printable(e.what()));
      return true;
    }
  }
  return false;
}

bool store_failed(const CliOptions& options, const std::string& document, std::ostream& err) {
  // The history fails alone: the results are still printed and written below.
  try {
    const std::int64_t id = ResultHistory::open(options.store_path, true).store(document);
    if (!options.quiet) {
      fmt::print(err, "iobench: stored as run #{} in {}\n", id, printable(options.store_path));
    }
  } catch (const Error& e) {
    fmt::print(err, "iobench: cannot store the run in {}: {}\n", printable(options.store_path),
               printable(e.what()));
    return true;
  }
  return false;
}

bool html_failed(RunFiles& files, const CliOptions& given, const SuitePlan& plan,
                 const SuiteRunResult& result, const ResultDocument* repeated, std::ostream& err) {
  // The HTML page fails alone: the results of -o are still written.
  if (files.html) {
    const ReportInput input{
        .label = plan.suite.name,
        .document = result_document(plan, result, invocation_of(given, plan, repeated))};
    try {
      std::ostringstream page;
      write_html_report(std::span<const ReportInput>(&input, 1), page);
      files.html->commit(page.str());
    } catch (const std::exception& e) {
      fmt::print(err, "iobench: cannot write {}: {}\n", printable(files.html->path().string()),
                 printable(e.what()));
      return true;
    }
  }
  return false;
}

std::optional<int> commit_result_files(RunFiles& files, const SuitePlan& plan,
                                       const SuiteRunResult& result, std::ostream& out,
                                       std::ostream& err) {
  if (files.output) {
    const std::string text = std::move(files.file_text).str();  // moved out, not copied
    try {
      files.output->commit(text);
    } catch (const Error& e) {
      // Opened before the run, so this is rare (the disk filled up meanwhile): keep the results.
      fmt::print(err, "iobench: cannot write {}: {}; the results follow on stdout\n",
                 printable(files.output->path().string()), printable(e.what()));
      out << text;
      return 1;
    }
  }
  if (files.series_output) {
    std::ostringstream series_text;
    write_time_series_csv(plan, result.run, series_text);
    try {
      files.series_output->commit(series_text.str());
    } catch (const Error& e) {
      fmt::print(err, "iobench: cannot write {}: {}\n",
                 printable(files.series_output->path().string()), printable(e.what()));
      return 1;
    }
  }
  return std::nullopt;
}

}  // namespace iobench::cli
