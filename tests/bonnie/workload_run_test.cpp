// Small real runs of the bonnie workload through the runner, in a temp dir under the build tree.

#include <catch2/catch.hpp>
#include <chrono>
#include <iobench/error.hpp>
#include <iobench/reporter.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/bonnie/csv_formatter.hpp"
#include "plugins/bonnie/file_names.hpp"
#include "plugins/bonnie/io_workers.hpp"
#include "plugins/bonnie/text_formatter.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::bonnie;

namespace {

using ::iobench::test::kMiB;
constexpr std::uint64_t kSeed = 1234;

struct Outcome {
  StepResult step;
  std::vector<std::string> left_behind;
  std::string json;  ///< the run as the JSON reporter writes it
};

/// The step's own limits (Step::ops_limit, time_limit, warmup), none by default.
struct Limits {
  std::uint64_t ops = 0;
  std::chrono::nanoseconds time{0};
  std::chrono::nanoseconds warmup{0};
};

Outcome run_bonnie(std::map<std::string, std::string> params,
                   const std::vector<std::string>& target_names = {"a"}, Limits limits = {}) {
  iobench::test::TempDir dir("bonnie_run");
  std::vector<std::filesystem::path> targets;
  for (const auto& name : target_names) {
    targets.push_back(dir.path() / name);
    std::filesystem::create_directory(targets.back());
  }
  params.emplace("ram", "0");
  params.emplace("machine", "testbox");
  const Registry registry = iobench::test::make_full_registry();
  Step step{
      .name = "bonnie", .workload = "bonnie", .params = std::move(params), .targets = targets};
  step.seed = kSeed;
  step.ops_limit = limits.ops;
  step.time_limit = limits.time;
  step.warmup = limits.warmup;
  iobench::test::CapturingReporter reporter;
  Runner(registry, {}).run(std::span<const Step>(&step, 1), reporter);
  REQUIRE(reporter.steps.size() == 1);
  Outcome outcome{reporter.steps.front(), {}, to_json(reporter.final_run)};
  for (const auto& target : targets) {
    for (const auto& entry : std::filesystem::directory_iterator(target)) {
      outcome.left_behind.push_back(entry.path().string());
    }
  }
  return outcome;
}

const PhaseResult& phase(const StepResult& step, const std::string& name) {
  for (const PhaseResult& p : step.phases) {
    if (p.name == name) return p;
  }
  FAIL("no phase " << name);
  throw std::logic_error("unreachable");
}

std::uint64_t ops_of(const PhaseResult& p) {
  std::uint64_t ops = 0;
  for (const OpResult& s : p.ops) ops += s.ops;
  return ops;
}

std::uint64_t bytes_of(const PhaseResult& p) {
  std::uint64_t bytes = 0;
  for (const OpResult& s : p.ops) bytes += s.bytes;
  return bytes;
}

std::uint64_t expected_updates(std::uint64_t seeks) {
  std::uint64_t updates = 0;
  for (std::uint64_t n = 0; n < seeks; ++n) updates += seek_ticket(kSeed, n) % 10 == 0 ? 1 : 0;
  return updates;
}

std::vector<std::string> csv_lines(const StepResult& step) {
  std::ostringstream out;
  format_csv_step(step, out);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t field_count(const std::string& line) {
  return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
}

}  // namespace

TEST_CASE("bonnie run does every phase with exact op counts", "[bonnie][run]") {
  const Outcome run = run_bonnie({{"bonnie_s", "4:8k:200:3"}, {"per_char", "1m"}, {"files", "1"}});
  const StepResult& step = run.step;
  INFO(step.message);
  REQUIRE(step.status == Status::kOk);
  CHECK(run.left_behind.empty());
  REQUIRE(step.phases.size() == 12);

  CHECK(phase(step, "put_block").mode == WorkerMode::kProcesses);  // single-threaded, as bonnie++
  CHECK(phase(step, "seeks").mode == WorkerMode::kThreads);
  const PhaseResult& putc = phase(step, "putc");
  REQUIRE(putc.counters.size() == 1);
  CHECK(putc.counters[0] == 1 * kMiB);  // one write(2) per byte
  CHECK(ops_of(putc) == kMiB / 8192);   // one latency sample per chunk
  CHECK(bytes_of(putc) == kMiB);
  const PhaseResult& getc = phase(step, "getc");
  CHECK(getc.counters[0] == kMiB);
  CHECK(bytes_of(getc) == kMiB);

  for (const char* name : {"put_block", "rewrite", "get_block"}) {
    INFO(name);
    CHECK(ops_of(phase(step, name)) == 4 * kMiB / 8192);
    CHECK(bytes_of(phase(step, name)) == 4 * kMiB);
  }

  const PhaseResult& seeks = phase(step, "seeks");
  CHECK(seeks.workers.size() == 3);
  CHECK(ops_of(seeks) == 200);
  const std::uint64_t updates = expected_updates(200);
  CHECK(seeks.counters[0] == updates);
  CHECK(bytes_of(seeks) == (200 + updates) * 8192);

  for (const char* name :
       {"seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"}) {
    INFO(name);
    CHECK(ops_of(phase(step, name)) == 1024);
    CHECK(bytes_of(phase(step, name)) == 0);
  }

  // Every phase's copy ran in one worker with CPU time of its own.
  for (const PhaseResult& p : step.phases) {
    INFO(p.name);
    CHECK(p.status == Status::kOk);
    for (const WorkerResult& w : p.workers) CHECK(w.elapsed_ns > 0);
  }

  const auto lines = csv_lines(step);
  REQUIRE(lines.size() == 1);
  CHECK(field_count(lines[0]) == 50);
  CHECK(lines[0].rfind("1.98,2.00a,testbox,1,1234,4M,,200,3,", 0) == 0);
  // JSON (the generic reporter): every phase with its ops, bytes, CPU and latency, and the
  // report shape as attributes.
  for (const char* key : {"\"name\": \"seq_create\"", "\"ops_by_kind\"", "\"latency_ns\"",
                          "\"p99\"", "\"workers_system_ns\"", "\"num_files_k\": 1",
                          "\"file_size_mib\": 4", "\"seekers\": 3", "\"machine\": \"testbox\""}) {
    CHECK(run.json.find(key) != std::string::npos);
  }
  std::ostringstream text;
  format_text_step(step, text);
  CHECK(text.str().find("testbox  4M:::200:3") != std::string::npos);
}

TEST_CASE("bonnie run creates files of the planned sizes in subdirectories", "[bonnie][run]") {
  const Outcome run = run_bonnie({{"size", "0"}, {"files", "1:4k:1k:3:1k"}});
  INFO(run.step.message);
  REQUIRE(run.step.status == Status::kOk);
  CHECK(run.left_behind.empty());
  std::uint64_t seq_bytes = 0;
  std::uint64_t rand_bytes = 0;
  const FileNamer seq(kSeed, 1024, 3, false, 1024, 4096);
  const FileNamer ran(kSeed, 1024, 3, true, 1024, 4096);
  for (std::uint64_t i = 0; i < 1024; ++i) {
    seq_bytes += seq.size_of(i);
    rand_bytes += ran.size_of(i);
  }
  CHECK(bytes_of(phase(run.step, "seq_create")) == seq_bytes);
  CHECK(bytes_of(phase(run.step, "seq_stat")) == seq_bytes);  // stat reads every file back
  CHECK(bytes_of(phase(run.step, "ran_create")) == rand_bytes);
  CHECK(bytes_of(phase(run.step, "ran_stat")) == rand_bytes);
  CHECK(ops_of(phase(run.step, "ran_del")) == 1024);
  const auto lines = csv_lines(run.step);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find(",1,4096,1024,3,1k,") != std::string::npos);
}

