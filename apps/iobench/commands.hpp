#pragma once

#include "cli_options.hpp"
#include "ranks.hpp"

namespace iobench::cli {

/// Runs the parsed command as this rank (alone: the only one); returns the process exit status
/// (0 ok, 1 a step failed, 130 interrupted). Throws ConfigError/PluginError for bad input (the
/// caller exits 2; across ranks it agrees on the input first unless `ranks.input_agreed`).
[[nodiscard]] int run_command(const CliOptions& given, RankContext& ranks);

}  // namespace iobench::cli
