#pragma once

#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <iobench/suite.hpp>

#include "cli_options.hpp"

namespace iobench::cli {

/// `iobench run --again RESULT.json`: the validated plan that repeats the run the file records
/// (its steps, params, seeds and options; its targets unless -d is given). Throws ConfigError
/// (exit 2) for options that would change the repeat (a workload, key=value, --time, --warmup,
/// --ops, --seed, --engine, --drop-caches), a file that cannot be read or repeated, or steps that
/// are no longer valid here. `document` gets the file's document.
[[nodiscard]] SuitePlan again_plan(const CliOptions& options, const Runner& runner,
                                   ResultDocument& document);

/// What the command line asked for, as the result records it.
[[nodiscard]] Invocation invocation_of(const CliOptions& options, const SuitePlan& plan,
                                       const ResultDocument* repeated);

}  // namespace iobench::cli
