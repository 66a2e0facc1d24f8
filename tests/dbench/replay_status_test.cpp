// Expected-status checks, missing handles, pacing, time limits and cleanup of dbench replays.

#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>

#include "plugins/dbench/dbench_formatter.hpp"
#include "tests/dbench/dbench_test_support.hpp"

using dbench_test::counter;
using dbench_test::Fixture;
using dbench_test::op;
using dbench_test::tree;

namespace {

constexpr const char* kStatusPrologue = R"(Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
)";

std::map<std::string, std::string> once(const std::string& loadfile,
                                        std::map<std::string, std::string> more = {}) {
  more["loadfile"] = loadfile;
  more["run_once"] = "true";
  more.emplace("time_limit", "60s");
  return more;
}

/// Ops of the phase's measured time-series points.
std::uint64_t series_ops(const iobench::PhaseResult& phase) {
  std::uint64_t ops = 0;
  for (const auto& point : phase.time_series.points) {
    if (!point.warmup) ops += point.ops;
  }
  return ops;
}

/// Checks that the paced execute phase of `step` recorded each of its `executed` ops once, with
/// a latency from the intended start that is never below the op's service time.
void check_recorded_once(const iobench::StepResult& step, std::uint64_t executed) {
  const auto& phase = step.phases.front();
  REQUIRE(phase.op_names.size() == 17);
  REQUIRE(phase.latency_parts_kind.service);
  REQUIRE(phase.latency_parts.size() == 17);
  CHECK(phase.total_ops() == executed);
  CHECK(counter(step, "lines") == executed);
  REQUIRE_FALSE(phase.time_series.points.empty());
  CHECK(series_ops(phase) == executed);
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    INFO(phase.op_names[i]);
    const iobench::CompactLatencyHistogram& response = phase.ops[i].latency;
    const iobench::CompactLatencyHistogram& service = phase.latency_parts[i].service;
    CHECK(service.count() == phase.ops[i].ops);
    if (phase.ops[i].ops == 0) continue;
    CHECK(response.min() >= service.min());
    CHECK(response.max() >= service.max());
    CHECK(response.mean() >= service.mean());
    CHECK(response.percentile(50) >= service.percentile(50));
  }
}

std::string dbench_text(const iobench::StepResult& step) {
  std::ostringstream out;
  iobench::plugins::dbench::format_dbench_text(step, out);
  return out.str();
}

/// dbench's op table row of `latency` for `count` ops named `name`.
std::string table_row(std::string_view name, std::uint64_t count,
                      const iobench::CompactLatencyHistogram& latency) {
  return fmt::format(" {:<12} {:>7} {:>9.3f} {:>9.3f}\n", name, count, latency.mean() / 1e6,
                     static_cast<double>(latency.max()) / 1e6);
}

/// The percentile row of `latency` for `count` ops named `name`.
std::string percentile_row(std::string_view name, std::uint64_t count,
                           const iobench::CompactLatencyHistogram& latency) {
  const auto p = [&](double q) { return static_cast<double>(latency.percentile(q)) / 1e6; };
  return fmt::format(" {:<12} {:>7} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}\n", name, count,
                     p(50), p(90), p(99), p(99.9), static_cast<double>(latency.max()) / 1e6);
}

}  // namespace

TEST_CASE("an Unlink status mismatch stops the run with one clear message", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(std::string(kStatusPrologue) +
                              "Unlink \"\\clients\\client1\\missing.doc\" 0x6 NT_STATUS_OK\n"
                              "QUERY_FS_INFORMATION 259 NT_STATUS_OK\n");
  const auto step = fx.run(once(lf));
  CHECK(step.status == iobench::Status::kFailed);
  const std::string path = (fx.run_dir() / "clients/client0/missing.doc").string();
  CHECK(step.message.find("dbench client 0: " + lf + " line 4: Unlink " + path +
                          " failed (No such file or directory), expected NT_STATUS_OK") !=
        std::string::npos);
  // The run stopped there: the line after it never ran.
  CHECK(op(step, "Qfsinfo").ops == 0);
  // finish() still removed what the client created.
  CHECK(tree(fx.run_dir()).empty());
}

