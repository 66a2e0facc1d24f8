// The JSON writer and reporter: one document per run (README "Results" lists the keys).
//
// Keys are stable and carry their unit (_ns, _bytes, _per_s, _percent); objects keep the order
// written here (nlohmann::ordered_json), so documents diff well. Rates of a merged phase divide by
// the phase's wall_ns; a worker's rates divide by that worker's elapsed_ns. Strings that are not
// valid UTF-8 (file names are bytes) have the bad bytes replaced by U+FFFD instead of failing.
// Latency percentiles are nearest-rank values of the LatencyHistogram (<= 0.39 % relative error);
// min, max, mean and stddev are exact, and "sum"/"sum_squares" (decimal strings: 128-bit) keep
// the exact moments; merged op kinds of a phase also keep their histogram's non-empty buckets as
// {"lowest value in the bucket (ns)": count}, so json_reader.cpp restores them exactly.
// Seeds are decimal strings: a 64-bit seed is not exact as a double (jq, JavaScript).
//
//   schema, iobench_version, status,
//   invocation (if recorded): {argv, working_directory, suite_source, suite_text, targets,
//               params, engine, time_limit_ns, warmup_ns, ops_limit, drop_caches, seed,
//               repeated_from},
//   environment: {hostname, kernel, arch, cpu_model, cpu_count, memory_bytes, start_time_utc,
//                 clock (absent in older files: read as empty),
//                 targets: [{path, fs_type, mount_point, mount_options, device, size_bytes,
//                            free_bytes}]},
//   steps: [{name, workload, status, message, seed, engine, time_limit_ns, warmup_ns, ops_limit,
//            drop_caches, params: {key: "text"}, params_given: [key], targets: [path],
//            attributes: {key: int | float | "text"}, warnings: ["text"],
//            phases: [{name, status, message, mode ("threads" | "processes"), wall_ns,
//                      stonewall_ns, bytes, ops, throughput_bytes_per_s, ops_per_s,
//                      cpu: {process_user_ns, process_system_ns, workers_user_ns,
//                            workers_system_ns, system_busy_percent},
//                      counters: {name: value}, ops_by_kind: {op: OPS + buckets},
//                      workers: [{index, target_index, seed, elapsed_ns, status, message,
//                                 cpu: {user_ns, system_ns}, bytes, ops,
//                                 throughput_bytes_per_s, ops_per_s, counters: {name: value},
//                                 ops_by_kind: {op: OPS}}],
//                      explain (schema 3, see report/explain_json.hpp): {interval_ns, storage,
//                               devices, vmstat_delta, meminfo, pressure_stall_us,
//                               application, derived, findings: [{name, text}]}}]
//            (+ suite_step, sweep_point, repetition in a suite document)}],
//   suite (a suite document): {name, source, complete, planned_runs, completed_runs, steps}
//   OPS = {ops, bytes, errors, ops_over_2s, ops_over_10s, throughput_bytes_per_s, ops_per_s,
//          latency_ns: {[samples,] min, max, mean, stddev, p50, p90, p99, p99_9, p99_99, sum,
//                       sum_squares (, buckets: {"lower_ns": count})}}
//          (samples: how many ops the latency figures come from, written only when not all ops
//          were timed: latency sampling, disk's latency_sample; absent = ops)
//   and, where recorded: [slat_ns: LAT, clat_ns: LAT] (asynchronous engines),
//          [service_ns: LAT] (open-loop phases, whose latency_ns runs from the intended issue)}
//   LAT = a latency object like latency_ns (with buckets where latency_ns has them)
//   phases and workers of open-loop phases also carry
//   pacing: {late_ops, late_threshold_ns, max_lag_ns, backlog_ops}
//   phases asked to stop once steady (steady_state=) carry
//   steady_state: {criterion ("iops:10%", "pts:bw"), window_ns, ramp_ns, interval_ns,
//                  window_samples, steady, samples, window: [sample], series: [sample],
//                  series_dropped, figures: {window_mean,
//                  slope, max_deviation, criterion_value, limit, data_excursion_percent,
//                  fit_excursion_percent} (absent while the window never filled)}
//          (series: every sample taken, oldest first, but the oldest series_dropped of them,
//          at most 10000; the judged window is its tail. Absent in files written before it.)

#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <variant>

#include "explain_bpf/report.hpp"
#include "report/explain_json.hpp"
#include "report/json_shape.hpp"

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;
using detail::json::decimal_text;

