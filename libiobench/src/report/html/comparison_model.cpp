// The comparison of several runs in the HTML report (model.comparison; see report_model.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/statistics.hpp>
#include <iobench/units.hpp>
#include <numeric>
#include <optional>

#include "report/compare_explain.hpp"
#include "report/html/model_parts.hpp"
#include "report/html/report_model.hpp"

namespace iobench::detail::html {
namespace {

double metric_scale(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::kThroughput:
      return kMiB;
    case CompareMetric::kIops:
    case CompareMetric::kCpu:
      return 1;
    default:
      return 1000.0;
  }
}

const char* metric_unit(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::kThroughput:
      return "MiB/s";
    case CompareMetric::kIops:
      return "ops/s";
    case CompareMetric::kCpu:
      return "%";
    default:
      return "us";
  }
}

// A phase's explanations side by side (issue 29), as compare's text shows them but with the
// page's run numbers (#1 the baseline): {findings: [sentence] (the differing findings first),
// figures: [[title, cell per run]] (compare's rows, then each run's finding names), inputs,
// differences (compare --format json's, input indexes from 0)}.
Json compare_explain_model(const ExplainComparison& explain) {
  const ExplainLines lines = detail::explain_lines(explain, 1);
  std::vector<std::string> findings{"findings"};
  for (const std::optional<ExplainSummary>& s : explain.inputs) {
    findings.push_back(!s                    ? std::string("-")
                       : s->findings.empty() ? std::string("none")
                                             : fmt::format("{}", fmt::join(s->findings, ", ")));
  }
  Json figures = lines.figures;
  figures.push_back(findings);
  Json j = detail::explain_comparison_json(explain);
  return {{"findings", lines.findings},
          {"figures", std::move(figures)},
          {"inputs", std::move(j["inputs"])},
          {"differences", std::move(j["differences"])}};
}

}  // namespace

Json comparison_json(std::span<const ReportInput> inputs) {
  std::vector<CompareInput> compare_inputs;
  for (const ReportInput& input : inputs) {
    compare_inputs.push_back(CompareInput{.label = input.label, .document = input.document});
  }
  CompareOptions options;
  options.metrics = {CompareMetric::kThroughput, CompareMetric::kIops, CompareMetric::kLatencyP99};
  const Comparison comparison = compare_results(compare_inputs, options);
  Json j;
  j["labels"] = comparison.labels;
  Json env = Json::array();
  for (const EnvironmentDifference& d : comparison.environment) {
    env.push_back({{"field", d.field}, {"values", d.values}});
  }
  j["environment"] = std::move(env);
  Json phases = Json::array();
  for (const PhaseComparison& phase : comparison.phases) {
    Json metrics = Json::array();
    for (const MetricRow& row : phase.metrics) {
      const CompareMetricInfo& info = compare_metric_info(row.metric);
      const double scale = metric_scale(row.metric);
      Json values = Json::array();
      for (const MetricValues& v : row.inputs) {
        if (v.values.empty()) {
          // A classic tool's phase without this figure says why; else the run lacks the phase.
          values.push_back(v.unavailable ? Json{{"unavailable", to_string(*v.unavailable)}}
                                         : Json(nullptr));
          continue;
        }
        values.push_back({{"n", v.stats.count},
                          {"mean", v.stats.mean / scale},
                          {"ci95_low", v.stats.ci95_low / scale},
                          {"ci95_high", v.stats.ci95_high / scale}});
      }
      Json changes = Json::array();
      for (const std::optional<MetricChange>& change : row.changes) {
        if (!change) {
          changes.push_back(nullptr);
          continue;
        }
        changes.push_back({{"change_percent",
                            change->change_percent ? Json(*change->change_percent) : Json(nullptr)},
                           {"direction", to_string(change->direction)},
                           {"noise", to_string(change->noise)}});
      }
      metrics.push_back({{"metric", std::string(info.name)},
                         {"title", std::string(info.title)},
                         {"unit", metric_unit(row.metric)},
                         {"better", info.better == Better::kHigher ? "higher" : "lower"},
                         {"inputs", std::move(values)},
                         {"changes", std::move(changes)}});
    }
    phases.push_back(
        {{"step", phase.step},
         {"workload", phase.workload},
         {"sweep_point", phase.sweep_point ? Json(*phase.sweep_point) : Json(nullptr)},
         {"phase", phase.phase},
         {"explain", phase.explain ? compare_explain_model(*phase.explain) : Json(nullptr)},
         {"metrics", std::move(metrics)},
         {"notes", phase.notes}});
  }
  j["phases"] = std::move(phases);
  Json unmatched = Json::array();
  for (const UnmatchedPart& part : comparison.unmatched) {
    std::vector<std::string> missing;
    for (const std::size_t i : part.missing) missing.push_back(comparison.labels[i]);
    unmatched.push_back({{"what", fmt::format("step {}{}{}", part.step,
                                              part.sweep_point ? " point " + *part.sweep_point : "",
                                              part.phase.empty() ? "" : ", phase " + part.phase)},
                         {"missing_in", missing}});
  }
  j["unmatched"] = std::move(unmatched);
  Json left_out = Json::array();
  for (const LeftOutResult& r : comparison.left_out) {
    left_out.push_back(
        {{"input", comparison.labels[r.input]},
         {"what", fmt::format("step {}{} repetition {}{}", r.step,
                              r.sweep_point ? " point " + *r.sweep_point : "", r.repetition,
                              r.phase.empty() ? "" : ", phase " + r.phase)},
         {"status", to_string(r.status)},
         {"message", r.message}});
  }
  j["left_out"] = std::move(left_out);
  return j;
}

}  // namespace iobench::detail::html
