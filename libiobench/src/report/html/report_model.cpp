// Data preparation of the HTML report: results -> the page's JSON model. No HTML here
// (page_template.cpp) and no drawing (report.js): what each chart shows is decided here, in units
// for people (MiB/s = 2^20 bytes/s, us), one chart row per point of the result.
//
// model = {title, runs: [run], comparison: null | comparison}
// run   = {label, schema, iobench_version, status, environment: [[field, value]],
//          targets: [{path, fs_type, mount_point, mount_options, device, size_bytes}],
//          invocation: null | {command, working_directory, suite_source, repeated_from},
//          source: null | {format, tool_version, not_mapped} (a classic tool's result),
//          suite: null | {name, source, complete}, steps: [step], bonnie: [table],
//          sweeps: [sweep], repetitions: [repetition]}
// step  = {index, name, workload, status, message, suite_step, sweep_point, repetition, engine,
//          params: [[key, value]], warnings, phases: [phase]}
// phase = {index, name, status, message, reported, wall_ns, bytes, ops, throughput_mib_s,
//          ops_per_s, latency_us: {mean, p50, p99, p99_9, max}, cpu_percent,
//          unavailable: {metric name: why}, workers: {metric, unit, rows, fairness, min, max,
//          spread_percent}, latency_cdf: chart, time_series: null | time series}
//          (a figure is null where a classic tool's result lacks it, and `unavailable` says
//          why; such a phase has null wall_ns, bytes and ops and no workers, curve or series)
#include "report/html/report_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/statistics.hpp>
#include <iobench/units.hpp>
#include <iobench/workloads.hpp>
#include <numeric>
#include <optional>
#include <sstream>