const char* mode_name(WorkerMode mode) {
  return mode == WorkerMode::kProcesses ? "processes" : "threads";
}

// `ops`: the op kind's count; the histogram holds fewer where latency was sampled.
Json latency_json(const CompactLatencyHistogram& latency, std::uint64_t ops, bool with_buckets) {
  Json j;
  if (latency.count() != ops) j["samples"] = latency.count();
  j["min"] = latency.min();
  j["max"] = latency.max();
  j["mean"] = latency.mean();
  j["stddev"] = latency.stddev();
  j["p50"] = latency.percentile(50.0);
  j["p90"] = latency.percentile(90.0);
  j["p99"] = latency.percentile(99.0);
  j["p99_9"] = latency.percentile(99.9);
  j["p99_99"] = latency.percentile(99.99);
  const LatencyHistogram::Moments moments = latency.moments();
  j["sum"] = decimal_text(moments.sum);
  j["sum_squares"] = decimal_text(moments.sum_squares);
  if (with_buckets) {
    Json buckets = Json::object();
    for (const LatencyHistogram::BucketCount& b : latency.buckets()) {
      buckets[std::to_string(LatencyHistogram::bucket_lower(b.index))] = b.count;
    }
    j["buckets"] = std::move(buckets);
  }
  return j;
}

Json op_json(const OpResult& op, std::uint64_t elapsed_ns, bool with_buckets) {
  Json j;
  j["ops"] = op.ops;
  j["bytes"] = op.bytes;
  j["errors"] = op.errors;
  j["ops_over_2s"] = op.ops_over_2s;
  j["ops_over_10s"] = op.ops_over_10s;
  j["throughput_bytes_per_s"] = throughput_bytes_per_s(op.bytes, elapsed_ns);
  j["ops_per_s"] = ops_per_s(op.ops, elapsed_ns);
  j["latency_ns"] = latency_json(op.latency, op.ops, with_buckets);
  return j;
}

// {op name: stats}; `ops` is indexed like `names` (a shorter vector leaves the rest out), and so
// is `parts` where the phase recorded latency parts (slat_ns and clat_ns for asynchronous
// engines, service_ns for open-loop phases, whose latency_ns is then the response time).
Json ops_by_kind_json(const std::vector<std::string>& names, const std::vector<OpResult>& ops,
                      const std::vector<OpLatencyPartsResult>& parts, LatencyPartsKind kind,
                      std::uint64_t elapsed_ns, bool with_buckets) {
  Json j = Json::object();
  for (std::size_t i = 0; i < names.size() && i < ops.size(); ++i) {
    Json op = op_json(ops[i], elapsed_ns, with_buckets);
    if (i < parts.size()) {
      if (kind.submission_completion) {
        op["slat_ns"] = latency_json(parts[i].submission, ops[i].ops, with_buckets);
        op["clat_ns"] = latency_json(parts[i].completion, ops[i].ops, with_buckets);
      }
      if (kind.service) {
        op["service_ns"] = latency_json(parts[i].service, ops[i].ops, with_buckets);
      }
    }
    j[names[i]] = std::move(op);
  }
  return j;
}

// Open-loop phases: how the schedule was kept; absent otherwise.
void add_pacing(Json& j, const PacingStats& pacing) {
  if (!pacing.paced) return;
  j["pacing"] = {{"late_ops", pacing.late_ops},
                 {"late_threshold_ns", PacingStats::kLateThresholdNs},
                 {"max_lag_ns", pacing.max_lag_ns},
                 {"backlog_ops", pacing.backlog_ops}};
}

Json counters_json(const std::vector<std::string>& names,
                   const std::vector<std::uint64_t>& values) {
  Json j = Json::object();
  for (std::size_t i = 0; i < names.size(); ++i) {
    j[names[i]] = i < values.size() ? values[i] : 0;
  }
  return j;
}

