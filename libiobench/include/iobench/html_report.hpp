#pragma once

/// The HTML report (`iobench report RUN.json ... -o report.html`, `iobench run ... --html FILE`):
/// one self-contained page (scripts and styles inline, nothing fetched) with each run's
/// environment and invocation, per phase throughput and IOPS over time (where the result has a
/// "time_series"), latency percentile curves, sweep curves, per-worker spread and fairness,
/// bonnie++ tables, repetition statistics and, for several runs, per-phase bars side by side
/// with, where the runs carry one, both explanations (issue 29) as `compare` shows them.
/// Charts are drawn by dygraphs 2.2 (Debian's libjs-dygraphs, inlined at build time); bar
/// charts are SVG drawn by the page itself.

#include <filesystem>
#include <iobench/classic_results.hpp>
#include <iobench/result_json.hpp>
#include <ostream>
#include <span>
#include <string>

namespace iobench {

/// One result document for the report and what to call it.
struct ReportInput {
  std::string label;  ///< shown as the run's title (typically the file name as given)
  ResultDocument document;
  /// The document's JSON text as read. Parts the reader does not keep (a phase's
  /// "time_series") are taken from it; empty: the report uses to_json(document).
  std::string json_text{};
};

/// Reads a result file for the report: iobench's own JSON (its text kept as json_text) or a
/// classic tool's output in `format` (kAuto: detected), as read_result_file reads them; `label`
/// is the path as given. Throws ConfigError naming the path: a directory, a file that cannot be
/// read, or what parse_result_text throws ("PATH:LINE: ...", JSON: "PATH: POINTER: ...").
[[nodiscard]] ReportInput load_report_input(const std::filesystem::path& path,
                                            ResultFormat format = ResultFormat::kAuto);

/// Writes the report of `inputs` (at least one) as one HTML document to `out`. Everything the
/// page shows is prepared here and embedded as JSON (strings escaped so that no value can end
/// the <script> element: '<', '>', '&', U+2028 and U+2029 are written as \u escapes); the page
/// renders it with DOM text nodes only. Several inputs are aligned with compare_results (first
/// input the baseline). Throws ConfigError ("LABEL: POINTER: message", the JSON pointer of the
/// field) for a "time_series" that does not have the agreed shape; nothing is written to `out`
/// then.
void write_html_report(std::span<const ReportInput> inputs, std::ostream& out);

}  // namespace iobench
