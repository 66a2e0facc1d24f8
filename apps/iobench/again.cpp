#include "again.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iobench/error.hpp>
#include <vector>

namespace iobench::cli {

SuitePlan again_plan(const CliOptions& options, const Runner& runner, ResultDocument& document) {
  std::vector<std::string> changed;
  if (!options.workload.empty()) changed.push_back(fmt::format("'{}'", options.workload));
  for (const auto& [key, value] : options.params) changed.push_back(key + "=" + value);
  if (options.time_limit.count() > 0) changed.push_back("--time");
  if (options.warmup.count() > 0) changed.push_back("--warmup");
  if (options.interval_given) changed.push_back("--interval");
  if (options.ops_limit > 0) changed.push_back("--ops");
  if (options.seed > 0) changed.push_back("--seed");
  if (options.engine_given) changed.push_back("--engine");
  if (options.drop_caches) changed.push_back("--drop-caches");
  if (!changed.empty()) {
    throw ConfigError(fmt::format(
        "--again repeats {} with its own steps, params, seeds and options; drop {} (only -d, "
        "the output options, --keep and --fail-fast go with --again), or run without --again",
        options.again, fmt::join(changed, ", ")));
  }
  document = load_result_file(options.again);
  RepeatOptions repeat;
  repeat.targets.assign(options.targets.begin(), options.targets.end());
  SuitePlan plan;
  try {
    plan = repeat_plan(document, repeat);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--again {}: {}", options.again, e.what()));
  }
  std::vector<Step> steps;
  for (const PlannedRun& run : plan.runs) steps.push_back(run.step);
  try {
    runner.validate(steps);
  } catch (const ConfigError& e) {
    throw ConfigError(
        fmt::format("--again {}: its steps cannot run here as recorded{}:\n{}", options.again,
                    options.targets.empty() ? " (give -d DIR for other targets)" : "", e.what()));
  }
  return plan;
}

Invocation invocation_of(const CliOptions& options, const SuitePlan& plan,
                         const ResultDocument* repeated) {
  Invocation inv;
  inv.argv = options.argv;
  std::error_code ec;
  inv.working_directory = std::filesystem::current_path(ec).string();
  if (repeated != nullptr && repeated->invocation) {
    inv.suite_source = repeated->invocation->suite_source;
    inv.suite_text = repeated->invocation->suite_text;
  } else {
    inv.suite_source = plan.suite.source;
    inv.suite_text = plan.suite.text;
  }
  inv.targets = options.targets;
  inv.params = options.params;
  inv.engine = options.engine_given ? options.engine : std::string();
  inv.time_limit_ns = static_cast<std::uint64_t>(options.time_limit.count());
  inv.warmup_ns = static_cast<std::uint64_t>(options.warmup.count());
  inv.ops_limit = options.ops_limit;
  inv.drop_caches = options.drop_caches;
  inv.seed = options.seed;
  inv.repeated_from = options.again;
  return inv;
}

}  // namespace iobench::cli
