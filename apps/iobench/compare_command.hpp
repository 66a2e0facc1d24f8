#pragma once

#include "cli_options.hpp"

namespace iobench::cli {

/// `iobench compare`: loads the result files, compares them against the first and prints the
/// comparison in options.format on stdout. Returns 0, or 1 when --fail-if-worse is given and a
/// selected metric regressed beyond it, a failure counter is higher than the baseline's
/// (counter_regressions) or a compared phase failed where the baseline's ended ok
/// (failed_phases; the last two whatever PCT; each reason named on stderr), or 2 when the gate
/// has nothing to compare (the comparison is printed first). Throws ConfigError (exit 2) for an
/// unreadable file, a file that is not a result document (naming the file and the JSON pointer
/// of the field), an unknown metric or phase.
[[nodiscard]] int run_compare(const CliOptions& options);

}  // namespace iobench::cli