TEST_CASE("Rmdir and Rename mismatches name the expected and actual outcome", "[dbench]") {
  Fixture fx;
  auto lf = fx.loadfile(std::string(kStatusPrologue) +
                        "Mkdir \"\\clients\\client1\\d\" NT_STATUS_OK\n"
                        "Rmdir \"\\clients\\client1\\d\" NT_STATUS_OBJECT_NAME_NOT_FOUND\n");
  auto step = fx.run(once(lf));
  CHECK(step.status == iobench::Status::kFailed);
  CHECK(step.message.find(lf + " line 5: Rmdir " + (fx.run_dir() / "clients/client0/d").string() +
                          " succeeded, expected NT_STATUS_OBJECT_NAME_NOT_FOUND") !=
        std::string::npos);
  fx.clear_target();

  lf = fx.loadfile(std::string(kStatusPrologue) +
                   "Rename \"\\clients\\client1\\a\" \"\\clients\\client1\\b\" NT_STATUS_OK\n");
  step = fx.run(once(lf));
  CHECK(step.status == iobench::Status::kFailed);
  const auto dir = fx.run_dir() / "clients/client0";
  CHECK(step.message.find(
            lf + " line 4: Rename " + (dir / "a").string() + " -> " + (dir / "b").string() +
            " failed (No such file or directory), expected NT_STATUS_OK") != std::string::npos);
  fx.clear_target();

  // With stat_check a missing Rename source is reported before the rename is tried.
  step = fx.run(once(lf, {{"stat_check", "true"}}));
  CHECK(step.status == iobench::Status::kFailed);
  CHECK(step.message.find("the source does not exist (stat-check), expected NT_STATUS_OK") !=
        std::string::npos);
}

TEST_CASE("lenient mode counts mismatches per operation and goes on", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(
      std::string(kStatusPrologue) +
      "Unlink \"\\clients\\client1\\missing.doc\" 0x6 NT_STATUS_OK\n"
      "Rmdir \"\\clients\\client1\\none\" NT_STATUS_OK\n"
      "NTCreateX \"\\clients\\client1\\nofile\" 0x40 0x1 5 NT_STATUS_OK\n"
      "ReadX 5 0 10 10 NT_STATUS_OK\n"
      "NTCreateX \"\\clients\\client1\\new\" 0x40 0x2 6 NT_STATUS_OBJECT_NAME_COLLISION\n"
      "Close 6 NT_STATUS_OK\n"
      "QUERY_FS_INFORMATION 259 NT_STATUS_OK\n");
  const auto step = fx.run(once(lf, {{"status_mismatch", "count"}, {"procs", "2"}}));
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(counter(step, "mismatch.Unlink") == 2);
  CHECK(counter(step, "mismatch.Rmdir") == 2);
  CHECK(counter(step, "mismatch.NTCreateX") == 4);  // one failed open, one unexpected success
  CHECK(counter(step, "missing_handle") == 4);      // ReadX 5 and Close 6, per client
  CHECK(op(step, "ReadX").ops == 0);
  CHECK(op(step, "ReadX").errors == 2);
  CHECK(op(step, "Close").errors == 2);
  CHECK(op(step, "Qfsinfo").ops == 2);
  CHECK(op(step, "Unlink").ops == 2);  // a mismatched call is still timed, as in dbench
}

TEST_CASE("using a handle whose open failed reports the line of that open", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(std::string(kStatusPrologue) +
                              "NTCreateX \"\\clients\\client1\\nofile\" 0x40 0x1 5 NT_STATUS_OK\n"
                              "QUERY_PATH_INFORMATION \"\\clients\\client1\" 1004 NT_STATUS_OK\n"
                              "ReadX 5 0 10 10 NT_STATUS_OK\n");
  auto step = fx.run(once(lf));
  CHECK(step.status == iobench::Status::kFailed);
  CHECK(step.message.find("dbench client 0: " + lf +
                          " line 6: ReadX on handle 5, but the NTCreateX of that handle at line "
                          "4 failed (No such file or directory)") != std::string::npos);
  CHECK(counter(step, "mismatch.NTCreateX") == 1);
  fx.clear_target();

  const auto never = fx.loadfile(std::string(kStatusPrologue) + "Flush 77 NT_STATUS_OK\n", "n.txt");
  step = fx.run(once(never));
  CHECK(step.status == iobench::Status::kFailed);
  CHECK(step.message.find(" line 4: Flush on handle 77, which is not open") != std::string::npos);
}

TEST_CASE("timestamps pace the replay and latency is taken from the intended time", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(0.05 Mkdir "\clients" NT_STATUS_OK
0.10 NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
0.15 Close 1 NT_STATUS_OK
0.30 QUERY_FS_INFORMATION 259 NT_STATUS_OK
)");
  const auto step = fx.run(once(lf, {{"procs", "2"}}));
  REQUIRE(step.status == iobench::Status::kOk);
  const auto& phase = step.phases.front();
  // The last line may not start before 0.30 s after the pass started.
  CHECK(phase.wall_ns >= 300'000'000);
  // 4 lines x 2 clients, each op recorded once.
  check_recorded_once(step, 8);
  CHECK(op(step, "Mkdir").ops == 2);
  CHECK(op(step, "NTCreateX").ops == 2);
  CHECK(op(step, "Close").ops == 2);
  CHECK(op(step, "Qfsinfo").ops == 2);
  CHECK(op(step, "Qfsinfo").bytes == 0);
}

