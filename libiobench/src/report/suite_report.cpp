// A suite run's statistics as text (repetition tables, AIM-style sweep tables) and the suite
// JSON document. Formats numbers computed in metrics/repetition_stats.cpp; computes nothing.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iobench/result_json.hpp>
#include <iobench/suite.hpp>
#include <optional>
#include <ostream>

#include "report/json_shape.hpp"

namespace iobench {
namespace {

constexpr double kMiB = 1048576.0;

// How a metric is shown in text: its label and the factor to its display unit.
struct MetricDisplay {
  const char* label;
  double divisor;
};

MetricDisplay display_of(const std::string& metric) {
  if (metric == "throughput_bytes_per_s") return {"throughput MiB/s", kMiB};
  if (metric == "ops_per_s") return {"ops/s", 1};
  if (metric == "latency_mean_ns") return {"latency mean us", 1e3};
  if (metric == "latency_p99_ns") return {"latency p99 us", 1e3};
  return {metric.c_str(), 1};
}

void write_repetitions(const StepSummary& step, const PointSummary& point, std::ostream& out) {
  fmt::print(out,
             "\n{}{}: {} repetitions (mean, sample stddev, 95 % CI of the mean, Student's t)\n",
             step.name,
             step.sweep ? fmt::format(" [{}={}]", step.sweep->param, point.point) : std::string(),
             step.repeat);
  for (const PhaseRepetitions& phase : point.repetitions) {
    fmt::print(out, "  phase {}\n", phase.phase);
    fmt::print(out, "    {:<18} {:>12} {:>12} {:>12} {:>12} {:>7} {:>27}\n", "metric", "mean",
               "stddev", "min", "max", "CV %", "95 % CI");
    for (const MetricSamples& m : phase.metrics) {
      const MetricDisplay d = display_of(m.metric);
      const SampleStats& s = m.stats;
      fmt::print(out, "    {:<18} {:>12.2f} {:>12.2f} {:>12.2f} {:>12.2f} {:>7.1f} {:>27}\n",
                 d.label, s.mean / d.divisor, s.stddev / d.divisor, s.min / d.divisor,
                 s.max / d.divisor, s.cv_percent,
                 s.count < 2 ? std::string("-")
                             : fmt::format("[{:.2f}, {:.2f}]", s.ci95_low / d.divisor,
                                           s.ci95_high / d.divisor));
    }
    for (const MetricSamples& m : phase.metrics) {
      if (m.stats.high_variation) {
        fmt::print(out,
                   "    warning: {} varies by {:.1f} % (CV > {:.0f} %); the mean is not "
                   "reliable, run more repetitions or steady the system\n",
                   display_of(m.metric).label, m.stats.cv_percent, kHighVariationCvPercent);
      }
    }
  }
}

void write_sweep(const StepSummary& step, std::ostream& out) {
  fmt::print(out, "\n{}: sweep over {} (MiB = 2^20 bytes; latency in us; * = peak throughput)\n",
             step.name, step.sweep->param);
  std::string phase;
  for (const SweepRow& row : step.sweep_rows) {
    if (row.phase != phase) {
      phase = row.phase;
      fmt::print(out, "  phase {}\n", phase);
      fmt::print(out, "    {:>10} {:>10} {:>12} {:>12} {:>12} {:>12} {:>8} {:>9}\n",
                 step.sweep->param, "MiB/s", "ops/s", "MiB/s/worker", "max lat", "p99 lat", "CPU %",
                 "fairness");
    }
    if (row.samples == 0) {
      fmt::print(out, "    {:>10} {:>10}\n", row.point, "no result");
      continue;
    }
    fmt::print(out,
               "    {:>10} {:>10.2f} {:>12.1f} {:>12.2f} {:>12.1f} {:>12.1f} {:>8.1f} {:>9.3f}{}\n",
               row.point, row.throughput_bytes_per_s / kMiB, row.ops_per_s,
               row.per_worker_bytes_per_s / kMiB, row.max_latency_ns / 1e3,
               row.p99_latency_ns / 1e3, row.cpu_percent, row.fairness, row.peak ? " *" : "");
  }
}

// Where each run of the plan sits in its suite, and the suite record, of a suite run.
std::vector<StepPlacement> placements_of(const SuitePlan& plan, std::size_t steps) {
  std::vector<StepPlacement> placements;
  for (std::size_t i = 0; i < steps && i < plan.runs.size(); ++i) {
    const PlannedRun& planned = plan.runs[i];
    const SuiteStep& step = plan.suite.steps[planned.suite_step];
    placements.push_back(StepPlacement{
        .suite_step = step.name,
        .sweep_point = step.sweep ? std::optional<std::string>(step.sweep->values[planned.point])
                                  : std::nullopt,
        .repetition = planned.repetition + 1});
  }
  return placements;
}

SuiteRecord record_of(const SuiteRunResult& result) {
  return SuiteRecord{.name = result.suite_name,
                     .source = result.source,
                     .complete = result.complete,
                     .planned_runs = result.planned_runs,
                     .summary = result.summary};
}

}  // namespace

void write_suite_summary_text(const SuiteRunResult& result, std::ostream& out) {
  for (const StepSummary& step : result.summary) {
    if (step.repeat > 1) {
      for (const PointSummary& point : step.points) {
        if (!point.repetitions.empty()) write_repetitions(step, point, out);
      }
    }
    if (step.sweep && !step.sweep_rows.empty()) write_sweep(step, out);
  }
  if (!result.complete) {
    const auto interrupted = static_cast<std::size_t>(
        std::count_if(result.run.steps.begin(), result.run.steps.end(),
                      [](const StepResult& s) { return s.status == Status::kInterrupted; }));
    fmt::print(out, "\nSuite '{}' incomplete: {} of {} runs finished{}\n", result.suite_name,
               result.run.steps.size() - interrupted, result.planned_runs,
               interrupted == 0 ? std::string() : fmt::format(", {} interrupted", interrupted));
  }
}

std::string suite_to_json(const SuitePlan& plan, const SuiteRunResult& result, int indent,
                          const Invocation* invocation) {
  const std::vector<StepPlacement> placements = placements_of(plan, result.run.steps.size());
  const SuiteRecord suite = record_of(result);
  return detail::json::write_document(result.run, invocation, placements, &suite, nullptr, indent);
}

ResultDocument result_document(const SuitePlan& plan, const SuiteRunResult& result,
                               std::optional<Invocation> invocation) {
  ResultDocument document;
  document.schema = std::string(kResultSchema);
  document.run = result.run;
  document.invocation = std::move(invocation);
  document.placements = placements_of(plan, result.run.steps.size());
  document.suite = record_of(result);
  return document;
}

}  // namespace iobench
