#pragma once

// The files a run writes beside its report (-o, --html, --time-series-csv, --live-csv, --store):
// opened once the input is valid, committed after the run, each failing on its own.

#include <iobench/result_json.hpp>
#include <iobench/suite.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include "cli_options.hpp"
#include "output_file.hpp"

namespace iobench::cli {

/// The output files of a run and the text that -o gets (the report or the machine format).
struct RunFiles {
  std::optional<OutputFile> output;           // -o
  std::optional<OutputFile> html;             // --html
  std::optional<OutputFile> series_output;    // --time-series-csv
  std::optional<OutputFile> live_csv_output;  // --live-csv
  std::ostringstream file_text;               // what -o gets, committed after the run
};

/// Opens the files `options` names (input is valid by now). Throws Error when one cannot be.
void open_run_files(const CliOptions& options, RunFiles& files);

/// Commits --live-csv's `csv_text`; a failure is printed on `err` and returns true (it fails
/// alone: the other results are still written).
[[nodiscard]] bool live_csv_failed(RunFiles& files, const std::string& csv_text, std::ostream& err);

/// Stores `document` in --store's history; a failure is printed on `err` and returns true.
[[nodiscard]] bool store_failed(const CliOptions& options, const std::string& document,
                                std::ostream& err);

/// Writes the --html page of the run; a failure is printed on `err` and returns true.
[[nodiscard]] bool html_failed(RunFiles& files, const CliOptions& given, const SuitePlan& plan,
                               const SuiteRunResult& result, const ResultDocument* repeated,
                               std::ostream& err);

/// Commits -o (on failure its text goes to `out`) and --time-series-csv; returns 1 when one of
/// them cannot be written, else nothing.
[[nodiscard]] std::optional<int> commit_result_files(RunFiles& files, const SuitePlan& plan,
                                                     const SuiteRunResult& result,
                                                     std::ostream& out, std::ostream& err);

}  // namespace iobench::cli
