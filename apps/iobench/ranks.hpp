#pragma once

#include <iobench/coordinator.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/reporter.hpp>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli_options.hpp"

namespace iobench::cli {

/// The CLI's side of a run across ranks (mpirun): which rank this is, and whether the ranks have
/// agreed on the input yet (after that, every bad-input error is agreed on every rank and only
/// rank 0 prints it).
struct RankContext {
  Coordinator& coordinator;
  bool input_agreed = false;
  std::vector<RankedStep> steps;  ///< rank 0: each step over all ranks, in run order

  [[nodiscard]] bool root() const noexcept { return coordinator.identity().rank == 0; }
  [[nodiscard]] bool ranked() const noexcept { return coordinator.ranked(); }
};

/// The options as this rank runs them: targets' templates ({rank}, {size}, {local_rank},
/// {host}) expanded; on ranks other than 0, no output files and no status lines (rank 0 writes
/// and prints all results). Throws ConfigError for a bad template.
[[nodiscard]] CliOptions options_for_rank(const CliOptions& given, const RankContext& ranks);

/// Collective (every rank, once, before any I/O): each rank's input problem ("" none). Throws
/// ConfigError on every rank if any has one: the message once if all ranks have the same, else
/// one line per rank. Sets `input_agreed`.
void agree_on_input(RankContext& ranks, const std::string& problem);

/// Collective at the end: the exit status every rank returns (rank 0's, or if that is 0 the
/// first other rank's that is not).
[[nodiscard]] int agree_on_exit(RankContext& ranks, int status);

/// Rank 0: prints the rank table of each step (write_rank_table) after the step's own report.
[[nodiscard]] std::unique_ptr<Reporter> make_rank_table_reporter(std::ostream& out,
                                                                 const RankContext& ranks);

}  // namespace iobench::cli