namespace iobench::detail::html {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// More workers than this: the time-series charts show the line of all workers only (a legend of 64
// lines helps nobody); the worker bars still show every worker.
constexpr std::size_t kMaxWorkerSeries = 16;

Json pair(std::string_view key, std::string_view value) {
  return Json::array({std::string(key), std::string(value)});
}

std::string shell_word(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./=:,+@%") == std::string::npos;
  if (plain) return arg;
  std::string quoted = "'";
  for (const char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// The environment's known fields: a classic tool's result gives few of them (bonnie++ its
// machine name), and an unknown field is left out, never shown as 0 or empty.
Json environment_json(const Environment& env) {
  Json rows = Json::array();
  const auto add = [&rows](std::string_view field, const std::string& value) {
    if (!value.empty()) rows.push_back(pair(field, value));
  };
  add("hostname", env.hostname);
  add("kernel", env.kernel);
  add("arch", env.arch);
  if (!env.cpu_model.empty() || env.cpu_count > 0) {
    add("CPU", env.cpu_count > 0 ? fmt::format("{} ({} online)", env.cpu_model, env.cpu_count)
                                 : env.cpu_model);
  }
  if (env.memory_bytes > 0) {
    add("memory",
        fmt::format("{:.1f} GiB ({} bytes)", static_cast<double>(env.memory_bytes) / kMiB / 1024.0,
                    env.memory_bytes));
  }
  add("iobench", env.iobench_version);
  add("start (UTC)", env.start_time_utc);
  add("clock", env.clock);
  return rows;
}

Json targets_json(const Environment& env) {
  Json rows = Json::array();
  for (const TargetInfo& t : env.targets) {
    rows.push_back({{"path", t.path},
                    {"fs_type", t.fs_type},
                    {"mount_point", t.mount_point},
                    {"mount_options", t.mount_options},
                    {"device", t.device},
                    {"size_bytes", t.size_bytes}});
  }
  return rows;
}

Json invocation_json(const std::optional<Invocation>& invocation) {
  if (!invocation) return nullptr;
  std::string command;
  for (const std::string& arg : invocation->argv) {
    if (!command.empty()) command += ' ';
    command += shell_word(arg);
  }
  return {{"command", command},
          {"working_directory", invocation->working_directory},
          {"suite_source", invocation->suite_source},
          {"repeated_from", invocation->repeated_from}};
}

// --- raw JSON access (the "time_series" the reader does not keep) ---------------------------

const nlohmann::json& member(const nlohmann::json& object, const char* key,
                             const std::string& pointer) {
  if (!object.is_object()) throw ResultFormatError(pointer, "expected an object");
  const auto it = object.find(key);
  if (it == object.end()) throw ResultFormatError(pointer + "/" + key, "missing");
  return *it;
}

double number(const nlohmann::json& object, const char* key, const std::string& pointer) {
  const nlohmann::json& value = member(object, key, pointer);
  if (!value.is_number()) throw ResultFormatError(pointer + "/" + key, "expected a number");
  return value.get<double>();
}

// A latency figure of a point (ns -> us), null when absent or null (an interval without ops).
Json latency_us(const nlohmann::json& point, const char* key, const std::string& pointer) {
  const auto lat = point.find("latency_ns");
  if (lat == point.end() || lat->is_null()) return nullptr;
  if (!lat->is_object()) throw ResultFormatError(pointer + "/latency_ns", "expected an object");
  const auto value = lat->find(key);
  if (value == lat->end() || value->is_null()) return nullptr;
  if (!value->is_number()) {
    throw ResultFormatError(pointer + "/latency_ns/" + key, "expected a number");
  }
  return value->get<double>() / 1000.0;
}

Json rate(double amount, double duration_s, double scale) {
  if (duration_s <= 0) return nullptr;
  return amount / duration_s / scale;
}

// --- per-worker spread ------------------------------------------------------------------------

OpResult merged(const std::vector<OpResult>& ops) {
  OpResult all;
  for (const OpResult& op : ops) all.merge(op);
  return all;
}

Json workers_json(const PhaseResult& phase) {
  const bool by_bytes = phase.total_bytes() > 0;
  Json rows = Json::array();
  std::vector<double> shares;
  for (const WorkerResult& w : phase.workers) {
    const double seconds = static_cast<double>(w.elapsed_ns) / 1e9;
    const double bytes_per_s = seconds > 0 ? static_cast<double>(w.total_bytes()) / seconds : 0;
    const double ops_per_s = seconds > 0 ? static_cast<double>(w.total_ops()) / seconds : 0;
    const OpResult all = merged(w.ops);
    const double share = by_bytes ? bytes_per_s / kMiB : ops_per_s;
    shares.push_back(share);
    rows.push_back({{"index", w.index},
                    {"target_index", w.target_index},
                    {"value", share},
                    {"throughput_mib_s", bytes_per_s / kMiB},
                    {"ops_per_s", ops_per_s},
                    {"p99_us", static_cast<double>(all.latency.percentile(99.0)) / 1000.0},
                    {"status", to_string(w.status)}});
  }
  Json j;
  j["metric"] = by_bytes ? "throughput" : "IOPS";
  j["unit"] = by_bytes ? "MiB/s" : "ops/s";
  j["rows"] = std::move(rows);
  j["fairness"] = jain_fairness(shares);
  const auto [lo, hi] = std::minmax_element(shares.begin(), shares.end());
  j["min"] = shares.empty() ? 0.0 : *lo;
  j["max"] = shares.empty() ? 0.0 : *hi;
  // Spread: (max - min) / mean, %.
  const double mean =
      shares.empty() ? 0 : std::accumulate(shares.begin(), shares.end(), 0.0) / shares.size();
  j["spread_percent"] = mean > 0 ? (*hi - *lo) / mean * 100.0 : 0.0;
  return j;
}

Json phase_json(const PhaseResult& phase, std::size_t index, const nlohmann::json* raw,
                const std::string& pointer) {
  Json j;
  j["index"] = index;
  j["name"] = phase.name;
  j["status"] = to_string(phase.status);
  j["message"] = phase.message;
  j["wall_ns"] = phase.wall_ns;
  // A classic tool's phase (PhaseResult::reported) has only the figures the tool printed: no
  // op counts, wall time, op kinds, per-worker rows, latency curve or time series.
  const bool reported = phase.reported.has_value();
  j["reported"] = reported;
  j["bytes"] = reported ? Json(nullptr) : Json(phase.total_bytes());
  j["ops"] = reported ? Json(nullptr) : Json(phase.total_ops());
  if (reported) j["wall_ns"] = nullptr;
  Json unavailable = Json::object();
  const auto figure = [&](CompareMetric metric, double scale) -> Json {
    Unavailable why{};
    const std::optional<double> value = phase_metric_value(phase, metric, &why);
    if (value) return *value / scale;
    unavailable[std::string(compare_metric_info(metric).name)] = to_string(why);
    return nullptr;
  };
  j["throughput_mib_s"] = figure(CompareMetric::kThroughput, kMiB);
  j["ops_per_s"] = figure(CompareMetric::kIops, 1.0);
  j["latency_us"] = {{"mean", figure(CompareMetric::kLatencyMean, 1000.0)},
                     {"p50", figure(CompareMetric::kLatencyP50, 1000.0)},
                     {"p99", figure(CompareMetric::kLatencyP99, 1000.0)},
                     {"p99_9", figure(CompareMetric::kLatencyP99_9, 1000.0)},
                     {"max", figure(CompareMetric::kLatencyMax, 1000.0)}};
  j["cpu_percent"] = figure(CompareMetric::kCpu, 1.0);
  j["unavailable"] = std::move(unavailable);
  Json kinds = Json::array();
  for (std::size_t k = 0; k < phase.op_names.size() && k < phase.ops.size(); ++k) {
    kinds.push_back({{"name", phase.op_names[k]},
                     {"ops", phase.ops[k].ops},
                     {"bytes", phase.ops[k].bytes},
                     {"errors", phase.ops[k].errors}});
  }
  j["op_kinds"] = std::move(kinds);
  j["workers"] = workers_json(phase);
  j["latency_cdf"] = {{"labels", {"latency (us)", "% of ops faster"}},
                      {"rows", latency_cdf(phase.all_ops().latency)}};
  j["time_series"] = nullptr;
  if (raw != nullptr && raw->is_object()) {
    const auto series = raw->find("time_series");
    // A phase without points (it failed before its first interval, or a classic tool's
    // result) has no chart: dygraphs cannot draw zero rows.
    const bool no_points = series != raw->end() && series->is_object() &&
                           series->contains("points") && (*series)["points"].is_array() &&
                           (*series)["points"].empty();
    if (series != raw->end() && !series->is_null() && !no_points) {
      j["time_series"] = time_series_charts(*series, pointer + "/time_series");
    }
  }
  return j;
}

const nlohmann::json* raw_at(const nlohmann::json& raw, const char* key, std::size_t index) {
  if (!raw.is_object()) return nullptr;
  const auto it = raw.find(key);
  if (it == raw.end() || !it->is_array() || index >= it->size()) return nullptr;
  return &(*it)[index];
}

Json step_json(const ResultDocument& doc, std::size_t index, const nlohmann::json& raw) {
  const StepResult& step = doc.run.steps[index];
  const nlohmann::json* raw_step = raw_at(raw, "steps", index);
  Json j;
  j["index"] = index;
  j["name"] = step.name;
  j["workload"] = step.workload;
  j["status"] = to_string(step.status);
  j["message"] = step.message;
  if (index < doc.placements.size()) {
    const StepPlacement& placement = doc.placements[index];
    j["suite_step"] = placement.suite_step;
    j["sweep_point"] = placement.sweep_point ? Json(*placement.sweep_point) : Json(nullptr);
    j["repetition"] = placement.repetition;
  } else {
    j["suite_step"] = step.name;
    j["sweep_point"] = nullptr;
    j["repetition"] = 1;
  }
  j["engine"] = step.engine;
  Json params = Json::array();
  for (const auto& [key, value] : step.params) params.push_back(pair(key, value));
  j["params"] = std::move(params);
  j["warnings"] = step.warnings;
  Json phases = Json::array();
  for (std::size_t p = 0; p < step.phases.size(); ++p) {
    const nlohmann::json* raw_phase =
        raw_step != nullptr ? raw_at(*raw_step, "phases", p) : nullptr;
    phases.push_back(
        phase_json(step.phases[p], p, raw_phase, fmt::format("/steps/{}/phases/{}", index, p)));
  }
  j["phases"] = std::move(phases);
  return j;
}

// --- sweeps and repetitions (from the suite record's summary) ---------------------------------

const MetricSamples* find_metric(const PointSummary& point, const std::string& phase,
                                 std::string_view metric) {
  for (const PhaseRepetitions& reps : point.repetitions) {
    if (reps.phase != phase) continue;
    for (const MetricSamples& m : reps.metrics) {
      if (m.metric == metric) return &m;
    }
  }
  return nullptr;
}

// [low, mean, high] of a point: the 95 % CI of the repetitions where there are 2 or more.
Json band(double mean, const MetricSamples* samples, double scale) {
  if (samples != nullptr && samples->stats.count >= 2) {
    return Json::array({samples->stats.ci95_low / scale, samples->stats.mean / scale,
                        samples->stats.ci95_high / scale});
  }
  return Json::array({mean / scale, mean / scale, mean / scale});
}

Json sweep_json(const StepSummary& summary) {
  const SweepSpec& sweep = *summary.sweep;
  // x: the values as numbers where all are sizes or counts ("4", "64k"), else their positions.
  std::vector<double> xs;
  bool numeric = true;
  for (const std::string& value : sweep.values) {
    try {
      xs.push_back(static_cast<double>(parse_size(value, sweep.param)));
    } catch (const ConfigError&) {
      numeric = false;
      break;
    }
  }
  if (!numeric) {
    xs.clear();
    for (std::size_t i = 0; i < sweep.values.size(); ++i) xs.push_back(static_cast<double>(i + 1));
  }
  Json j;
  j["step"] = summary.name;
  j["workload"] = summary.workload;
  j["param"] = sweep.param;
  j["values"] = sweep.values;
  j["numeric"] = numeric;
  j["repeat"] = summary.repeat;
  Json phases = Json::array();
  std::vector<std::string> names;
  for (const SweepRow& row : summary.sweep_rows) {
    if (std::find(names.begin(), names.end(), row.phase) == names.end()) {
      names.push_back(row.phase);
    }
  }
  for (const std::string& name : names) {
    std::vector<const SweepRow*> rows;
    for (const SweepRow& row : summary.sweep_rows) {
      if (row.phase == name) rows.push_back(&row);
    }
    const bool by_bytes = std::any_of(
        rows.begin(), rows.end(), [](const SweepRow* r) { return r->throughput_bytes_per_s > 0; });
    const char* rate_label = by_bytes ? "throughput (MiB/s)" : "IOPS (ops/s)";
    struct Point {
      double x;
      Json row;
      const SweepRow* source;
    };
    std::vector<Point> points;
    for (const SweepRow* row : rows) {
      const auto at = std::find(sweep.values.begin(), sweep.values.end(), row->point);
      const std::size_t i = static_cast<std::size_t>(at - sweep.values.begin());
      if (i >= xs.size()) continue;
      const PointSummary* point = i < summary.points.size() ? &summary.points[i] : nullptr;
      Json r = Json::array({xs[i]});
      if (row->samples == 0) {
        r.push_back(nullptr);
        r.push_back(nullptr);
      } else {
        const MetricSamples* rate_samples =
            point != nullptr
                ? find_metric(*point, name, by_bytes ? "throughput_bytes_per_s" : "ops_per_s")
                : nullptr;
        const MetricSamples* p99_samples =
            point != nullptr ? find_metric(*point, name, "latency_p99_ns") : nullptr;
        r.push_back(by_bytes ? band(row->throughput_bytes_per_s, rate_samples, kMiB)
                             : band(row->ops_per_s, rate_samples, 1.0));
        r.push_back(band(row->p99_latency_ns, p99_samples, 1000.0));
      }
      points.push_back(Point{xs[i], std::move(r), row});
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const Point& a, const Point& b) { return a.x < b.x; });
    Json chart_rows = Json::array();
    Json table = Json::array();
    Json peak = nullptr;
    for (const Point& point : points) {
      chart_rows.push_back(point.row);
      const SweepRow& row = *point.source;
      table.push_back({{"point", row.point},
                       {"samples", row.samples},
                       {"workers", row.workers},
                       {"throughput_mib_s", row.throughput_bytes_per_s / kMiB},
                       {"ops_per_s", row.ops_per_s},
                       {"p99_us", row.p99_latency_ns / 1000.0},
                       {"cpu_percent", row.cpu_percent},
                       {"fairness", row.fairness},
                       {"peak", row.peak}});
      if (row.peak) peak = {{"x", point.x}, {"point", row.point}};
    }
    phases.push_back({{"phase", name},
                      {"labels", {sweep.param, rate_label, "p99 latency (us)"}},
                      {"rows", std::move(chart_rows)},
                      {"peak", std::move(peak)},
                      {"table", std::move(table)}});
  }
  j["phases"] = std::move(phases);
  return j;
}

Json stats_json(const MetricSamples& m, double scale) {
  Json values = Json::array();
  for (const double v : m.values) values.push_back(v / scale);
  return {{"metric", m.metric},
          {"values", std::move(values)},
          {"n", m.stats.count},
          {"mean", m.stats.mean / scale},
          {"stddev", m.stats.stddev / scale},
          {"ci95_low", m.stats.ci95_low / scale},
          {"ci95_high", m.stats.ci95_high / scale},
          {"cv_percent", m.stats.cv_percent},
          {"high_variation", m.stats.high_variation}};
}

Json repetitions_json(const StepSummary& summary) {
  Json out = Json::array();
  for (const PointSummary& point : summary.points) {
    for (const PhaseRepetitions& phase : point.repetitions) {
      Json metrics = Json::array();
      const MetricSamples* rate = nullptr;
      double rate_scale = 1;
      const char* rate_label = "";
      for (const MetricSamples& m : phase.metrics) {
        const bool bytes = m.metric.ends_with("bytes_per_s");
        const bool latency = m.metric.ends_with("_ns");
        const double scale = bytes ? kMiB : latency ? 1000.0 : 1.0;
        Json s = stats_json(m, scale);
        s["unit"] = bytes ? "MiB/s" : latency ? "us" : "ops/s";
        metrics.push_back(std::move(s));
        if (bytes && m.stats.mean > 0) {
          rate = &m;
          rate_scale = kMiB;
          rate_label = "throughput (MiB/s)";
        } else if (m.metric == "ops_per_s" && rate == nullptr) {
          rate = &m;
          rate_scale = 1;
          rate_label = "IOPS (ops/s)";
        }
      }
      Json rows = Json::array();
      if (rate != nullptr) {
        for (std::size_t k = 0; k < rate->values.size(); ++k) {
          const double v = rate->values[k] / rate_scale;
          rows.push_back(Json::array(
              {static_cast<double>(k + 1), Json::array({v, v, v}),
               Json::array({rate->stats.ci95_low / rate_scale, rate->stats.mean / rate_scale,
                            rate->stats.ci95_high / rate_scale})}));
        }
      }
      out.push_back(
          {{"step", summary.name},
           {"point", point.point.empty() ? Json(nullptr) : Json(point.point)},
           {"phase", phase.phase},
           {"metrics", std::move(metrics)},
           {"chart",
            {{"labels", {"repetition", rate_label, "mean, 95% CI"}}, {"rows", std::move(rows)}}}});
    }
  }
  return out;
}

// --- several runs -----------------------------------------------------------------------------

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
    phases.push_back({{"step", phase.step},
                      {"workload", phase.workload},
                      {"sweep_point", phase.sweep_point ? Json(*phase.sweep_point) : Json(nullptr)},
                      {"phase", phase.phase},
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

Json run_json(const ReportInput& input) {
  const ResultDocument& doc = input.document;
  const nlohmann::json raw = nlohmann::json::parse(
      input.json_text.empty() ? to_json(doc, -1) : input.json_text, nullptr, false);
  Json j;
  j["label"] = input.label;
  j["schema"] = doc.schema;
  j["iobench_version"] = doc.run.environment.iobench_version;
  j["status"] = to_string(doc.run.status);
  j["environment"] = environment_json(doc.run.environment);
  j["targets"] = targets_json(doc.run.environment);
  j["invocation"] = invocation_json(doc.invocation);
  j["source"] = doc.source ? Json{{"format", doc.source->format},
                                  {"tool_version", doc.source->tool_version},
                                  {"not_mapped", doc.source->not_mapped}}
                           : Json(nullptr);
  j["suite"] = doc.suite ? Json{{"name", doc.suite->name},
                                {"source", doc.suite->source},
                                {"complete", doc.suite->complete}}
                         : Json(nullptr);
  Json steps = Json::array();
  std::vector<const StepResult*> bonnie_steps;
  for (std::size_t i = 0; i < doc.run.steps.size(); ++i) {
    steps.push_back(step_json(doc, i, raw));
    if (doc.run.steps[i].workload == "bonnie") bonnie_steps.push_back(&doc.run.steps[i]);
  }
  j["steps"] = std::move(steps);
  j["bonnie"] = bonnie_tables(bonnie_steps);
  Json sweeps = Json::array();
  Json repetitions = Json::array();
  if (doc.suite) {
    for (const StepSummary& summary : doc.suite->summary) {
      if (summary.sweep && !summary.sweep_rows.empty()) sweeps.push_back(sweep_json(summary));
      if (summary.repeat > 1) {
        for (Json& r : repetitions_json(summary)) repetitions.push_back(std::move(r));
      }
    }
  }
  j["sweeps"] = std::move(sweeps);
  j["repetitions"] = std::move(repetitions);
  return j;
}

}  // namespace

Json latency_cdf(const CompactLatencyHistogram& latency) {
  Json rows = Json::array();
  const std::uint64_t count = latency.count();
  if (count == 0) return rows;
  std::uint64_t below = 0;
  for (const LatencyHistogram::BucketCount& b : latency.buckets()) {
    below += b.count;
    // Every op of the bucket is faster than the bucket's end (its lower bound + width).
    const std::uint64_t end_ns =
        LatencyHistogram::bucket_lower(b.index) + LatencyHistogram::bucket_width(b.index);
    rows.push_back(Json::array({static_cast<double>(end_ns) / 1000.0,
                                static_cast<double>(below) / static_cast<double>(count) * 100.0}));
  }
  return rows;
}

Json time_series_charts(const nlohmann::json& series, const std::string& pointer) {
  const nlohmann::json& points = member(series, "points", pointer);
  if (!points.is_array()) throw ResultFormatError(pointer + "/points", "expected an array");
  // Worker columns: every index any point names.
  std::size_t worker_count = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    const std::string at = fmt::format("{}/points/{}", pointer, k);
    const auto workers = points[k].is_object() ? points[k].find("workers") : points[k].end();
    if (!points[k].is_object()) throw ResultFormatError(at, "expected an object");
    if (workers == points[k].end()) continue;
    if (!workers->is_array()) throw ResultFormatError(at + "/workers", "expected an array");
    for (std::size_t w = 0; w < workers->size(); ++w) {
      const double index = number((*workers)[w], "index", fmt::format("{}/workers/{}", at, w));
      if (index < 0 || index > 1e6 || index != std::floor(index)) {
        throw ResultFormatError(fmt::format("{}/workers/{}/index", at, w),
                                "expected a worker index");
      }
      worker_count = std::max(worker_count, static_cast<std::size_t>(index) + 1);
    }
  }
  const bool per_worker = worker_count > 1 && worker_count <= kMaxWorkerSeries;
  Json labels_tput = Json::array({"time (s)", "all MiB/s"});
  Json labels_iops = Json::array({"time (s)", "all IOPS"});
  if (per_worker) {
    for (std::size_t w = 0; w < worker_count; ++w) {
      labels_tput.push_back(fmt::format("worker {}", w));
      labels_iops.push_back(fmt::format("worker {}", w));
    }
  }
  labels_tput.push_back("p99 latency (us)");
  labels_iops.push_back("p99 latency (us)");

  Json tput_rows = Json::array();
  Json iops_rows = Json::array();
  Json warmup = Json::array();
  for (std::size_t k = 0; k < points.size(); ++k) {
    const nlohmann::json& point = points[k];
    const std::string at = fmt::format("{}/points/{}", pointer, k);
    const double start_s = number(point, "start_ns", at) / 1e9;
    const double duration_s = number(point, "duration_ns", at) / 1e9;
    const double bytes = number(point, "bytes", at);
    const double ops = number(point, "ops", at);
    const nlohmann::json& is_warmup = member(point, "warmup", at);
    if (!is_warmup.is_boolean()) throw ResultFormatError(at + "/warmup", "expected true or false");
    if (is_warmup.get<bool>()) {
      if (!warmup.empty() && warmup.back()[1].get<double>() >= start_s - 1e-12) {
        warmup.back()[1] = start_s + duration_s;
      } else {
        warmup.push_back(Json::array({start_s, start_s + duration_s}));
      }
    }
    Json tput = Json::array({start_s, rate(bytes, duration_s, kMiB)});
    Json iops = Json::array({start_s, rate(ops, duration_s, 1.0)});
    if (per_worker) {
      std::vector<Json> w_tput(worker_count, nullptr);
      std::vector<Json> w_iops(worker_count, nullptr);
      const auto workers = point.find("workers");
      if (workers != point.end()) {
        for (std::size_t w = 0; w < workers->size(); ++w) {
          const nlohmann::json& worker = (*workers)[w];
          const std::string wat = fmt::format("{}/workers/{}", at, w);
          const auto index = static_cast<std::size_t>(number(worker, "index", wat));
          w_tput[index] = rate(number(worker, "bytes", wat), duration_s, kMiB);
          w_iops[index] = rate(number(worker, "ops", wat), duration_s, 1.0);
        }
      }
      for (std::size_t w = 0; w < worker_count; ++w) {
        tput.push_back(w_tput[w]);
        iops.push_back(w_iops[w]);
      }
    }
    const Json p99 = ops > 0 ? latency_us(point, "p99", at) : Json(nullptr);
    tput.push_back(p99);
    iops.push_back(p99);
    tput_rows.push_back(std::move(tput));
    iops_rows.push_back(std::move(iops));
  }
  Json j;
  j["interval_ns"] = number(series, "interval_ns", pointer);
  const auto merged_intervals = series.find("merged_intervals");
  j["merged_intervals"] = merged_intervals != series.end() && merged_intervals->is_number()
                              ? Json(merged_intervals->get<double>())
                              : Json(1);
  j["points"] = points.size();
  j["workers"] = worker_count;
  j["per_worker"] = per_worker;
  j["warmup"] = std::move(warmup);
  j["throughput"] = {{"labels", std::move(labels_tput)}, {"rows", std::move(tput_rows)}};
  j["iops"] = {{"labels", std::move(labels_iops)}, {"rows", std::move(iops_rows)}};
  return j;
}

std::string script_json(const Json& json) {
  const std::string text = json.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

Json report_model(std::span<const ReportInput> inputs) {
  if (inputs.empty()) throw ConfigError("the report needs at least one result document");
  Json j;
  std::string title = "iobench report: ";
  Json runs = Json::array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) title += ", ";
    title += inputs[i].label;
    try {
      runs.push_back(run_json(inputs[i]));
    } catch (const ResultFormatError& e) {
      throw ConfigError(fmt::format("{}: {}", inputs[i].label, e.what()));
    }
  }
  j["title"] = title;
  j["runs"] = std::move(runs);
  j["comparison"] = inputs.size() >= 2 ? comparison_json(inputs) : Json(nullptr);
  return j;
}

}  // namespace iobench::detail::html
