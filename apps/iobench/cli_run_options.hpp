#pragma once

// The options and arguments of run, validate and list (parse_command_line's main case).

#include <array>
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace iobench::cli {

/// The options only compare takes; the other commands refuse them by name.
inline constexpr std::array<const char*, 3> kCompareOnly{"metrics", "phases", "fail-if-worse"};

/// Fills `cli` (its command already run, validate or list) from the workload and key=value
/// arguments after args[0] (`command`) and the options in `vm`. Throws ConfigError naming the
/// option or argument for bad input.
void parse_run_command(const boost::program_options::variables_map& vm,
                       const std::vector<std::string>& args, const std::string& command,
                       CliOptions& cli);

}  // namespace iobench::cli
