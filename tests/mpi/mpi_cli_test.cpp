// The iobench CLI under mpirun (OpenMPI): aggregates equal the sums and merged histograms of the
// ranks, per-rank targets are made and cleaned, bad input is reported once with exit 2, a
// failing rank stops the others, a killed rank hangs nobody, a per-op series (filebench's psrun)
// merges op by op. Tiny disk runs in temp dirs.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/metrics.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/mpi/mpi_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Json = nlohmann::json;

namespace {

// The write op of phase 0 of step 0 of a result document, exactly as the reader restores it.
OpResult write_op(const ResultDocument& doc) {
  const PhaseResult& phase = doc.run.steps.at(0).phases.at(0);
  return phase.ops.at(phase.op_index("write"));
}

void check_aggregate(int ranks) {
  TempDir dir("mpi");
  for (int r = 0; r < ranks; ++r)
    std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  const CliResult result =
      run_ranked(ranks, {"run", "disk", "-d", (dir.path() / "r{rank}").string(), "size=1m", "bs=4k",
                         "operation=write", "-q", "--format", "json"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  // Only rank 0 prints: stdout is one document.
  const Json j = Json::parse(result.out);
  const ResultDocument aggregate = parse_result_json(result.out);
  const Json& ranked = j.at("ranks");
  REQUIRE(ranked.at("size") == ranks);
  REQUIRE(ranked.at("hosts").size() == static_cast<std::size_t>(ranks));
  const Json& results = ranked.at("steps").at(0).at("results");
  REQUIRE(results.size() == static_cast<std::size_t>(ranks));

  std::uint64_t bytes = 0, ops = 0;
  OpResult merged;
  for (int r = 0; r < ranks; ++r) {
    const ResultDocument doc = parse_result_json(results.at(static_cast<std::size_t>(r)).dump());
    const StepResult& step = doc.run.steps.at(0);
    CHECK(step.targets.at(0) == (dir.path() / fmt::format("r{}", r)).string());
    bytes += step.phases.at(0).total_bytes();
    ops += step.phases.at(0).total_ops();
    merged.merge(write_op(doc));
    CHECK(write_op(doc).ops == 256);  // 1 MiB in 4 KiB blocks on every rank
  }
  const PhaseResult& phase = aggregate.run.steps.at(0).phases.at(0);
  CHECK(phase.total_bytes() == bytes);
  CHECK(phase.total_ops() == ops);
  CHECK(bytes == static_cast<std::uint64_t>(ranks) * (1u << 20));
  CHECK(phase.workers.size() == static_cast<std::size_t>(ranks));
  CHECK(aggregate.run.steps.at(0).targets.size() == static_cast<std::size_t>(ranks));
  // Percentiles of the aggregate are those of the union of all ranks' ops.
  const OpResult agg = write_op(aggregate);
  CHECK(agg.ops == merged.ops);
  for (const double p : {50.0, 90.0, 99.0, 99.9}) {
    CHECK(agg.latency.percentile(p) == merged.latency.percentile(p));
  }
  CHECK(agg.latency.min() == merged.latency.min());
  CHECK(agg.latency.max() == merged.latency.max());
  // Every rank created its run directory in its own target and removed it.
  for (int r = 0; r < ranks; ++r) {
    CHECK(TempDir::list(dir.path() / fmt::format("r{}", r)).empty());
  }
}

}  // namespace

TEST_CASE("mpirun -n 2: the aggregate is the sum and the merged histogram of the ranks", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  check_aggregate(2);
}

TEST_CASE("mpirun -n 3: the aggregate is the sum and the merged histogram of the ranks", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  check_aggregate(3);
}

TEST_CASE("mpirun: the text report prints the aggregate once and the rank table", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  for (int r = 0; r < 2; ++r) std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  const CliResult result = run_ranked(
      2, {"run", "disk", "-d", (dir.path() / "r{rank}").string(), "size=256k", "bs=4k", "-q"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(count_of(result.out, "mbytes across 2 devices using 128 blocks of 4096") == 1);
  CHECK(count_of(result.out, "Ranks: 2 (rank=host: 0=") == 1);
  CHECK(count_of(result.out, "Jain's fairness") == 1);
}

TEST_CASE("mpirun: a bad param is reported once and every rank exits 2", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  const CliResult result =
      run_ranked(3, {"run", "disk", "-d", dir.path().string(), "size=1m", "bsx=4k", "-q"});
  CHECK(result.exit_code == 2);
  CHECK(count_of(result.err, "unknown parameter 'bsx'") == 1);
  CHECK(result.out.empty());
  CHECK(dir.entries().empty());
}

TEST_CASE("mpirun: a bad target template is reported once with exit 2", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  const CliResult result =
      run_ranked(2, {"run", "disk", "-d", (dir.path() / "r{rnk}").string(), "size=1m", "-q"});
  CHECK(result.exit_code == 2);
  CHECK(count_of(result.err, "unknown name {rnk}") == 1);
  CHECK(dir.entries().empty());
}

TEST_CASE("mpirun: a target missing on one rank is reported once, naming the rank", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  std::filesystem::create_directory(dir.path() / "r0");
  std::filesystem::create_directory(dir.path() / "r2");
  const CliResult result =
      run_ranked(3, {"run", "disk", "-d", (dir.path() / "r{rank}").string(), "size=1m", "-q"});
  CHECK(result.exit_code == 2);
  CHECK(count_of(result.err, "does not exist") == 1);
  CHECK(count_of(result.err, "rank 1: ") == 1);
  CHECK(TempDir::list(dir.path() / "r0").empty());
  CHECK(TempDir::list(dir.path() / "r2").empty());
}

TEST_CASE("mpirun: a rank failing at set-up stops the others, names itself, leaves nothing",
          "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  if (::geteuid() != 0) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  TempDir dir("mpi");
  for (int r = 0; r < 3; ++r) std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  // Rank 1's target holds two inodes: its run directory is made, its file is not (ENOSPC).
  const std::string small = (dir.path() / "r1").string();
  REQUIRE(run_command({"mount", "-t", "tmpfs", "-o", "size=4m,nr_inodes=2", "tmpfs", small})
              .exit_code == 0);
  const CliResult result = run_ranked(3, {"run", "disk", "-d", (dir.path() / "r{rank}").string(),
                                          "size=1m", "bs=64k", "-q", "--format", "json"});
  (void)run_command({"umount", small});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 1);
  const Json j = Json::parse(result.out);
  const std::string message = j.at("steps").at(0).at("message");
  CHECK_THAT(message, Catch::StartsWith("rank 1: ") && Catch::Contains("No space left on device"));
  const Json& results = j.at("ranks").at("steps").at(0).at("results");
  for (const std::size_t r : {0u, 2u}) {
    const Json& step = results.at(r).at("steps").at(0);
    CHECK(step.at("status") == "failed");
    CHECK_THAT(step.at("message").get<std::string>(),
               Catch::Contains("stopped because of another rank: rank 1 (") &&
                   Catch::Contains("No space left on device"));
    // Stopped at the barrier: nothing measured.
    CHECK(step.at("phases").at(0).at("ops") == 0);
  }
  for (int r = 0; r < 3; ++r) CHECK(TempDir::list(dir.path() / fmt::format("r{}", r)).empty());
}

TEST_CASE("mpirun: a rank filling up mid-phase stops the others before they finish", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  if (::geteuid() != 0) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  TempDir dir("mpi");
  for (int r = 0; r < 2; ++r) std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  const std::string small = (dir.path() / "r1").string();
  REQUIRE(run_command({"mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", small}).exit_code == 0);
  // 64 writes at 20/s take 3.2 s per rank; once rank 1's file exists, its filesystem is filled
  // (the free-space check passed before), so its next write fails and rank 0 is stopped early.
  const std::string script = fmt::format(
      "{} {} {} run disk -d '{}' size=1m bs=16k rate_iops=20 -q --format json > {}/out.json & "
      "pid=$!; for i in $(seq 1 600); do ls {}/iobench.*/bigfile >/dev/null 2>&1 && break; "
      "sleep 0.05; done; dd if=/dev/zero of={}/filler bs=64k >/dev/null 2>&1; wait $pid; "
      "status=$?; rm -f {}/filler; exit $status",
      IOBENCH_MPIRUN, "--oversubscribe --allow-run-as-root -n 2", IOBENCH_CLI_PATH,
      (dir.path() / "r{rank}").string(), dir.path().string(), small, small, small);
  const CliResult result = run_command({"sh", "-c", script});
  (void)run_command({"umount", small});
  INFO(result.err);
  CHECK(result.exit_code == 1);
  const Json j = Json::parse(read_file(dir.path() / "out.json"));
  const Json& results = j.at("ranks").at("steps").at(0).at("results");
  const Json& failing = results.at(1).at("steps").at(0);
  CHECK_THAT(failing.at("message").get<std::string>(), Catch::Contains("No space left on device"));
  const Json& stopped = results.at(0).at("steps").at(0);
  CHECK_THAT(stopped.at("message").get<std::string>(),
             Catch::Contains("stopped because of another rank: rank 1"));
  CHECK(stopped.at("phases").at(0).at("ops_by_kind").at("write").at("ops") < 64);
  CHECK(TempDir::list(dir.path() / "r0").empty());
  CHECK(TempDir::list(dir.path() / "r1").empty());
}

TEST_CASE("mpirun: a rank killed with SIGKILL leaves no rank hanging", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  for (int r = 0; r < 3; ++r) std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  // --enable-recovery keeps mpirun from killing the job itself: the survivors' watchdog (a 5 s
  // IOBENCH_RANK_TIMEOUT) must end it, after each removed its own files. `timeout` only bounds a
  // broken build; exit 124 is a hang.
  const std::string target = (dir.path() / "r{rank}").string();
  // Rank 2 is killed by its pid, which its run directory's name (iobench.PID.RANDOM) gives.
  const std::string script = fmt::format(
      "IOBENCH_RANK_TIMEOUT=5 timeout 120 {} --oversubscribe --allow-run-as-root --enable-recovery "
      "-x IOBENCH_RANK_TIMEOUT -n 3 {} run disk -d '{}' size=256k bs=16k rate_iops=5 -q "
      "> /dev/null & pid=$!; for i in $(seq 1 600); do ls {}/r2/iobench.*/bigfile >/dev/null 2>&1 "
      "&& break; sleep 0.05; done; d=$(ls -d {}/r2/iobench.*); p=${{d##*/iobench.}}; "
      "kill -KILL ${{p%%.*}}; wait $pid; echo exit=$?",
      IOBENCH_MPIRUN, IOBENCH_CLI_PATH, target, dir.path().string(), dir.path().string());
  const CliResult result = run_command({"sh", "-c", script});
  INFO(result.out << result.err);
  CHECK(result.out.find("exit=124") == std::string::npos);
  CHECK_THAT(result.err, Catch::Contains("no answer from every rank within 5 s"));
  // The survivors removed their own files; the killed rank could not.
  std::size_t clean = 0;
  for (int r = 0; r < 3; ++r) clean += TempDir::list(dir.path() / fmt::format("r{}", r)).empty();
  CHECK(clean == 2);
}

TEST_CASE("mpirun --stonewall: the first rank done ends every rank's phase, normally", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  if (::geteuid() != 0) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  TempDir dir("mpi");
  for (int r = 0; r < 2; ++r) std::filesystem::create_directory(dir.path() / fmt::format("r{}", r));
  // Rank 1 writes into memory (tmpfs), rank 0 with O_DSYNC to the disk: rank 1 is done long
  // before rank 0, which is then stopped with part of its 1024 writes done.
  const std::string fast = (dir.path() / "r1").string();
  REQUIRE(run_command({"mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", fast}).exit_code == 0);
  const CliResult result =
      run_ranked(2, {"run", "disk", "-d", (dir.path() / "r{rank}").string(), "size=16m", "bs=16k",
                     "sync=dsync", "--stonewall", "-q", "--format", "json"});
  (void)run_command({"umount", fast});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json j = Json::parse(result.out);
  const Json& results = j.at("ranks").at("steps").at(0).at("results");
  const Json& slow = results.at(0).at("steps").at(0);
  const Json& quick = results.at(1).at("steps").at(0);
  CHECK(slow.at("status") == "ok");
  CHECK(quick.at("phases").at(0).at("ops_by_kind").at("write").at("ops") == 1024);
  CHECK(slow.at("phases").at(0).at("ops_by_kind").at("write").at("ops") < 1024);
  const Json& phase = j.at("steps").at(0).at("phases").at(0);
  CHECK(phase.at("stonewall_ns") <= phase.at("wall_ns"));
  CHECK(j.at("ranks").at("steps").at(0).at("phases").at(0).at("stonewall_ns") ==
        phase.at("stonewall_ns"));
  CHECK(TempDir::list(dir.path() / "r0").empty());
  CHECK(TempDir::list(dir.path() / "r1").empty());
}

TEST_CASE("mpirun -n 2: the aggregate's time series merges the ranks' points", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  const CliResult result =
      run_ranked(2, {"run", "disk", "-d", dir.path().string(), "size=4m", "bs=4k", "operation=read",
                     "seek=random", "iterations=100000", "prime=true", "--time", "600ms",
                     "--interval", "100ms", "-q", "--format", "json"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json j = Json::parse(result.out);
  const Json& phase = j.at("steps").at(0).at("phases").at(0);
  const Json& points = phase.at("time_series").at("points");
  const Json& results = j.at("ranks").at("steps").at(0).at("results");
  std::vector<Json> rank_points;
  for (const Json& r : results) {
    rank_points.push_back(r.at("steps").at(0).at("phases").at(0).at("time_series").at("points"));
  }
  REQUIRE(points.size() == std::max(rank_points[0].size(), rank_points[1].size()));
  REQUIRE(points.size() >= 6);
  std::uint64_t ops = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    const Json& point = points.at(i);
    ops += point.at("ops").get<std::uint64_t>();
    std::uint64_t sum = 0, max = 0, p99_low = UINT64_MAX, p99_high = 0;
    std::size_t workers = 0;
    for (const Json& rp : rank_points) {
      if (i >= rp.size()) continue;
      const Json& theirs = rp.at(i);
      sum += theirs.at("ops").get<std::uint64_t>();
      workers += theirs.at("workers").size();
      if (theirs.at("ops") == 0) continue;
      const Json& latency = theirs.at("latency_ns");
      max = std::max(max, latency.at("max").get<std::uint64_t>());
      p99_low = std::min(p99_low, latency.at("p99").get<std::uint64_t>());
      p99_high = std::max(p99_high, latency.at("p99").get<std::uint64_t>());
    }
    CHECK(point.at("ops") == sum);
    CHECK(point.at("workers").size() == workers);
    if (sum == 0) continue;
    CHECK(point.at("latency_ns").at("max") == max);
    // A percentile of the union lies between the ranks' own.
    CHECK(point.at("latency_ns").at("p99").get<std::uint64_t>() >= p99_low);
    CHECK(point.at("latency_ns").at("p99").get<std::uint64_t>() <= p99_high);
  }
  CHECK(ops == phase.at("ops").get<std::uint64_t>());
}

TEST_CASE("mpirun -n 2: a psrun's per-op series merges op by op and adds up to the op totals",
          "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  // One thread per rank reading 4 KiB at random, then napping: two op kinds (bytes only in the
  // first); psrun splits the series by flowop (PhaseSpec::per_op_series).
  const std::filesystem::path wml = dir.path() / "ps.f";
  std::ofstream(wml) << "define file name=f,path=/tmp,size=64k,prealloc\n"
                        "define process name=p { thread name=t,memsize=4k {\n"
                        "  flowop read name=rd,filename=f,iosize=4k,fd=1,random\n"
                        "  flowop delay name=nap,value=0.001 } }\n"
                        "psrun 1 60\n";
  const RankedJsonRun run =
      run_ranked_json(dir.path(), 2, "filebench",
                      {"file=" + wml.string(), "time_limit=1500ms", "--interval", "200ms", "-q"});
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  const Json j = Json::parse(read_file(run.json));
  const Json& results = j.at("ranks").at("steps").at(0).at("results");
  REQUIRE(results.size() == 2);
  std::vector<Json> rank_points;
  for (const Json& r : results) {
    rank_points.push_back(r.at("steps").at(0).at("phases").at(0).at("time_series").at("points"));
  }
  const PhaseResult phase = parse_result_json(read_file(run.json)).run.steps.at(0).phases.at(0);
  REQUIRE(phase.op_names == std::vector<std::string>{"rd", "nap"});
  const std::vector<SeriesPoint>& points = phase.time_series.points;
  REQUIRE(points.size() == std::max(rank_points[0].size(), rank_points[1].size()));
  std::vector<SeriesOpPoint> sums(2);
  std::vector<std::uint64_t> rank_ops(2, 0);
  std::size_t split = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    const SeriesPoint& point = points[i];
    // Op kind k of point i: the sum of each rank's point i's.
    std::vector<SeriesOpPoint> want(2);
    for (std::size_t r = 0; r < rank_points.size(); ++r) {
      if (i >= rank_points[r].size() || !rank_points[r].at(i).contains("op_points")) continue;
      const Json& ops = rank_points[r].at(i).at("op_points");
      REQUIRE(ops.size() == 2);
      for (std::size_t k = 0; k < 2; ++k) {
        want[k].add({.ops = ops.at(k).at("ops").get<std::uint64_t>(),
                     .bytes = ops.at(k).at("bytes").get<std::uint64_t>(),
                     .errors = ops.at(k).at("errors").get<std::uint64_t>(),
                     .latency_samples = ops.at(k).at("latency_samples").get<std::uint64_t>(),
                     .latency_sum_ns = ops.at(k).at("latency_sum_ns").get<std::uint64_t>()});
        rank_ops[r] += ops.at(k).at("ops").get<std::uint64_t>();
      }
    }
    if (point.op_points.empty()) {
      CHECK(point.ops == 0);
      CHECK(want[0].ops + want[1].ops == 0);
      continue;
    }
    ++split;
    REQUIRE(point.op_points.size() == 2);
    CHECK(point.op_points == want);
    CHECK(point.op_points[0].ops + point.op_points[1].ops == point.ops);
    CHECK(point.op_points[0].bytes + point.op_points[1].bytes == point.bytes);
    for (std::size_t k = 0; k < 2; ++k) sums[k].add(point.op_points[k]);
  }
  CHECK(split >= 2);
  CHECK(rank_ops[0] > 0);  // both ranks' ops are in the split
  CHECK(rank_ops[1] > 0);
  for (std::size_t k = 0; k < 2; ++k) {
    INFO("op " << phase.op_names[k]);
    CHECK(sums[k].ops == phase.ops.at(k).ops);
    CHECK(sums[k].bytes == phase.ops.at(k).bytes);
    CHECK(sums[k].errors == phase.ops.at(k).errors);
    CHECK(sums[k].latency_samples == phase.ops.at(k).latency.count());
    CHECK(sums[k].latency_sum_ns == phase.ops.at(k).latency.sum());
  }
  CHECK(sums[0].bytes == 4096 * sums[0].ops);
  CHECK(sums[0].ops > 0);
  CHECK(sums[1].ops > 0);
}

TEST_CASE("mpirun -n 2 --wear-out: every rank's worker goes on to the most ops any had done",
          "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  const std::vector<std::string> step = {"run",         "disk",
                                         "-d",          dir.path().string(),
                                         "engine=null", "size=1t",
                                         "bs=4k",       "operation=read",
                                         "seek=random", "random_order=uniform",
                                         "--wear-out",  "-q",
                                         "--format",    "json"};
  std::vector<std::string> timed = step;
  timed.insert(timed.end(), {"--time", "300ms"});
  const CliResult result = run_ranked(2, timed);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json j = Json::parse(result.out);
  const std::uint64_t most =
      j.at("steps").at(0).at("attributes").at("wear_out_ops.read").get<std::uint64_t>();
  std::uint64_t fewest = UINT64_MAX;
  for (const Json& r : j.at("ranks").at("steps").at(0).at("results")) {
    const Json& rank_step = r.at("steps").at(0);
    CHECK(rank_step.at("attributes").at("wear_out_ops.read") == most);  // one target for all
    const std::uint64_t ops = rank_step.at("phases").at(0).at("ops").get<std::uint64_t>();
    CHECK(ops >= most);
    fewest = std::min(fewest, ops);
  }
  // The slower rank went on to the target; it may pass it by what it did while the ranks agreed
  // on it (each takes its count at its own time limit).
  CHECK(fewest <= most + most / 10);

  // Ranks whose workers all end before the time limit still agree (after their phase): no hang.
  std::vector<std::string> short_run = step;
  short_run.insert(short_run.end(), {"--time", "30s", "--ops", "1000"});
  const CliResult quick = run_ranked(2, short_run);
  INFO(quick.err);
  REQUIRE(quick.exit_code == 0);
  CHECK(Json::parse(quick.out).at("steps").at(0).at("phases").at(0).at("ops") == 2000);
}

TEST_CASE("mpirun -n 2: dbench's Throughput line counts the clients of every rank", "[mpi]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  const CliResult result =
      run_ranked(2, {"run", "dbench", "-d", dir.path().string(), "procs=2",
                     "loadfile=" + tiny_loadfile_path(), "--time", "1s", "--warmup", "0", "-q"});
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(count_of(result.out, "\nThroughput ") == 1);
  CHECK_THAT(result.out, Catch::Contains(" MB/sec  4 clients  4 procs  max_latency="));
}

TEST_CASE("mpirun -n 2: ranks writing beside each other share their device once in the explanation",
          "[mpi][explain]") {
  SKIP_WITHOUT_MPIRUN();
  TempDir dir("mpi");
  const CliResult result = run_ranked(2, {"run", "disk", "-d", dir.path().string(), "size=1m",
                                          "bs=4k", "operation=write", "-q", "--format", "json"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const Json j = Json::parse(result.out);
  const Json& merged = j.at("steps").at(0).at("phases").at(0).at("explain");
  const Json& results = j.at("ranks").at("steps").at(0).at("results");
  REQUIRE(results.size() == 2);
  // Each rank explains its own target; the aggregate holds both chains in target order.
  REQUIRE(merged.at("storage").size() == 2);
  std::vector<Json> own;
  for (std::size_t r = 0; r < 2; ++r) {
    own.push_back(results.at(r).at("steps").at(0).at("phases").at(0).at("explain"));
    REQUIRE(own[r].at("storage").size() == 1);
    CHECK(merged.at("storage").at(r) == own[r].at("storage").at(0));
  }
  CHECK(merged.at("application").at("write_bytes") == 2u << 20);
  CHECK(merged.at("application").at("workers") == 2);
  const Json& chain = merged.at("storage").at(0);
  if (chain.at("devices").empty()) {  // a temp dir without a block device (tmpfs)
    CHECK(merged.at("devices").empty());
    CHECK(merged.at("derived").at("device_write_bytes") == 0);
    return;
  }
  // One host: the file system's device appears once, in both targets' chains, with the counts
  // of the rank whose snapshots spanned longest.
  const std::string name = chain.at("devices").at(0).at("name").get<std::string>();
  std::size_t seen = 0;
  for (const Json& d : merged.at("devices")) {
    if (d.at("name") != name) continue;
    ++seen;
    CHECK(d.at("targets") == Json::array({0, 1}));
    const std::size_t longer = own[1].at("interval_ns") > own[0].at("interval_ns") ? 1 : 0;
    for (const Json& theirs : own[longer].at("devices")) {
      if (theirs.at("name") == name) CHECK(d.at("write_bytes") == theirs.at("write_bytes"));
    }
  }
  CHECK(seen == 1);
  CHECK(merged.at("derived").at("shared_device") == true);
  bool shared = false;
  for (const Json& f : merged.at("findings")) shared = shared || f.at("name") == "shared_device";
  CHECK(shared);
}