Json worker_json(const PhaseResult& phase, const WorkerResult& worker) {
  const std::uint64_t bytes = worker.total_bytes();
  const std::uint64_t ops = worker.total_ops();
  Json j;
  j["index"] = worker.index;
  j["target_index"] = worker.target_index;
  j["seed"] = decimal_text(worker.seed);
  j["elapsed_ns"] = worker.elapsed_ns;
  j["status"] = to_string(worker.status);
  j["message"] = worker.message;
  j["cpu"] = {{"user_ns", worker.cpu.user_ns}, {"system_ns", worker.cpu.system_ns}};
  j["bytes"] = bytes;
  j["ops"] = ops;
  j["throughput_bytes_per_s"] = throughput_bytes_per_s(bytes, worker.elapsed_ns);
  j["ops_per_s"] = ops_per_s(ops, worker.elapsed_ns);
  j["counters"] = counters_json(phase.counter_names, worker.counters);
  j["ops_by_kind"] = ops_by_kind_json(phase.op_names, worker.ops, worker.latency_parts,
                                      phase.latency_parts_kind, worker.elapsed_ns, false);
  add_pacing(j, worker.pacing);
  return j;
}

// A classic tool's figures: each one it gave, as a number in the key's unit, or "too_fast" for
// bonnie++'s "+++++"; a figure it did not give has no key.
Json reported_json(const ReportedFigures& figures) {
  Json j = Json::object();
  for (const auto& [key, figure] : detail::json::reported_fields(figures)) {
    if (!*figure) continue;
    j[std::string(key)] = (*figure)->too_fast ? Json("too_fast") : Json((*figure)->value);
  }
  return j;
}

Json series_latency_json(const SeriesLatency& latency) {
  return Json{{"mean", latency.mean},
              {"max", latency.max},
              {"p50", latency.p50},
              {"p99", latency.p99},
              {"p99_9", latency.p99_9}};
}

// A point's devices (SeriesDevicePoint): the counts as read, then iostat's figures from them.
Json series_devices_json(const std::vector<SeriesDevicePoint>& devices) {
  Json out = Json::array();
  for (const SeriesDevicePoint& d : devices) {
    out.push_back(Json{{"name", d.name},
                       {"sampled_ns", d.sampled_ns},
                       {"reads", d.reads},
                       {"writes", d.writes},
                       {"read_bytes", d.read_bytes},
                       {"write_bytes", d.write_bytes},
                       {"read_time_ms", d.read_time_ms},
                       {"write_time_ms", d.write_time_ms},
                       {"io_time_ms", d.io_time_ms},
                       {"weighted_io_time_ms", d.weighted_io_time_ms},
                       {"util_percent", d.util_percent()},
                       {"avg_queue_size", d.avg_queue_size()},
                       {"r_await_ms", d.r_await_ms()},
                       {"w_await_ms", d.w_await_ms()}});
  }
  return out;
}

Json time_series_json(const TimeSeries& series) {
  Json points = Json::array();
  for (const SeriesPoint& point : series.points) {
    Json workers = Json::array();
    for (const SeriesWorkerPoint& w : point.workers) {
      workers.push_back(Json{{"index", w.index},
                             {"bytes", w.bytes},
                             {"ops", w.ops},
                             {"errors", w.errors},
                             {"latency_ns", series_latency_json(w.latency_ns)}});
    }
    points.push_back(Json{{"start_ns", point.start_ns},
                          {"duration_ns", point.duration_ns},
                          {"warmup", point.warmup},
                          {"bytes", point.bytes},
                          {"ops", point.ops},
                          {"errors", point.errors},
                          {"throughput_bytes_per_s", point.throughput_bytes_per_s()},
                          {"ops_per_s", point.ops_per_s()},
                          {"latency_ns", series_latency_json(point.latency_ns)},
                          {"workers", std::move(workers)}});
    if (!point.devices.empty()) points.back()["devices"] = series_devices_json(point.devices);
    if (!point.op_points.empty()) {
      // PhaseSpec::per_op_series: one entry per op kind, in op_names order.
      Json ops = Json::array();
      for (const SeriesOpPoint& op : point.op_points) {
        ops.push_back(Json{{"ops", op.ops},
                           {"bytes", op.bytes},
                           {"errors", op.errors},
                           {"latency_samples", op.latency_samples},
                           {"latency_sum_ns", op.latency_sum_ns}});
      }
      points.back()["op_points"] = std::move(ops);
    }
  }
  return Json{{"requested_interval_ns", series.requested_interval_ns},
              {"interval_ns", series.interval_ns},
              {"merged_intervals", series.merged_intervals},
              {"points", std::move(points)}};
}

