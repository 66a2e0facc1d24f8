#pragma once

#include <iobench/html_report.hpp>
#include <optional>
#include <string>

#include "cli_options.hpp"

namespace iobench::cli {

/// `iobench history FILE.db [filters]`: lists the runs of a result history (ResultHistory) that
/// the filters select, oldest first, as text, JSON or CSV on stdout; with --html FILE also the
/// HTML report of those runs (one bar per run for every phase and metric, the oldest the
/// baseline: a metric over runs). Returns 0. Throws ConfigError (exit 2, nothing written) for a
/// bad filter, a file that is not an iobench history, or --html with no run selected.
[[nodiscard]] int run_history(const CliOptions& options);

/// The result document `spec` names if it is a history reference "db:FILE.db#ID" (as compare
/// and report take it), labelled with the reference; nullopt for any other text. Throws
/// ConfigError for a bad reference, a file that is not a history or a run it does not hold.
[[nodiscard]] std::optional<ReportInput> history_input(const std::string& spec);

}  // namespace iobench::cli