TEST_CASE("a target rate paces each client by the bytes it moved", "[dbench]") {
  Fixture fx;
  std::string text =
      std::string(kStatusPrologue) + "NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 2 0x0\n";
  for (int i = 0; i < 5; ++i)
    text += "WriteX 2 " + std::to_string(i * 100000) + " 100000 100000 0x0\n";
  text += "Close 2 0x0\n";
  const auto lf = fx.loadfile(text);
  const auto step = fx.run(once(lf, {{"target_rate", "1"}, {"per_client_results", "true"}}));
  REQUIRE(step.status == iobench::Status::kOk);
  // 500,000 bytes at 1 MB/s: the Close may not start before 0.5 s after the first line.
  CHECK(step.phases.front().wall_ns >= 500'000'000);
  // 10 lines for the one client, each op recorded once.
  check_recorded_once(step, 10);
  CHECK(op(step, "WriteX").ops == 5);
  CHECK(op(step, "WriteX").bytes == 500000);

  // The same loadfile unpaced: the same ops, and no latency parts.
  fx.clear_target();
  const auto unpaced = fx.run(once(lf));
  REQUIRE(unpaced.status == iobench::Status::kOk);
  const auto& free_phase = unpaced.phases.front();
  CHECK_FALSE(free_phase.latency_parts_kind.any());
  REQUIRE(free_phase.ops.size() == step.phases.front().ops.size());
  for (std::size_t i = 0; i < free_phase.ops.size(); ++i) {
    INFO(free_phase.op_names[i]);
    CHECK(step.phases.front().ops[i].ops == free_phase.ops[i].ops);
  }
  CHECK(series_ops(free_phase) == free_phase.total_ops());

  // dbench's table shows the service time, the second table the latency from the intended
  // start; both survive the JSON round trip.
  const auto& phase = step.phases.front();
  const std::size_t wx = phase.op_index("WriteX");
  const std::string shown = dbench_text(step);
  const std::size_t second = shown.find("\nLatency from the intended start time");
  REQUIRE(second != std::string::npos);
  const std::size_t main_row = shown.find(table_row("WriteX", 5, phase.latency_parts[wx].service));
  CHECK(main_row < shown.find("\nThroughput "));
  const std::size_t client_row =
      shown.find(table_row("WriteX", 5, phase.workers.at(0).latency_parts.at(wx).service),
                 shown.find("\nPer client results:\n"));
  CHECK(client_row != std::string::npos);
  CHECK(shown.find(percentile_row("WriteX", 5, phase.ops[wx].latency), second) !=
        std::string::npos);
  iobench::RunResult run;
  run.steps = {step};
  const std::string json = iobench::to_json(run, 2);
  const iobench::ResultDocument back = iobench::parse_result_json(json);
  CHECK(iobench::to_json(back.run, 2) == json);
  REQUIRE(back.run.steps.size() == 1);
  CHECK(dbench_text(back.run.steps.front()) == shown);
}