Json steady_state_json(const SteadyStateResult& steady) {
  Json j;
  j["criterion"] = to_string(steady.config.criterion);
  j["window_ns"] = steady.config.window.count();
  j["ramp_ns"] = steady.config.ramp.count();
  j["interval_ns"] = steady.config.interval.count();
  j["window_samples"] = steady.config.window_samples();
  j["steady"] = steady.steady;
  j["samples"] = steady.samples;
  j["window"] = steady.window;
  j["series"] = steady.series;
  j["series_dropped"] = steady.series_dropped;
  if (steady.figures) {
    const SteadyStateFigures& f = *steady.figures;
    j["figures"] = {{"window_mean", f.window_mean},
                    {"slope", f.slope},
                    {"max_deviation", f.max_deviation},
                    {"criterion_value", f.criterion_value},
                    {"limit", f.limit},
                    {"data_excursion_percent", f.data_excursion_percent},
                    {"fit_excursion_percent", f.fit_excursion_percent}};
  }
  return j;
}

Json phase_json(const PhaseResult& phase) {
  Json j;
  j["name"] = phase.name;
  j["status"] = to_string(phase.status);
  j["message"] = phase.message;
  j["mode"] = mode_name(phase.mode);
  j["wall_ns"] = phase.wall_ns;
  j["stonewall_ns"] = phase.stonewall_ns;
  j["bytes"] = phase.total_bytes();
  j["ops"] = phase.total_ops();
  j["throughput_bytes_per_s"] = phase.throughput_bytes_per_s();
  j["ops_per_s"] = ops_per_s(phase.total_ops(), phase.wall_ns);
  j["cpu"] = {{"process_user_ns", phase.process_cpu.user_ns},
              {"process_system_ns", phase.process_cpu.system_ns},
              {"workers_user_ns", phase.workers_cpu.user_ns},
              {"workers_system_ns", phase.workers_cpu.system_ns},
              {"system_busy_percent", phase.system_busy_percent}};
  j["counters"] = counters_json(phase.counter_names, phase.counters);
  j["ops_by_kind"] = ops_by_kind_json(phase.op_names, phase.ops, phase.latency_parts,
                                      phase.latency_parts_kind, phase.wall_ns, true);
  add_pacing(j, phase.pacing);
  Json workers = Json::array();
  for (const WorkerResult& worker : phase.workers) workers.push_back(worker_json(phase, worker));
  j["workers"] = std::move(workers);
  if (phase.reported) j["reported"] = reported_json(*phase.reported);
  j["time_series"] = time_series_json(phase.time_series);
  if (phase.explain_bpf) j["explain_bpf"] = detail::explain_bpf_json(*phase.explain_bpf);
  if (phase.explanation) j["explain"] = detail::explain_to_json(*phase.explanation);
  if (phase.steady_state) j["steady_state"] = steady_state_json(*phase.steady_state);
  return j;
}

Json step_json(const StepResult& step) {
  Json j;
  j["name"] = step.name;
  j["workload"] = step.workload;
  j["status"] = to_string(step.status);
  j["message"] = step.message;
  j["seed"] = decimal_text(step.seed);
  j["engine"] = step.engine;
  j["time_limit_ns"] = step.time_limit_ns;
  j["warmup_ns"] = step.warmup_ns;
  j["ops_limit"] = step.ops_limit;
  j["drop_caches"] = step.drop_caches;
  Json params = Json::object();
  for (const auto& [key, value] : step.params) params[key] = value;
  j["params"] = std::move(params);
  j["params_given"] = step.given_params;
  j["targets"] = step.targets;
  Json attributes = Json::object();
  for (const auto& [key, value] : step.attributes) {
    // An init-capture: clang before 16 cannot capture a structured binding (the fuzz build).
    std::visit([&attributes, &name = key](const auto& v) { attributes[name] = v; }, value);
  }
  j["attributes"] = std::move(attributes);
  j["warnings"] = step.warnings;
  Json phases = Json::array();
  for (const PhaseResult& phase : step.phases) phases.push_back(phase_json(phase));
  j["phases"] = std::move(phases);
  return j;
}

Json environment_json(const Environment& env) {
  Json j;
  j["hostname"] = env.hostname;
  j["kernel"] = env.kernel;
  j["arch"] = env.arch;
  j["cpu_model"] = env.cpu_model;
  j["cpu_count"] = env.cpu_count;
  j["memory_bytes"] = env.memory_bytes;
  j["start_time_utc"] = env.start_time_utc;
  j["clock"] = env.clock;
  Json targets = Json::array();
  for (const TargetInfo& target : env.targets) {
    Json t;
    t["path"] = target.path;
    t["fs_type"] = target.fs_type;
    t["mount_point"] = target.mount_point;
    t["mount_options"] = target.mount_options;
    t["device"] = target.device;
    t["size_bytes"] = target.size_bytes;
    t["free_bytes"] = target.free_bytes;
    targets.push_back(std::move(t));
  }
  j["targets"] = std::move(targets);
  return j;
}

