#pragma once

// The explanation of a phase run on many ranks (issue 29): each rank explains its own targets on
// its own host; the aggregate's is their merged view (rank_explain.cpp).
#include <cstddef>
#include <iobench/explain.hpp>
#include <iobench/rank_results.hpp>
#include <optional>
#include <vector>

namespace iobench::detail {

/// Phase `p`'s explanation over `ranks` (indexed by rank; `target_offset[r]`: where rank r's
/// targets start among the aggregate's). Chains in the aggregate's target order; a device is
/// counted once per host: ranks of one host that share it (same kernel name) give one device
/// whose targets are all of theirs, with the counts of the rank whose snapshots spanned longest
/// (each rank's delta already holds the others' I/O over its window; adding them would count it
/// twice). With ranks on several hosts the devices and the chains' devices are named
/// "HOST:NAME". The application's figures are summed over the ranks; vmstat, meminfo, PSI and
/// the dirty threshold are summed over the hosts (one rank each). Then the derived figures and
/// findings of one explanation (explain::derive_figures, explain::add_findings). nullopt unless
/// every rank that ran the phase carries an explanation.
[[nodiscard]] std::optional<explain::PhaseExplanation> merge_rank_explanations(
    const std::vector<RankStep>& ranks, std::size_t p,
    const std::vector<std::size_t>& target_offset);

}  // namespace iobench::detail
