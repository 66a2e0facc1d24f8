// aggregate_ranks and the rank text, as pure functions: hand-made rank results, exact figures.
#include <catch2/catch.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/result_json.hpp>
#include <sstream>

using namespace iobench;

namespace {

// One rank with one phase "write": `ops` writes of 4096 bytes, latencies 1000 + i*rank_step ns,
// measured from `start` for `wall` ns on rank 0's clock, first worker ending at `first_end`.
RankStep rank_of(int rank, std::uint64_t ops, std::uint64_t latency_step, std::int64_t start,
                 std::uint64_t wall, std::uint64_t stonewall) {
  RankStep r;
  r.rank = rank;
  r.environment.hostname = "host" + std::to_string(rank);
  r.step.name = "disk";
  r.step.workload = "disk";
  r.step.targets = {"/t" + std::to_string(rank)};
  r.step.attributes = {{"file.0", std::string("/t" + std::to_string(rank) + "/f")},
                       {"iterations", std::int64_t{1}}};
  PhaseResult phase;
  phase.name = "write";
  phase.op_names = {"write"};
  phase.ops.resize(1);
  for (std::uint64_t i = 0; i < ops; ++i) phase.ops[0].record(4096, 1000 + i * latency_step);
  phase.wall_ns = wall;
  phase.stonewall_ns = stonewall;
  phase.process_cpu = {.user_ns = 10, .system_ns = 20};
  WorkerResult worker;
  worker.ops = phase.ops;
  worker.elapsed_ns = wall;
  phase.workers.push_back(worker);
  r.step.phases.push_back(phase);
  r.windows.push_back({.start_ns = start,
                       .end_ns = start + static_cast<std::int64_t>(wall),
                       .first_end_ns = start + static_cast<std::int64_t>(stonewall)});
  r.clock_residual_ns = static_cast<std::uint64_t>(rank) * 100;
  return r;
}

}  // namespace

TEST_CASE("aggregate_ranks sums, merges and spans the ranks on one clock", "[mpi]") {
  const RankedStep ranked = aggregate_ranks({rank_of(0, 100, 10, 1'000'000, 2'000'000, 2'000'000),
                                             rank_of(1, 300, 7, 1'500'000, 1'000'000, 1'000'000)});
  const PhaseResult& phase = ranked.aggregate.phases.at(0);
  CHECK(phase.total_ops() == 400);
  CHECK(phase.total_bytes() == 400 * 4096);
  // Earliest start 1.0 ms, latest end 3.0 ms; the first worker ended at 2.5 ms.
  CHECK(phase.wall_ns == 2'000'000);
  CHECK(phase.stonewall_ns == 1'500'000);
  CHECK(ranked.phases.at(0).start_skew_ns == 500'000);
  CHECK(phase.process_cpu.user_ns == 20);
  CHECK(phase.process_cpu.system_ns == 40);
  // Percentiles over the union of the ranks' ops.
  OpResult all = rank_of(0, 100, 10, 0, 1, 1).step.phases[0].ops[0];
  all.merge(rank_of(1, 300, 7, 0, 1, 1).step.phases[0].ops[0]);
  for (const double p : {50.0, 99.0}) {
    CHECK(phase.ops[0].latency.percentile(p) == all.latency.percentile(p));
  }
  // Workers and targets appended rank by rank; per-target attributes renumbered.
  REQUIRE(phase.workers.size() == 2);
  CHECK(phase.workers[1].index == 1);
  CHECK(phase.workers[1].target_index == 1);
  CHECK(ranked.aggregate.targets == std::vector<std::string>{"/t0", "/t1"});
  REQUIRE(ranked.aggregate.attribute("file.1") != nullptr);
  CHECK(std::get<std::string>(*ranked.aggregate.attribute("file.1")) == "/t1/f");
  CHECK(std::get<std::string>(*ranked.aggregate.attribute("file.0")) == "/t0/f");
  // Spread: rank 0 moved 409600 B in 2 ms, rank 1 1228800 B in 1 ms.
  const RankSpread& t = ranked.phases[0].throughput_bytes_per_s;
  CHECK(t.min == Approx(204'800'000.0));
  CHECK(t.max == Approx(1'228'800'000.0));
  CHECK(t.mean == Approx(716'800'000.0));
  CHECK(t.stddev == Approx(512'000'000.0));
  CHECK(t.jain == Approx((1.0 + 6.0) * (1.0 + 6.0) / (2.0 * (1.0 + 36.0))));
  CHECK(ranked.clock_residual_ns == 100);
}

TEST_CASE("aggregate_ranks names the rank whose own failure ended the step", "[mpi]") {
  RankStep echo = rank_of(0, 1, 1, 1, 1, 1);
  echo.step.status = Status::kFailed;
  echo.step.message = "stopped because of another rank: rank 1 (host1): ENOSPC";
  RankStep own = rank_of(1, 1, 1, 1, 1, 1);
  own.step.status = Status::kFailed;
  own.step.message = "phase 'write': No space left on device";
  const RankedStep ranked = aggregate_ranks({echo, own});
  CHECK(ranked.aggregate.status == Status::kFailed);
  CHECK(ranked.aggregate.message == "rank 1: phase 'write': No space left on device");
}

TEST_CASE("a rank's text reads back to the same result and windows", "[mpi]") {
  const RankStep sent = rank_of(2, 50, 3, -5000, 7000, 6000);
  const RankStep got = from_rank_text(to_rank_text(sent));
  CHECK(got.rank == 2);
  CHECK(got.environment.hostname == "host2");
  CHECK(got.windows.at(0).start_ns == -5000);
  CHECK(got.windows.at(0).end_ns == 2000);
  CHECK(got.windows.at(0).first_end_ns == 1000);
  CHECK(got.clock_residual_ns == 200);
  CHECK(got.step.phases.at(0).ops.at(0).latency.percentile(99) ==
        sent.step.phases.at(0).ops.at(0).latency.percentile(99));
  CHECK_THROWS_AS(from_rank_text("{\"rank\": 1}"), ResultFormatError);
}

TEST_CASE("the JSON document gains a 'ranks' key and stays readable", "[mpi]") {
  const RankedStep ranked =
      aggregate_ranks({rank_of(0, 10, 1, 0, 100, 100), rank_of(1, 10, 1, 0, 100, 100)});
  RunResult run;
  run.steps.push_back(ranked.aggregate);
  const std::string text = add_ranks_to_json(to_json(run), std::span(&ranked, 1));
  CHECK(parse_result_json(text).run.steps.at(0).phases.at(0).total_ops() == 20);
  CHECK(text.find("\"jain_fairness\"") != std::string::npos);
  std::ostringstream table;
  write_rank_table(ranked, table);
  CHECK(table.str().find("Ranks: 2 (rank=host: 0=host0 1=host1)") == 0);
}
