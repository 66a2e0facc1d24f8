// A suite run's statistics as text (repetition tables, AIM-style sweep tables) and the suite
// JSON document. Formats numbers computed in metrics/repetition_stats.cpp; computes nothing.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iobench/suite.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kMB = 1e6;

// How a metric is shown in text: its label and the factor to its display unit.
struct MetricDisplay {
  const char* label;
  double divisor;
};

MetricDisplay display_of(const std::string& metric) {
  if (metric == "throughput_bytes_per_s") return {"throughput MB/s", kMB};
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
  fmt::print(out, "\n{}: sweep over {} (MB = 10^6 bytes; latency in us; * = peak throughput)\n",
             step.name, step.sweep->param);
  std::string phase;
  for (const SweepRow& row : step.sweep_rows) {
    if (row.phase != phase) {
      phase = row.phase;
      fmt::print(out, "  phase {}\n", phase);
      fmt::print(out, "    {:>10} {:>10} {:>12} {:>12} {:>12} {:>12} {:>8} {:>9}\n",
                 step.sweep->param, "MB/s", "ops/s", "MB/s/worker", "max lat", "p99 lat", "CPU %",
                 "fairness");
    }
    if (row.samples == 0) {
      fmt::print(out, "    {:>10} {:>10}\n", row.point, "no result");
      continue;
    }
    fmt::print(out,
               "    {:>10} {:>10.2f} {:>12.1f} {:>12.2f} {:>12.1f} {:>12.1f} {:>8.1f} {:>9.3f}{}\n",
               row.point, row.throughput_bytes_per_s / kMB, row.ops_per_s,
               row.per_worker_bytes_per_s / kMB, row.max_latency_ns / 1e3, row.p99_latency_ns / 1e3,
               row.cpu_percent, row.fairness, row.peak ? " *" : "");
  }
}

Json stats_json(const MetricSamples& m) {
  Json j;
  j["values"] = m.values;
  j["count"] = m.stats.count;
  j["mean"] = m.stats.mean;
  j["stddev"] = m.stats.stddev;
  j["min"] = m.stats.min;
  j["max"] = m.stats.max;
  j["cv_percent"] = m.stats.cv_percent;
  j["ci95_low"] = m.stats.ci95_low;
  j["ci95_high"] = m.stats.ci95_high;
  j["high_variation"] = m.stats.high_variation;
  return j;
}

Json step_summary_json(const StepSummary& step) {
  Json j;
  j["name"] = step.name;
  j["workload"] = step.workload;
  j["repeat"] = step.repeat;
  if (step.sweep) {
    j["sweep"] = {{"param", step.sweep->param}, {"values", step.sweep->values}};
  } else {
    j["sweep"] = nullptr;
  }
  Json points = Json::array();
  for (const PointSummary& point : step.points) {
    Json p;
    p["point"] = point.point;
    p["result_indices"] = point.result_indices;
    Json phases = Json::array();
    for (const PhaseRepetitions& phase : point.repetitions) {
      Json metrics = Json::object();
      for (const MetricSamples& m : phase.metrics) metrics[m.metric] = stats_json(m);
      phases.push_back({{"phase", phase.phase}, {"metrics", std::move(metrics)}});
    }
    p["repetitions"] = std::move(phases);
    points.push_back(std::move(p));
  }
  j["points"] = std::move(points);
  Json table = Json::array();
  for (const SweepRow& row : step.sweep_rows) {
    Json r;
    r["phase"] = row.phase;
    r["point"] = row.point;
    r["samples"] = row.samples;
    r["workers"] = row.workers;
    r["throughput_bytes_per_s"] = row.throughput_bytes_per_s;
    r["ops_per_s"] = row.ops_per_s;
    r["per_worker_bytes_per_s"] = row.per_worker_bytes_per_s;
    r["max_latency_ns"] = row.max_latency_ns;
    r["p99_latency_ns"] = row.p99_latency_ns;
    r["cpu_percent"] = row.cpu_percent;
    r["fairness"] = row.fairness;
    r["peak"] = row.peak;
    table.push_back(std::move(r));
  }
  j["sweep_table"] = std::move(table);
  return j;
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

std::string suite_to_json(const SuitePlan& plan, const SuiteRunResult& result, int indent) {
  Json doc = Json::parse(to_json(result.run, -1));
  Json& steps = doc["steps"];
  for (std::size_t i = 0; i < steps.size() && i < plan.runs.size(); ++i) {
    const PlannedRun& planned = plan.runs[i];
    const SuiteStep& step = plan.suite.steps[planned.suite_step];
    steps[i]["suite_step"] = step.name;
    steps[i]["sweep_point"] = step.sweep ? Json(step.sweep->values[planned.point]) : Json(nullptr);
    steps[i]["repetition"] = planned.repetition + 1;
  }
  Json suite;
  suite["name"] = result.suite_name;
  suite["source"] = result.source;
  suite["complete"] = result.complete;
  suite["planned_runs"] = result.planned_runs;
  suite["completed_runs"] = result.run.steps.size();
  Json summary = Json::array();
  for (const StepSummary& step : result.summary) summary.push_back(step_summary_json(step));
  suite["steps"] = std::move(summary);
  doc["suite"] = std::move(suite);
  return doc.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace iobench
