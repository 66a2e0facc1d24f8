#pragma once

// What the parts of the HTML report's model (report_model.cpp, time_series_model.cpp,
// summary_model.cpp, comparison_model.cpp) share; see report_model.hpp for the whole.

#include <cstddef>
#include <iobench/html_report.hpp>
#include <iobench/suite.hpp>
#include <span>

#include "report/html/report_model.hpp"

namespace iobench::detail::html {

/// Bytes in a MiB (2^20): throughput is shown in MiB/s.
inline constexpr double kMiB = 1024.0 * 1024.0;

/// `amount` per second over `duration_s`, divided by `scale` (kMiB: MiB/s); null for a duration
/// of 0 or less (no rate to show).
[[nodiscard]] Json rate(double amount, double duration_s, double scale);

/// A swept step's charts: per phase one row per sweep point, each metric's mean with its band
/// (the 95 % CI of the repetitions where there are 2 or more) (summary_model.cpp).
[[nodiscard]] Json sweep_json(const StepSummary& summary);
/// A repeated step's per-metric spread over its repetitions (summary_model.cpp).
[[nodiscard]] Json repetitions_json(const StepSummary& summary);
/// model.comparison: the inputs side by side, the first the baseline; each aligned phase's
/// `explain` is null or compare's explain block with the page's run numbers (#1 the baseline):
/// {findings, figures: [[title, cell per run]], inputs, differences} (comparison_model.cpp).
[[nodiscard]] Json comparison_json(std::span<const ReportInput> inputs);

}  // namespace iobench::detail::html
