#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "plugins/dbench/loadfile_parser.hpp"
#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

/// parse_loadfile_file() of `path` without its code (the tables and statistics of a validated
/// loadfile, which clients then replay with LoadfileStream), remembered for the process: the
/// CLI validates a run's steps before it runs them and both build the workload, so without it
/// every run would parse client.txt twice (0.1 s each). A cached result is reused only for the
/// same path, parse options and max_bytes, and while the file keeps its device, inode, size,
/// modification and change times; a file changed in the last 2 s is parsed again (file times
/// are coarse, a clock tick, so a quick rewrite could keep them). Keeps the last
/// kLoadfileCacheEntries results.
/// Thread-safe. Throws ConfigError and InterruptedError as parse_loadfile_file(); a parse cut
/// short is never kept.
[[nodiscard]] std::shared_ptr<const Loadfile> cached_loadfile(const std::string& path,
                                                              std::size_t max_bytes,
                                                              const ParseOptions& options);

/// How many parsed loadfiles cached_loadfile() keeps.
inline constexpr std::size_t kLoadfileCacheEntries = 2;

}  // namespace iobench::plugins::dbench
