#include "plan_printer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iobench/format.hpp>
#include <string>

namespace iobench::cli {

void print_plan(const SuitePlan& plan, std::span<const Runner::StepPreview> previews,
                std::ostream& out) {
  for (std::size_t i = 0; i < plan.runs.size() && i < previews.size(); ++i) {
    const Step& step = plan.runs[i].step;
    const Runner::StepPreview& preview = previews[i];
    const std::uint64_t peak =
        preview.planned_bytes.empty()
            ? 0
            : *std::max_element(preview.planned_bytes.begin(), preview.planned_bytes.end());
    std::string given;  // defaults are left out: see `iobench list`
    for (const auto& [key, value] : preview.params) given += fmt::format(" {}={}", key, value);
    fmt::print(out, "  run {}/{} '{}': {}, {} target(s), needs {} of free space per target;{}\n",
               i + 1, plan.runs.size(), step.name, step.workload, step.targets.size(),
               peak == 0 ? std::string("no") : "up to " + format_bytes(peak),
               given.empty() ? std::string(" defaults") : given);
  }
}

}  // namespace iobench::cli
