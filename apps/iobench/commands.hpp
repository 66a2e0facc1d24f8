#pragma once

#include "cli_options.hpp"

namespace iobench::cli {

/// Runs the parsed command; returns the process exit status (0 ok, 1 a step failed, 130
/// interrupted). Throws ConfigError/PluginError for bad input (the caller exits 2).
[[nodiscard]] int run_command(const CliOptions& options);

}  // namespace iobench::cli
