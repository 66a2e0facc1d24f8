#include "tests/compare/compare_fixtures.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace iobench::test {

PhaseResult compare_phase(const std::string& name, std::uint64_t wall_ns, std::uint64_t ops,
                          std::uint64_t op_bytes, std::uint64_t latency_ns) {
  PhaseResult phase;
  phase.name = name;
  phase.op_names = {name == "read" ? "read" : "write"};
  phase.wall_ns = wall_ns;
  phase.stonewall_ns = wall_ns;
  OpResult op;
  for (std::uint64_t i = 0; i + 1 < ops; ++i) op.record(op_bytes, latency_ns);
  op.record(op_bytes, 10 * latency_ns);
  WorkerResult worker;
  worker.seed = 11;
  worker.elapsed_ns = wall_ns;
  worker.cpu = {.user_ns = wall_ns / 10, .system_ns = wall_ns / 5};
  worker.ops = {op};
  phase.ops = {op};
  phase.workers = {worker};
  phase.process_cpu = worker.cpu;
  phase.workers_cpu = worker.cpu;
  phase.system_busy_percent = 12.5;
  return phase;
}

StepResult compare_step(const std::string& name, std::vector<PhaseResult> phases) {
  StepResult step;
  step.name = name;
  step.workload = "disk";
  step.engine = "psync";
  step.params = {{"bs", "4096"}, {"operation", "write"}};
  step.given_params = {"bs", "operation"};
  step.targets = {"/mnt/a"};
  step.seed = 1;
  step.phases = std::move(phases);
  return step;
}

Environment compare_environment() {
  Environment env;
  env.hostname = "bench01";
  env.kernel = "Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)";
  env.arch = "x86_64";
  env.cpu_model = "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz";
  env.cpu_count = 16;
  env.memory_bytes = 64ULL << 30;
  env.iobench_version = "0.1.0";
  env.start_time_utc = "2026-01-15T09:30:00Z";
  env.targets.push_back(TargetInfo{.path = "/mnt/a",
                                   .fs_type = "ext4",
                                   .mount_point = "/mnt/a",
                                   .mount_options = "rw,relatime",
                                   .device = "/dev/sdb1",
                                   .size_bytes = 1'000'204'886'016,
                                   .free_bytes = 900'184'397'414});
  return env;
}

ResultDocument single_run_document(Environment environment, std::vector<StepResult> steps) {
  ResultDocument document;
  document.schema = std::string(kResultSchema);
  document.run.environment = std::move(environment);
  document.run.steps = std::move(steps);
  return document;
}

ResultDocument repeated_document(Environment environment,
                                 const std::vector<std::vector<PhaseResult>>& repetitions) {
  ResultDocument document = single_run_document(std::move(environment), {});
  for (std::size_t i = 0; i < repetitions.size(); ++i) {
    document.run.steps.push_back(compare_step("seq", repetitions[i]));
    document.placements.push_back(
        StepPlacement{.suite_step = "seq", .sweep_point = std::nullopt, .repetition = i + 1});
  }
  return document;
}

PhaseResult compare_write_phase(std::uint64_t wall_ns) {
  return compare_phase("write", wall_ns, 1000, 1 << 20, 100'000);
}

PhaseResult compare_read_phase(std::uint64_t wall_ns, std::uint64_t latency_ns) {
  return compare_phase("read", wall_ns, 1000, 1 << 20, latency_ns);
}

std::string comparison_text(const Comparison& comparison) {
  std::ostringstream out;
  write_comparison_text(comparison, out);
  return out.str();
}

ResultDocument through_json(const ResultDocument& document) {
  return parse_result_json(to_json(document));
}

std::string write_document(const TempDir& dir, const std::string& name,
                           const ResultDocument& document) {
  const std::string path = (dir.path() / name).string();
  std::ofstream(path) << to_json(document) << '\n';
  return path;
}

PhaseResult with_counters(PhaseResult phase, const std::vector<std::string>& names,
                          const std::vector<std::uint64_t>& values) {
  phase.counter_names = names;
  phase.counters = values;
  for (WorkerResult& worker : phase.workers) worker.counters = values;
  return phase;
}

ResultDocument counter_document(std::uint64_t mismatches, std::uint64_t matched) {
  return single_run_document(
      compare_environment(),
      {compare_step("md", {with_counters(compare_phase("read", kSecond, 100, 4096, 1000),
                                         {"items_done", "mismatches"}, {100, mismatches}),
                           with_counters(compare_phase("find", kSecond, 100, 0, 1000),
                                         {"entries_scanned", "matched"}, {500, matched})})});
}

ResultDocument failed_read_document() {
  ResultDocument document = counter_document(3, 40);
  StepResult& step = document.run.steps.at(0);
  step.status = Status::kFailed;
  step.message = "phase read failed";
  PhaseResult& read = step.phases.at(0);
  read.status = Status::kFailed;
  read.message = "data check (verify_read): 3 of the 100 files read did not hold the data pattern";
  return document;
}

const nlohmann::json& counter_entry(const nlohmann::json& phase, const std::string& name) {
  for (const nlohmann::json& counter : phase.at("counters")) {
    if (counter.at("name") == name) return counter;
  }
  FAIL("no counter " << name);
  return phase;
}

std::size_t csv_column(const CsvRecord& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  REQUIRE(it != header.end());
  return static_cast<std::size_t>(it - header.begin());
}

explain::PhaseExplanation loop_read_explanation(std::uint64_t sectors, std::uint64_t io_ms) {
  explain::StorageChain chain;
  chain.path = "/mnt/a";
  chain.mount_point = "/mnt/a";
  chain.fs_type = "ext4";
  chain.devices = {{.name = "loop0", .device = "7:0", .role = "filesystem", .backing_file = "/img"},
                   {.name = "vda", .device = "254:0", .role = "loop backing"}};
  explain::SystemSnapshot start;
  start.disks.push_back({.major = 7, .minor = 0, .name = "loop0"});
  explain::SystemSnapshot end;
  end.time_ns = 2'000'000'000;
  end.disks.push_back({.major = 7,
                       .minor = 0,
                       .name = "loop0",
                       .reads_completed = sectors / 8,
                       .sectors_read = sectors,
                       .read_time_ms = io_ms,
                       .io_time_ms = io_ms,
                       .weighted_io_time_ms = io_ms});
  const explain::ApplicationFigures app{.read_bytes = kLoopReadAppBytes, .workers = 1};
  return explain::explain_phase({chain}, start, end, app);
}

}  // namespace iobench::test
