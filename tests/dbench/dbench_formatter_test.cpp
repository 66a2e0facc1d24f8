#include "plugins/dbench/dbench_formatter.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/replay_counters.hpp"

namespace dbench = iobench::plugins::dbench;

namespace {

iobench::PhaseResult execute_phase(bool paced) {
  iobench::PhaseResult phase;
  phase.name = "execute";
  for (const auto name : dbench::table_op_names()) phase.op_names.emplace_back(name);
  for (const auto name : dbench::kCounterNames) phase.counter_names.emplace_back(name);
  phase.ops.resize(phase.op_names.size());
  if (paced) {
    phase.latency_parts_kind.service = true;
    phase.latency_parts.resize(phase.op_names.size());
  }
  phase.counters.assign(phase.counter_names.size(), 0);
  phase.wall_ns = 10'000'000'000;
  return phase;
}

std::string format(const iobench::StepResult& step) {
  std::ostringstream out;
  dbench::format_dbench_text(step, out);
  return out.str();
}

}  // namespace

TEST_CASE("the dbench table and Throughput line are printed as dbench prints them", "[dbench]") {
  iobench::StepResult step;
  step.workload = "dbench";
  step.attributes = {{"loadfile", std::string("client.txt")},
                     {"time_limit_s", 10.0},
                     {"warmup_s", 2.0},
                     {"clients", std::int64_t{2}},
                     {"procs", std::int64_t{2}},
                     {"clients_per_process", std::int64_t{1}},
                     {"tick_seconds", std::int64_t{9}},
                     {"sync_open", std::int64_t{1}},
                     {"sync_dirs", std::int64_t{0}},
                     {"per_client_results", std::int64_t{1}}};
  auto phase = execute_phase(false);
  const auto nt = static_cast<std::size_t>(dbench::OpCode::kNtCreateX);
  const auto rx = static_cast<std::size_t>(dbench::OpCode::kReadX);
  iobench::WorkerResult w0;
  w0.index = 0;
  w0.ops.resize(17);
  w0.counters.assign(phase.counter_names.size(), 0);
  w0.ops[nt].record(0, 10'000);
  w0.ops[nt].record(0, 14'000);
  w0.counters[dbench::kCounterLines] = 2;
  iobench::WorkerResult w1 = w0;
  w1.index = 1;
  w1.ops.assign(17, iobench::OpResult{});
  w1.ops[rx].record(11'702'000'000, 3'000);
  w1.counters[dbench::kCounterLines] = 1;
  for (const auto* w : {&w0, &w1}) {
    for (std::size_t i = 0; i < 17; ++i) phase.ops[i].merge(w->ops[i]);
  }
  phase.counters[dbench::kCounterTickBytes] = 10'502'730'000;
  phase.workers = {w0, w1};
  step.phases = {phase};
  step.warnings = {
      "client.txt: 1 line with unknown operations skipped: FOO (1 line, first at "
      "line 3)"};

  CHECK(format(step) ==
        "Running for 10 seconds with load 'client.txt' and minimum warmup 2 secs\n"
        "WARNING: client.txt: 1 line with unknown operations skipped: FOO (1 line, first at "
        "line 3)\n"
        "\n"
        " Operation      Count    AvgLat    MaxLat\n"
        " ----------------------------------------\n"
        " NTCreateX          2     0.012     0.014\n"
        " ReadX              1     0.003     0.003\n"
        "\n"
        "Throughput 1166.97 MB/sec (sync open)  2 clients  2 procs  max_latency=0.014 ms  "
        "(whole execute period: 1170.20 MB/sec over 10.000 s)\n"
        "(MB = 10^6 bytes, as dbench prints them; latency in ms)\n"
        "\n"
        "Latency percentiles per operation\n"
        " Operation      Count       p50       p90       p99     p99.9       Max   (ms)\n"
        " NTCreateX          2     0.010     0.014     0.014     0.014     0.014\n"
        " ReadX              1     0.003     0.003     0.003     0.003     0.003\n"
        "\n"
        "Per client results:\n"
        "Client 0 did 2 lines and 0 bytes\n"
        " Operation      Count    AvgLat    MaxLat\n"
        " ----------------------------------------\n"
        " NTCreateX          2     0.012     0.014\n"
        "\n"
        "Client 1 did 1 lines and 11702000000 bytes\n"
        " Operation      Count    AvgLat    MaxLat\n"
        " ----------------------------------------\n"
        " ReadX              1     0.003     0.003\n"
        "\n");
}

TEST_CASE("paced runs mismatches and grouped clients are shown", "[dbench]") {
  iobench::StepResult step;
  step.workload = "dbench";
  step.attributes = {{"loadfile", std::string("a.txt,b.txt")},
                     {"time_limit_s", 1.0},
                     {"warmup_s", 0.0},
                     {"clients", std::int64_t{4}},
                     {"procs", std::int64_t{2}},
                     {"clients_per_process", std::int64_t{2}},
                     {"tick_seconds", std::int64_t{0}},
                     {"sync_open", std::int64_t{0}},
                     {"sync_dirs", std::int64_t{1}},
                     {"per_client_results", std::int64_t{1}}};
  auto phase = execute_phase(true);
  const auto cl = static_cast<std::size_t>(dbench::OpCode::kClose);
  phase.ops[cl].record(0, 5'000'000);  // 5 ms late against the timestamp
  phase.latency_parts[cl].service.record(2'000);
  phase.counters[dbench::kCounterMismatchUnlink] = 2;
  phase.counters[dbench::kCounterMissingHandle] = 1;
  phase.counters[dbench::kCounterShortRead] = 3;
  phase.counters[dbench::kCounterTickBytes] = 123;  // ignored: no whole-second tick
  iobench::WorkerResult w;
  w.index = 1;
  w.ops = phase.ops;
  w.latency_parts = phase.latency_parts;
  w.counters = phase.counters;
  w.counters[dbench::kCounterLines] = 1;
  phase.workers = {w};
  phase.wall_ns = 1'000'000'000;
  step.phases = {phase};
  const std::string text = format(step);
  // dbench's table and the first percentile table show the service time, as dbench times it.
  CHECK(text.find("\n"
                  " Operation      Count    AvgLat    MaxLat\n"
                  " ----------------------------------------\n"
                  " Close              1     0.002     0.002\n"
                  "\nThroughput ") != std::string::npos);
  CHECK(text.find("\nLatency percentiles per operation\n"
                  " Operation      Count       p50       p90       p99     p99.9       Max   (ms)\n"
                  " Close              1     0.002     0.002     0.002     0.002     0.002\n") !=
        std::string::npos);
  CHECK(text.find("\nThroughput 0 MB/sec (sync dirs)  4 clients  2 procs  max_latency=5.000 ms  "
                  "(whole execute period: 0.00 MB/sec over 1.000 s)\n") != std::string::npos);
  CHECK(text.find("\nLatency from the intended start time (pacing by timestamps or target_rate)\n"
                  " Operation      Count       p50       p90       p99     p99.9       Max   (ms)\n"
                  " Close              1     5.000     5.000     5.000     5.000     5.000\n") !=
        std::string::npos);
  CHECK(text.find("\nStatus mismatches: Unlink 2, missing handle 1\n") != std::string::npos);
  CHECK(text.find("ReadX returned another size than the loadfile's 3 times\n") !=
        std::string::npos);
  CHECK(text.find("Clients 2-3 (process 1) did 1 lines and 0 bytes\n"
                  " Operation      Count    AvgLat    MaxLat\n"
                  " ----------------------------------------\n"
                  " Close              1     0.002     0.002\n") != std::string::npos);
}

TEST_CASE("a step without an execute phase says so", "[dbench]") {
  iobench::StepResult step;
  step.workload = "dbench";
  step.attributes = {{"loadfile", std::string("x")}, {"time_limit_s", 5.0}, {"warmup_s", 1.0}};
  CHECK(format(step) ==
        "Running for 5 seconds with load 'x' and minimum warmup 1 secs\n"
        "(no execute period was measured)\n");
}

TEST_CASE("a run that ended early divides by the whole seconds it ran", "[dbench]") {
  iobench::StepResult step;
  step.workload = "dbench";
  step.attributes = {{"loadfile", std::string("x")},
                     {"time_limit_s", 10.0},
                     {"warmup_s", 0.0},
                     {"clients", std::int64_t{1}},
                     {"procs", std::int64_t{1}},
                     {"tick_seconds", std::int64_t{9}},
                     {"per_client_results", std::int64_t{0}}};
  auto phase = execute_phase(false);
  phase.wall_ns = 3'500'000'000;  // run_once finished after 3.5 s
  phase.ops[static_cast<std::size_t>(dbench::OpCode::kReadX)].record(3'500'000, 1'000);
  phase.counters[dbench::kCounterTickBytes] = 3'500'000;
  step.phases = {phase};
  CHECK(format(step).find("\nThroughput 1.16667 MB/sec  1 clients  1 procs  max_latency=0.001 ms  "
                          "(whole execute period: 1.00 MB/sec over 3.500 s)\n") !=
        std::string::npos);
}
