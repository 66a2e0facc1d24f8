#include "kept_dirs.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <iobench/printable.hpp>
#include <string>

namespace iobench::cli {
namespace {

namespace fs = std::filesystem;

// Removes `dir` if it is empty; says which was done.
void keep_or_remove(const fs::path& dir, std::ostream& err) {
  std::error_code ec;
  if (fs::is_empty(dir, ec) && !ec && fs::remove(dir, ec) && !ec) {
    fmt::print(err, "iobench: --keep: removed {}: it was empty (nothing was created in it)\n",
               printable(dir.string()));
    return;
  }
  fmt::print(err, "iobench: kept {}\n", printable(dir.string()));
}

}  // namespace

std::set<fs::path> run_dirs_named_as_ours(const SuitePlan& plan) {
  std::set<fs::path> targets;
  for (const PlannedRun& run : plan.runs) {
    targets.insert(run.step.targets.begin(), run.step.targets.end());
  }
  // The pid in a run directory's name tells this run's from other processes' runs.
  const std::string prefix = fmt::format("iobench.{}.", ::getpid());
  std::set<fs::path> found;
  for (const fs::path& target : targets) {
    std::error_code ec;
    if (!fs::is_directory(target, ec)) continue;  // a file or device target has none
    for (fs::directory_iterator it(target, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().starts_with(prefix)) found.insert(it->path());
    }
  }
  return found;
}

void report_kept_run_dirs(const SuitePlan& plan, const std::set<fs::path>& before,
                          const std::optional<std::filesystem::path>& default_target,
                          std::ostream& err) {
  for (const fs::path& dir : run_dirs_named_as_ours(plan)) {
    if (!before.contains(dir)) keep_or_remove(dir, err);
  }
  if (default_target) keep_or_remove(*default_target, err);
}

}  // namespace iobench::cli