TEST_CASE("the run ends at its time limit whatever the loadfile does", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(std::string(kStatusPrologue) +
                              "LOOP 1000000000\nQUERY_FS_INFORMATION 259 NT_STATUS_OK\nENDLOOP\n"
                              "SLEEP 100000000\n");
  const auto step = fx.run({{"loadfile", lf}, {"time_limit", "1s"}, {"procs", "2"}}, false);
  REQUIRE(step.status == iobench::Status::kOk);
  const auto& phase = step.phases.front();
  CHECK(phase.wall_ns >= 1'000'000'000);
  CHECK(phase.wall_ns < 20'000'000'000);
  CHECK(op(step, "Qfsinfo").ops > 0);
  CHECK(counter(step, "loadfile_passes") == 0);

  const auto sleeper = fx.loadfile("SLEEP 100000000\n", "s.txt");
  const auto slept = fx.run({{"loadfile", sleeper}, {"time_limit", "1s"}}, false);
  REQUIRE(slept.status == iobench::Status::kOk);
  CHECK(slept.phases.front().wall_ns < 20'000'000'000);
}

TEST_CASE("a looping replay with warm-up passes the loadfile many times and cleans up",
          "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(Deltree "\clients\client1" NT_STATUS_OK
Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\clients\client1\f" 0x40 0x2 2 NT_STATUS_OK
WriteX 2 0 4096 4096 NT_STATUS_OK
ReadX 2 0 4096 4096 NT_STATUS_OK
Close 2 NT_STATUS_OK
Unlink "\clients\client1\f" 0x6 NT_STATUS_OK
)");
  const auto step = fx.run({{"loadfile", lf},
                            {"time_limit", "2s"},
                            {"warmup", "1s"},
                            {"procs", "2"},
                            {"per_client_results", "true"}});
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(counter(step, "loadfile_passes") > 10);
  CHECK(op(step, "WriteX").bytes == op(step, "WriteX").ops * 4096);
  CHECK(op(step, "Unlink").ops > 10);
  CHECK(counter(step, "mismatch.Unlink") == 0);
  // dbench's throughput counts the bytes up to the last whole-second tick (1 s of 2).
  CHECK(counter(step, "bytes_to_last_tick") > 0);
  CHECK(counter(step, "bytes_to_last_tick") < op(step, "WriteX").bytes + op(step, "ReadX").bytes);
  CHECK(tree(fx.run_dir()).empty());
}

TEST_CASE("bad dbench parameters are refused before any I/O", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(kStatusPrologue);
  const iobench::Registry registry = iobench::test::make_full_registry();
  iobench::Runner runner(registry, {});
  const auto check = [&](std::map<std::string, std::string> params, const std::string& expected) {
    const iobench::Step step{
        .name = "d", .workload = "dbench", .params = std::move(params), .targets = {fx.target()}};
    try {
      runner.validate(std::span<const iobench::Step>(&step, 1));
      FAIL("no ConfigError");
    } catch (const iobench::ConfigError& e) {
      CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
  };
  check({{"loadfile", lf}, {"target_rate", "-2"}}, "target_rate '-2' is not a rate");
  check({{"loadfile", lf + ",,"}}, "': item 2 is empty (two commas in a row");
  check({{"loadfile", lf + ".missing"}}, "cannot be opened: No such file or directory");
  check({{"loadfile", fx.loadfile("Close x NT_STATUS_OK\n", "bad.txt")}},
        "bad.txt:1:7: bad handle for Close 'x'");
  CHECK(dbench_test::fs::is_empty(fx.target()));
}

TEST_CASE("a failing client stops the others and its files are still removed", "[dbench]") {
  Fixture fx;
  const auto failing = fx.loadfile(std::string(kStatusPrologue) +
                                       "NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 2 0x0\n"
                                       "Close 2 0x0\n"
                                       "SLEEP 200000\n"
                                       "Unlink \"\\clients\\client1\\missing\" 0x6 NT_STATUS_OK\n",
                                   "fail.txt");
  const auto looping = fx.loadfile(std::string(kStatusPrologue) +
                                       "NTCreateX \"\\clients\\client1\\g\" 0x40 0x2 2 0x0\n"
                                       "Close 2 0x0\nQUERY_FS_INFORMATION 259 0x0\n",
                                   "loop.txt");
  const auto step = fx.run({{"loadfile", failing + "," + looping},
                            {"procs", "2"},
                            {"time_limit", "60s"},
                            {"warmup", "0s"}});
  CHECK(step.status == iobench::Status::kFailed);
  CHECK(step.message.find("dbench client 0: " + failing + " line 7: Unlink") != std::string::npos);
  const auto& phase = step.phases.front();
  CHECK(phase.wall_ns < 30'000'000'000);  // the looping client stopped with the failed one
  CHECK(phase.workers[1].ops[static_cast<std::size_t>(phase.op_index("Qfsinfo"))].ops > 0);
  CHECK(tree(fx.run_dir()).empty());
}

TEST_CASE("a failed open leaves an open handle of the same number usable", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(std::string(kStatusPrologue) +
                              "NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 9 NT_STATUS_OK\n"
                              "NTCreateX \"\\clients\\client1\\g\" 0x40 0x1 9 "
                              "NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
                              "WriteX 9 0 100 100 NT_STATUS_OK\n"
                              "Close 9 NT_STATUS_OK\n");
  const auto step = fx.run(once(lf, {{"skip_cleanup", "true"}}));
  INFO(step.message);
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(counter(step, "missing_handle") == 0);
  CHECK(counter(step, "mismatch.NTCreateX") == 0);
  CHECK(tree(fx.run_dir()) ==
        std::vector<std::string>{"d clients", "d clients/client0", "f clients/client0/f 100"});
}
