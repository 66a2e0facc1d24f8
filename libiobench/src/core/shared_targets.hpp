#pragma once

#include <filesystem>
#include <iobench/coordinator.hpp>
#include <span>
#include <string>
#include <vector>

namespace iobench::detail {

/// A step whose params make the ranks share its targets (WorkloadInfo::shared_targets_param).
struct SharedTargets {
  std::string label;  ///< the step, as messages name it
  std::string param;  ///< what makes it share, e.g. "shared_file=regions"
  std::vector<std::filesystem::path> targets;
};

/// Collective, before any I/O: every rank's shared-target steps (the same steps on every rank)
/// must name the same targets as rank 0's. Throws ConfigError on every rank otherwise, naming the
/// step, the param, the first rank that differs and both targets, and the fix (no {rank},
/// {local_rank} or {host} in -d; without -d each rank has a directory of its own). A lost rank
/// throws CoordinationError.
void agree_on_shared_targets(Coordinator& coordinator, std::span<const SharedTargets> steps);

}  // namespace iobench::detail
