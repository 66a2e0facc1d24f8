// The JSON reporter: one document per run, schema "iobench-result/1".
//
// Keys are stable and carry their unit (_ns, _bytes, _per_s, _percent); objects keep the order
// written here (nlohmann::ordered_json), so documents diff well. Rates of a merged phase divide by
// the phase's wall_ns; a worker's rates divide by that worker's elapsed_ns. Strings that are not
// valid UTF-8 (file names are bytes) have the bad bytes replaced by U+FFFD instead of failing.
// Latency percentiles are nearest-rank values of the LatencyHistogram (<= 0.39 % relative error);
// min, max, mean and stddev are exact. Status strings: ok, failed, interrupted, skipped.
//
//   schema, iobench_version, status,
//   environment: {hostname, kernel, arch, cpu_model, cpu_count, memory_bytes, start_time_utc,
//                 targets: [{path, fs_type, mount_point, mount_options, device, size_bytes,
//                            free_bytes}]},
//   steps: [{name, workload, status, message, seed, params: {key: "text"}, targets: [path],
//            attributes: {key: int | float | "text"}, warnings: ["text"],
//            phases: [{name, status, message, mode ("threads" | "processes"), wall_ns,
//                      stonewall_ns, bytes, ops, throughput_bytes_per_s, ops_per_s,
//                      cpu: {process_user_ns, process_system_ns, workers_user_ns,
//                            workers_system_ns, system_busy_percent},
//                      counters: {name: value}, ops_by_kind: {op: OPS},
//                      workers: [{index, target_index, seed, elapsed_ns, status, message,
//                                 cpu: {user_ns, system_ns}, bytes, ops,
//                                 throughput_bytes_per_s, ops_per_s, counters: {name: value},
//                                 ops_by_kind: {op: OPS}}]}]}]
//   OPS = {ops, bytes, errors, ops_over_2s, ops_over_10s, throughput_bytes_per_s, ops_per_s,
//          latency_ns: {min, max, mean, stddev, p50, p90, p99, p99_9, p99_99}}

#include <iobench/reporter.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <variant>

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSchema = "iobench-result/1";

const char* mode_name(WorkerMode mode) {
  return mode == WorkerMode::kProcesses ? "processes" : "threads";
}

Json latency_json(const LatencyHistogram& latency) {
  Json j;
  j["min"] = latency.min();
  j["max"] = latency.max();
  j["mean"] = latency.mean();
  j["stddev"] = latency.stddev();
  j["p50"] = latency.percentile(50.0);
  j["p90"] = latency.percentile(90.0);
  j["p99"] = latency.percentile(99.0);
  j["p99_9"] = latency.percentile(99.9);
  j["p99_99"] = latency.percentile(99.99);
  return j;
}

Json op_json(const OpStats& op, std::uint64_t elapsed_ns) {
  Json j;
  j["ops"] = op.ops;
  j["bytes"] = op.bytes;
  j["errors"] = op.errors;
  j["ops_over_2s"] = op.ops_over_2s;
  j["ops_over_10s"] = op.ops_over_10s;
  j["throughput_bytes_per_s"] = throughput_bytes_per_s(op.bytes, elapsed_ns);
  j["ops_per_s"] = ops_per_s(op.ops, elapsed_ns);
  j["latency_ns"] = latency_json(op.latency);
  return j;
}

// {op name: stats}; `ops` is indexed like `names` (a shorter vector leaves the rest out).
Json ops_by_kind_json(const std::vector<std::string>& names, const std::vector<OpStats>& ops,
                      std::uint64_t elapsed_ns) {
  Json j = Json::object();
  for (std::size_t i = 0; i < names.size() && i < ops.size(); ++i) {
    j[names[i]] = op_json(ops[i], elapsed_ns);
  }
  return j;
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
  j["seed"] = worker.seed;
  j["elapsed_ns"] = worker.elapsed_ns;
  j["status"] = to_string(worker.status);
  j["message"] = worker.message;
  j["cpu"] = {{"user_ns", worker.cpu.user_ns}, {"system_ns", worker.cpu.system_ns}};
  j["bytes"] = bytes;
  j["ops"] = ops;
  j["throughput_bytes_per_s"] = throughput_bytes_per_s(bytes, worker.elapsed_ns);
  j["ops_per_s"] = ops_per_s(ops, worker.elapsed_ns);
  j["counters"] = counters_json(phase.counter_names, worker.counters);
  j["ops_by_kind"] = ops_by_kind_json(phase.op_names, worker.ops, worker.elapsed_ns);
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
  j["throughput_bytes_per_s"] = throughput_bytes_per_s(phase.total_bytes(), phase.wall_ns);
  j["ops_per_s"] = ops_per_s(phase.total_ops(), phase.wall_ns);
  j["cpu"] = {{"process_user_ns", phase.process_cpu.user_ns},
              {"process_system_ns", phase.process_cpu.system_ns},
              {"workers_user_ns", phase.workers_cpu.user_ns},
              {"workers_system_ns", phase.workers_cpu.system_ns},
              {"system_busy_percent", phase.system_busy_percent}};
  j["counters"] = counters_json(phase.counter_names, phase.counters);
  j["ops_by_kind"] = ops_by_kind_json(phase.op_names, phase.ops, phase.wall_ns);
  Json workers = Json::array();
  for (const WorkerResult& worker : phase.workers) workers.push_back(worker_json(phase, worker));
  j["workers"] = std::move(workers);
  return j;
}

Json step_json(const StepResult& step) {
  Json j;
  j["name"] = step.name;
  j["workload"] = step.workload;
  j["status"] = to_string(step.status);
  j["message"] = step.message;
  j["seed"] = step.seed;
  Json params = Json::object();
  for (const auto& [key, value] : step.params) params[key] = value;
  j["params"] = std::move(params);
  j["targets"] = step.targets;
  Json attributes = Json::object();
  for (const auto& [key, value] : step.attributes) {
    std::visit([&attributes, &key](const auto& v) { attributes[key] = v; }, value);
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

// `indent` spaces per level; a negative indent writes the document on one line.
std::string to_json(const RunResult& run, int indent) {
  Json j;
  j["schema"] = kSchema;
  j["iobench_version"] = run.environment.iobench_version;
  j["status"] = to_string(run.status);
  j["environment"] = environment_json(run.environment);
  Json steps = Json::array();
  for (const StepResult& step : run.steps) steps.push_back(step_json(step));
  j["steps"] = std::move(steps);
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) {
  return std::make_unique<JsonReporter>(out);
}

}  // namespace iobench
