#pragma once

#include <iobench/result.hpp>
#include <iobench/runner.hpp>

namespace iobench::detail {

/// Copies `step`'s options (engine, time limit, warm-up, op limit, drop caches) into `result`, as
/// every step result records them.
void record_options(const Step& step, StepResult& result);

}  // namespace iobench::detail
