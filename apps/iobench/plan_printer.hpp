#pragma once

#include <iobench/runner.hpp>
#include <iobench/suite.hpp>
#include <ostream>
#include <span>

namespace iobench::cli {

/// What `iobench validate` prints after "ok": one line per run of `plan` with its workload, its
/// number of targets, the free space it needs at its peak per target (binary units) and the params
/// the user or the suite gave, as resolved ("size=2*ram" shows as "size=48GiB"). `previews` are
/// Runner::preview() of the plan's runs, in order.
void print_plan(const SuitePlan& plan, std::span<const Runner::StepPreview> previews,
                std::ostream& out);

}  // namespace iobench::cli
