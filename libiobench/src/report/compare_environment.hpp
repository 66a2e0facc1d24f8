#pragma once

// The environment and step differences `iobench compare` lists under "What differs" (see
// compare_results in <iobench/compare.hpp>).

#include <iobench/compare.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace iobench::detail {

/// Appends to `out` the system and target fields whose values differ between `inputs`: hostname,
/// kernel, arch, cpu_model, cpu_count, memory_bytes, iobench_version, clock, "source", and per
/// target index path, fs_type, mount_point, mount_options, device, size_bytes. A field only some
/// inputs state (a classic tool's result) is listed only where two stated values differ.
void environment_differences(std::span<const CompareInput> inputs,
                             std::vector<EnvironmentDifference>& out);

/// Appends the differences of one aligned step (`step`, at sweep point `point`): `steps[i]` is
/// input i's first repetition, nullptr where the input lacks the step; `own[i]`: input i is
/// iobench's own result (not a classic tool's). Params are compared normalised
/// (compared_params), then engine, time_limit, warmup, ops_limit, drop_caches and targets (which
/// a classic result does not state, but fio's engine). A field already listed with the same
/// values (another sweep point) is not repeated.
void step_differences(const std::string& step, const std::optional<std::string>& point,
                      const std::vector<const StepResult*>& steps, const std::vector<bool>& own,
                      std::vector<EnvironmentDifference>& out);

}  // namespace iobench::detail
