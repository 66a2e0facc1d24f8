#pragma once

#include "cli_options.hpp"

namespace iobench::cli {

/// `iobench report FILE... -o OUT`: reads every result file, then writes the HTML report to OUT
/// (replacing it only once the page is complete, as -o does for run) or to stdout for "-".
/// Returns 0. Throws ConfigError (exit 2, nothing written) for an unusable -o, an unreadable
/// file or one that is not a result document (naming the file and the JSON pointer).
[[nodiscard]] int run_report(const CliOptions& options);

}  // namespace iobench::cli