Json invocation_json(const Invocation& inv) {
  Json j;
  j["argv"] = inv.argv;
  j["working_directory"] = inv.working_directory;
  j["suite_source"] = inv.suite_source;
  j["suite_text"] = inv.suite_text;
  j["targets"] = inv.targets;
  Json params = Json::object();
  for (const auto& [key, value] : inv.params) params[key] = value;
  j["params"] = std::move(params);
  j["engine"] = inv.engine;
  j["time_limit_ns"] = inv.time_limit_ns;
  j["warmup_ns"] = inv.warmup_ns;
  j["ops_limit"] = inv.ops_limit;
  j["drop_caches"] = inv.drop_caches;
  j["seed"] = decimal_text(inv.seed);
  j["repeated_from"] = inv.repeated_from;
  return j;
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

Json suite_json(const SuiteRecord& suite, std::size_t completed_runs) {
  Json j;
  j["name"] = suite.name;
  j["source"] = suite.source;
  j["complete"] = suite.complete;
  j["planned_runs"] = suite.planned_runs;
  j["completed_runs"] = completed_runs;
  Json steps = Json::array();
  for (const StepSummary& step : suite.summary) steps.push_back(step_summary_json(step));
  j["steps"] = std::move(steps);
  return j;
}

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  // Steps are written with the whole run at on_run_end: one document, nothing else on the stream.
  void on_step_end(const StepResult& /*step*/) override {}
  void on_run_end(const RunResult& run) override {
    out_ << to_json(run, 2) << '\n';
    out_.flush();
  }

 private:
  std::ostream& out_;
};

}  // namespace

namespace detail::json {

std::string decimal_text(LatencyHistogram::Uint128 value) {
  if (value == 0) return "0";
  std::string digits;
  while (value != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  }
  return std::string(digits.rbegin(), digits.rend());
}

std::optional<LatencyHistogram::Uint128> parse_decimal(std::string_view text) {
  if (text.empty() || text.size() > 39 || (text.size() > 1 && text.front() == '0')) {
    return std::nullopt;
  }
  constexpr LatencyHistogram::Uint128 kMax = ~LatencyHistogram::Uint128{0};
  LatencyHistogram::Uint128 value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<unsigned>(c - '0');
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// `indent` spaces per level; a negative indent writes the document on one line.
std::string write_document(const RunResult& run, const Invocation* invocation,
                           std::span<const StepPlacement> placements, const SuiteRecord* suite,
                           const ResultSource* source, int indent) {
  Json j;
  j["schema"] = kResultSchema;
  j["iobench_version"] = run.environment.iobench_version;
  j["status"] = to_string(run.status);
  if (invocation != nullptr) j["invocation"] = invocation_json(*invocation);
  j["environment"] = environment_json(run.environment);
  Json steps = Json::array();
  for (std::size_t i = 0; i < run.steps.size(); ++i) {
    Json step = step_json(run.steps[i]);
    if (i < placements.size()) {
      const StepPlacement& placement = placements[i];
      step["suite_step"] = placement.suite_step;
      step["sweep_point"] = placement.sweep_point ? Json(*placement.sweep_point) : Json(nullptr);
      step["repetition"] = placement.repetition;
    }
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  if (suite != nullptr) j["suite"] = suite_json(*suite, run.steps.size());
  if (source != nullptr) {
    j["source"] = {{"format", source->format},
                   {"tool_version", source->tool_version},
                   {"not_mapped", source->not_mapped}};
  }
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace detail::json

std::string to_json(const ResultDocument& document, int indent) {
  return detail::json::write_document(
      document.run, document.invocation ? &*document.invocation : nullptr, document.placements,
      document.suite ? &*document.suite : nullptr, document.source ? &*document.source : nullptr,
      indent);
}

std::string to_json(const RunResult& run, int indent) {
  return detail::json::write_document(run, nullptr, {}, nullptr, nullptr, indent);
}

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) {
  return std::make_unique<JsonReporter>(out);
}

}  // namespace iobench