TEST_CASE("bonnie run makes hard links and symlinks", "[bonnie][run]") {
  // fsync=true once only: each create then waits for a journal commit.
  for (const auto& [files, fsync] : std::vector<std::pair<std::string, std::string>>{
           {"1:-1", "false"}, {"1:-2:0:2", "true"}, {"1:link:0:3", "false"}}) {
    INFO(files << " fsync=" << fsync);
    const Outcome run = run_bonnie({{"size", "0"}, {"files", files}, {"fsync", fsync}});
    INFO(run.step.message);
    REQUIRE(run.step.status == Status::kOk);
    CHECK(run.left_behind.empty());
    for (const char* name :
         {"seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"}) {
      CHECK(ops_of(phase(run.step, name)) == 1024);
    }
  }
}

TEST_CASE("bonnie run with two copies reports each and the sum", "[bonnie][run]") {
  const Outcome run = run_bonnie(
      {{"bonnie_s", "2:4k:100:2"}, {"per_char", "0"}, {"files", "0"}, {"processes", "2"}},
      {"a", "b"});
  INFO(run.step.message);
  REQUIRE(run.step.status == Status::kOk);
  CHECK(run.left_behind.empty());
  const PhaseResult& put = phase(run.step, "put_block");
  CHECK(put.mode == WorkerMode::kProcesses);
  REQUIRE(put.workers.size() == 2);
  for (const WorkerResult& w : put.workers) CHECK(w.ops.at(0).ops == 2 * kMiB / 4096);
  const PhaseResult& seeks = phase(run.step, "seeks");
  REQUIRE(seeks.workers.size() == 4);
  // Each copy's two seekers share its 100 tickets.
  CHECK(seeks.workers[0].ops[0].ops + seeks.workers[1].ops[0].ops == 100);
  CHECK(seeks.workers[2].ops[0].ops + seeks.workers[3].ops[0].ops == 100);
  const auto lines = csv_lines(run.step);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("1.98,2.00a,testbox.1,2,", 0) == 0);
  CHECK(lines[1].rfind("1.98,2.00a,testbox.2,2,", 0) == 0);
  CHECK(lines[2].rfind("1.98,2.00a,testbox,2,", 0) == 0);
}

