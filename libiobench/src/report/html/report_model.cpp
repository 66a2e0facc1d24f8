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
//          params: [[key, value]], warnings, phases: [phase], pts: null | pts (pts_model.cpp)}
// phase = {index, name, status, message, reported, wall_ns, bytes, ops, throughput_mib_s,
//          ops_per_s, latency_us: {mean, p50, p99, p99_9, max}, cpu_percent,
//          op_kinds: [{name, ops, bytes, errors, throughput_mib_s, ops_per_s (over wall_ns, as
//          the text report's op table), latency_us: {mean, p50, p99, p99_9, max} (null without
//          a timed op), latency_samples}],
//          unavailable: {metric name: why}, workers: {metric, unit, rows, fairness, min, max,
//          spread_percent}, latency_cdf: chart, time_series: null | time series,
//          explain: null | explanation (explain_model.cpp),
//          steady_state: null | steady (pts_model.cpp)}
//          (a figure is null where a classic tool's result lacks it, and `unavailable` says
//          why; such a phase has null wall_ns, bytes and ops and no workers, curve or series)
#include "report/html/report_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/metrics.hpp>
#include <iobench/statistics.hpp>
#include <iobench/units.hpp>
#include <iobench/workloads.hpp>
#include <numeric>
#include <optional>
#include <sstream>

#include "report/html/model_parts.hpp"

namespace iobench::detail::html {
namespace {

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
  // Per op kind, the text report's op table: rates over the phase's wall time, latency of the
  // kind's timed ops (null without one).
  Json kinds = Json::array();
  for (std::size_t k = 0; k < phase.op_names.size() && k < phase.ops.size(); ++k) {
    const OpResult& op = phase.ops[k];
    const CompactLatencyHistogram& latency = op.latency;
    const auto us = [&latency](double ns) {
      return latency.count() == 0 ? Json(nullptr) : Json(ns / 1000.0);
    };
    const auto percentile_us = [&](double p) {
      return us(latency.count() == 0 ? 0.0 : static_cast<double>(latency.percentile(p)));
    };
    kinds.push_back({{"name", phase.op_names[k]},
                     {"ops", op.ops},
                     {"bytes", op.bytes},
                     {"errors", op.errors},
                     {"throughput_mib_s", phase.throughput_bytes_per_s(k) / kMiB},
                     {"ops_per_s", ops_per_s(op.ops, phase.wall_ns)},
                     {"latency_us",
                      {{"mean", us(latency.count() == 0 ? 0.0 : latency.mean())},
                       {"p50", percentile_us(50.0)},
                       {"p99", percentile_us(99.0)},
                       {"p99_9", percentile_us(99.9)},
                       {"max", us(static_cast<double>(latency.max()))}}},
                     {"latency_samples", latency.count()}});
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
  j["explain"] = explain_model(phase, raw);
  j["steady_state"] = steady_state_model(phase);
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
  j["pts"] = pts_model(step);
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

Json rate(double amount, double duration_s, double scale) {
  if (duration_s <= 0) return nullptr;
  return amount / duration_s / scale;
}

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
