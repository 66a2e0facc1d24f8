#include "compare_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/result_json.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "history_command.hpp"
#include "output_formats.hpp"

namespace iobench::cli {
namespace {

// A failure counter's figure as the gate compares it: the total of one result, else the
// per-result mean with the total and n, then what failed results counted; "none" where the
// input does not count it.
std::string counter_figure(const CounterValues& values) {
  std::string figure;
  if (values.values.size() == 1) {
    figure = std::to_string(values.total);
  } else if (!values.values.empty()) {
    figure = fmt::format("{:.6g} per result (total {}, n={})", values.mean(), values.total,
                         values.values.size());
  }
  // A failure counted in failed results (a data check that failed its phase) is counted too.
  if (!values.failed_values.empty()) {
    figure += fmt::format("{}{} in failed results", figure.empty() ? "" : " and ",
                          fmt::join(values.failed_values, ", "));
  }
  return figure.empty() ? "none (not counted)" : figure;
}

// "step S point P, phase F" (no point outside a sweep), as the gate's reasons name a phase.
std::string phase_place(const std::string& step, const std::optional<std::string>& point,
                        const std::string& phase) {
  return fmt::format("step {}{}, phase {}", printable(step),
                     point ? fmt::format(" point {}", printable(*point)) : "", printable(phase));
}

}  // namespace

int run_compare(const CliOptions& options) {
  CompareOptions compare_options;
  for (const std::string& name : options.compare_metrics) {
    try {
      compare_options.metrics.push_back(parse_compare_metric(name));
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("--metrics: {}", e.what()));
    }
  }
  compare_options.phases = options.compare_phases;
  std::vector<CompareInput> inputs;
  for (std::size_t i = 0; i < options.compare_files.size(); ++i) {
    const std::string& path = options.compare_files[i];
    if (std::optional<ReportInput> stored = history_input(path)) {
      inputs.push_back(CompareInput{.label = path, .document = std::move(stored->document)});
      continue;
    }
    inputs.push_back(
        CompareInput{.label = path, .document = read_result_file(path, options.input_format(i))});
  }
  Comparison comparison;
  try {
    comparison = compare_results(inputs, compare_options);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--phases: {}", e.what()));
  }

  find_output_format(options.format, FormatCommand::kCompare).compare(comparison, std::cout);
  std::cout.flush();
  if (!options.fail_if_worse) return 0;
  // A gate with nothing to compare would pass whatever the inputs hold: refuse it. A failure
  // counter higher than the baseline's, or a phase or step that failed where the baseline's
  // ended ok, is something compared, and fails the gate.
  const std::vector<CounterRegression> failures = counter_regressions(comparison);
  const std::vector<std::size_t> failed = failed_phases(comparison);
  std::size_t compared = failures.size() + failed.size();
  for (const PhaseComparison& phase : comparison.phases) {
    for (const MetricRow& row : phase.metrics) {
      compared += static_cast<std::size_t>(
          std::count_if(row.changes.begin(), row.changes.end(),
                        [](const std::optional<MetricChange>& c) { return c.has_value(); }));
    }
  }
  if (compared == 0) {
    fmt::print(stderr,
               "iobench: compare: --fail-if-worse {}: nothing to compare: no phase and metric "
               "is in the baseline and another input (see \"Not compared\" and \"Not mapped\" "
               "above); align the inputs (--phases, --metrics, the same steps) or drop the gate\n",
               *options.fail_if_worse);
    return 2;
  }
  const std::vector<Regression> found = regressions(comparison, *options.fail_if_worse);
  for (const Regression& regression : found) {
    const PhaseComparison& phase = comparison.phases[regression.phase];
    const MetricRow& row = phase.metrics[regression.metric];
    const MetricChange& change = *row.changes[regression.input - 1];
    fmt::print(stderr,
               "iobench: compare: {} is worse in #{} ({}) than in the baseline: {}: {:.2f}% > "
               "{}% ({})\n",
               compare_metric_info(row.metric).title, regression.input,
               printable(comparison.labels[regression.input]),
               phase_place(phase.step, phase.sweep_point, phase.phase), regression.worse_percent,
               *options.fail_if_worse, to_string(change.noise));
  }
  // Any failure counted above the baseline's count fails the gate, whatever PCT.
  for (const CounterRegression& failure : failures) {
    const PhaseComparison& phase = comparison.phases[failure.phase];
    const CounterRow& row = phase.counters[failure.counter];
    fmt::print(stderr,
               "iobench: compare: failure counter {} is higher in #{} ({}) than in the baseline: "
               "{}: {} > {} (any failure counted above the baseline's fails --fail-if-worse, "
               "whatever PCT)\n",
               printable(row.name), failure.input, printable(comparison.labels[failure.input]),
               phase_place(phase.step, phase.sweep_point, phase.phase),
               counter_figure(row.inputs[failure.input]), counter_figure(row.inputs[0]));
  }
  // A phase that failed (a data check that found errors fails its phase) where the baseline's
  // ended ok: its figures are left out of every row, so it fails the gate on its own. So does a
  // step that failed outside its phases (its set-up failed: no phase ran) where the baseline's
  // step ended ok.
  for (const std::size_t index : failed) {
    const LeftOutResult& left = comparison.left_out[index];
    if (left.phase.empty()) {
      fmt::print(stderr,
                 "iobench: compare: a step failed in #{} ({}) where the baseline's ended ok: step "
                 "{}{}, repetition {}: {}{} (a failed step fails --fail-if-worse, whatever PCT)\n",
                 left.input, printable(comparison.labels[left.input]), printable(left.step),
                 left.sweep_point ? fmt::format(" point {}", printable(*left.sweep_point)) : "",
                 left.repetition, to_string(left.status),
                 left.message.empty() ? std::string()
                                      : fmt::format(": {}", printable_message(left.message)));
      continue;
    }
    fmt::print(stderr,
               "iobench: compare: a phase failed in #{} ({}) where the baseline's ended ok: {}, "
               "repetition {}: {}{} (a failed phase fails --fail-if-worse, whatever PCT)\n",
               left.input, printable(comparison.labels[left.input]),
               phase_place(left.step, left.sweep_point, left.phase), left.repetition,
               to_string(left.status),
               left.message.empty() ? std::string()
                                    : fmt::format(": {}", printable_message(left.message)));
  }
  return found.empty() && failures.empty() && failed.empty() ? 0 : 1;
}

}  // namespace iobench::cli