TEST_CASE("bonnie run measures only the selected phases", "[bonnie][run]") {
  const Outcome run =
      run_bonnie({{"size", "2m"}, {"files", "1"}, {"phases", "get_block,seq_stat"}});
  INFO(run.step.message);
  REQUIRE(run.step.status == Status::kOk);
  CHECK(run.left_behind.empty());
  REQUIRE(run.step.phases.size() == 2);
  CHECK(run.step.phases[0].name == "get_block");
  CHECK(ops_of(run.step.phases[0]) == 2 * kMiB / 8192);
  CHECK(run.step.phases[1].name == "seq_stat");
  CHECK(ops_of(run.step.phases[1]) == 1024);
  const auto lines = csv_lines(run.step);
  REQUIRE(lines.size() == 1);
  CHECK(field_count(lines[0]) == 50);
}

TEST_CASE("bonnie run repeats with the same seed", "[bonnie][run]") {
  const Outcome run = run_bonnie({{"size", "1m"},
                                  {"chunk_size", "4k"},
                                  {"seeks", "50"},
                                  {"seekers", "1"},
                                  {"per_char", "0"},
                                  {"files", "0"},
                                  {"repetitions", "2"}});
  INFO(run.step.message);
  REQUIRE(run.step.status == Status::kOk);
  CHECK(run.left_behind.empty());
  CHECK(phase(run.step, "seeks#1").counters[0] == expected_updates(50));
  CHECK(phase(run.step, "seeks#2").counters[0] == expected_updates(50));
  CHECK(ops_of(phase(run.step, "get_block#2")) == kMiB / 4096);
  const auto lines = csv_lines(run.step);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("format_version,", 0) == 0);
  CHECK(field_count(lines[0]) == 50);
}

