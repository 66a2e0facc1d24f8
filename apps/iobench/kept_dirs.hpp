#pragma once

#include <filesystem>
#include <iobench/suite.hpp>
#include <optional>
#include <ostream>
#include <set>

namespace iobench::cli {

/// The run directories named as this process's (iobench.<pid>.<random>, see RunDirs) in the
/// directory targets of `plan`: taken before the run, these are an earlier process's with the
/// same pid, which report_kept_run_dirs leaves alone.
[[nodiscard]] std::set<std::filesystem::path> run_dirs_named_as_ours(const SuitePlan& plan);

/// After a run with --keep: names on `err` each run directory this process made in the plan's
/// targets (those run_dirs_named_as_ours finds now but not in `before`), one line each, or
/// removes it if it is empty (a run that created nothing leaves no empty directory behind) and
/// says so. `default_target`, the temporary target made without -d, is then named as kept, or
/// removed if empty.
void report_kept_run_dirs(const SuitePlan& plan, const std::set<std::filesystem::path>& before,
                          const std::optional<std::filesystem::path>& default_target,
                          std::ostream& err);

}  // namespace iobench::cli