TEST_CASE("bonnie refuses bad parameters before any I/O", "[bonnie][run]") {
  iobench::test::TempDir dir("bonnie_bad");
  const Registry registry = iobench::test::make_full_registry();
  for (const std::map<std::string, std::string>& params :
       std::vector<std::map<std::string, std::string>>{
           {{"size", "16m"}, {"ram", "1g"}},          // under 2 x RAM
           {{"bonnie_s", "16:100"}, {"ram", "0"}},    // bad chunk
           {{"size", "16m"}, {"chunk_size", "100"}},  // bad chunk
           {{"files", "1:4k:8k"}, {"ram", "0"}},      // min > max
           {{"phases", "seeks"}, {"bonnie_s", "16:8k:0"}, {"ram", "0"}},
           {{"size", "16"}, {"ram", "0"}},         // bonnie++'s MiB as a bare number
           {{"size", "16:8k"}, {"ram", "0"}},      // bonnie++'s -s text under size
           {{"size", "1000000b"}, {"ram", "0"}},   // not a whole MiB
           {{"bonnie_s", "16"}, {"size", "16m"}},  // both forms
           {{"size", "16m"}, {"ram", "1024"}},     // -r's MiB as a bare number
           {{"size", "16m"}, {"per_char", "3"}},   // -f3's MiB as a bare number
           {{"sise", "16"}},                       // unknown parameter
       }) {
    Step step{.name = "bonnie", .workload = "bonnie", .params = params, .targets = {dir.path()}};
    iobench::test::CapturingReporter reporter;
    CHECK_THROWS_AS(Runner(registry, {}).run(std::span<const Step>(&step, 1), reporter),
                    ConfigError);
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("bonnie's stat and delete phases take the files an op-limited create phase made",
          "[bonnie][run]") {
  // 1024 files per file test, but the op limit ends each create phase after 100: the phases
  // after it must work on those 100 (random stat and delete would otherwise look for names never
  // made, and a delete limited to 100 of 1024 would leave the test directory behind).
  const Outcome run = run_bonnie({{"size", "0"}, {"files", "1"}}, {"a"}, Limits{.ops = 100});
  INFO(run.step.message);
  REQUIRE(run.step.status == Status::kOk);
  for (const char* name :
       {"seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"}) {
    INFO(name);
    CHECK(ops_of(phase(run.step, name)) == 100);
  }
  const PhaseResult& create = phase(run.step, "ran_create");
  REQUIRE(create.counter_names == std::vector<std::string>{"files_created"});
  CHECK(create.counters.at(0) == 100);
  CHECK(run.left_behind.empty());
}

TEST_CASE("bonnie's stat phase after a time-limited create phase stats what was made",
          "[bonnie][run]") {
  // 65536 files cannot be made in 150 ms; each phase has that limit.
  constexpr auto kLimit = std::chrono::milliseconds(150);
  const Outcome run =
      run_bonnie({{"size", "0"}, {"files", "64"}, {"phases", "seq_create,seq_stat"}}, {"a"},
                 Limits{.time = kLimit});
  INFO(run.step.message);
  REQUIRE(run.step.status == Status::kOk);
  const PhaseResult& create = phase(run.step, "seq_create");
  const std::uint64_t made = create.counters.at(0);
  CHECK(made == ops_of(create));
  if (made == 64 * 1024) {
    WARN("all 65536 files were made within 150 ms: the limit did not cut the create phase");
    return;
  }
  const PhaseResult& stat = phase(run.step, "seq_stat");
  // Every file made is stat'ed, unless the stat phase hit its own time limit first.
  if (stat.wall_ns < static_cast<std::uint64_t>(std::chrono::nanoseconds(kLimit).count())) {
    CHECK(ops_of(stat) == made);
  } else {
    CHECK(ops_of(stat) <= made);
  }
  CHECK(run.left_behind.empty());
}

TEST_CASE("bonnie counts the files a create phase made during its warm-up too", "[bonnie][run]") {
  // The warm-up's creates are discarded from the figures but the files exist: the stat phase
  // must expect them (op counts alone would miss them).
  const Outcome run = run_bonnie(
      {{"size", "0"}, {"files", "64"}, {"phases", "seq_create,seq_stat"}}, {"a"},
      Limits{.time = std::chrono::milliseconds(100), .warmup = std::chrono::milliseconds(50)});
  INFO(run.step.message);
  // Stat-ing 64 files takes less than the 50 ms warm-up each phase has, so the stat phase may
  // measure nothing (and say so); it must never fail on a file the warm-up made.
  REQUIRE((run.step.status == Status::kOk || run.step.status == Status::kNoMeasurement));
  const PhaseResult& create = phase(run.step, "seq_create");
  CHECK(create.status == Status::kOk);
  CHECK(create.counters.at(0) > ops_of(create));
  const PhaseResult& stat = phase(run.step, "seq_stat");
  CHECK((stat.status == Status::kOk || stat.status == Status::kNoMeasurement));
  CHECK(run.left_behind.empty());
}
