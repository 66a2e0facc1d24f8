// The aggregate's explanation over ranks (issue 29), as a pure function: hand-made rank results
// whose explanations come from explain_phase over crafted diskstats snapshots, exact figures.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/explain.hpp>
#include <iobench/rank_results.hpp>
#include <nlohmann/json.hpp>
#include <string>

using namespace iobench;

namespace {

constexpr std::uint64_t kRankMiB = 1024 * 1024;

// Rank `rank` on `host` wrote `app_bytes` to its one target, ext4 on loop0 (over vda), while its
// snapshots `interval_ns` apart saw loop0 write `device_bytes`.
RankStep writing_rank(int rank, const std::string& host, std::uint64_t app_bytes,
                      std::uint64_t device_bytes, std::uint64_t interval_ns) {
  RankStep r;
  r.rank = rank;
  r.environment.hostname = host;
  r.step.name = "disk";
  r.step.workload = "disk";
  r.step.targets = {"/mnt/r" + std::to_string(rank)};
  PhaseResult phase;
  phase.name = "write";
  phase.op_names = {"write"};
  phase.ops.resize(1);
  phase.ops[0].record(app_bytes, 1000);
  phase.wall_ns = interval_ns;
  explain::StorageChain chain;
  chain.path = r.step.targets[0];
  chain.mount_point = "/mnt";
  chain.fs_type = "ext4";
  chain.devices = {{.name = "loop0", .device = "7:0", .role = "filesystem"},
                   {.name = "vda", .device = "254:0", .role = "loop backing"}};
  explain::SystemSnapshot start;
  start.disks.push_back({.major = 7, .minor = 0, .name = "loop0"});
  explain::SystemSnapshot end;
  end.time_ns = interval_ns;
  end.disks.push_back({.major = 7,
                       .minor = 0,
                       .name = "loop0",
                       .writes_completed = device_bytes / 4096,
                       .sectors_written = device_bytes / 512,
                       .write_time_ms = 10,
                       .io_time_ms = 100,
                       .weighted_io_time_ms = 100});
  const explain::ApplicationFigures app{.write_bytes = app_bytes,
                                        .target_read_bytes = {0},
                                        .target_write_bytes = {app_bytes},
                                        .workers = 1};
  phase.explanation = explain::explain_phase({chain}, start, end, app);
  r.step.phases.push_back(phase);
  r.windows.push_back({.start_ns = 1, .end_ns = 1 + static_cast<std::int64_t>(interval_ns)});
  return r;
}

bool has_finding(const explain::PhaseExplanation& e, const std::string& name) {
  for (const explain::Finding& f : e.findings) {
    if (f.name == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("ranks on one host sharing a device count it once with both targets", "[mpi][explain]") {
  // Both ranks wrote 4 MiB through loop0; each one's snapshots saw both ranks' writes over its
  // own window: rank 0 (2.0 s) all 8 MiB, rank 1 (1.9 s) 7.5 MiB of them.
  const RankedStep ranked = aggregate_ranks(
      {writing_rank(0, "node", 4 * kRankMiB, 8 * kRankMiB, 2'000'000'000),
       writing_rank(1, "node", 4 * kRankMiB, 7 * kRankMiB + kRankMiB / 2, 1'900'000'000)});
  const PhaseResult& phase = ranked.aggregate.phases.at(0);
  REQUIRE(phase.explanation);
  const explain::PhaseExplanation& e = *phase.explanation;
  REQUIRE(e.chains.size() == 2);
  CHECK(e.chains[0].path == "/mnt/r0");
  CHECK(e.chains[1].path == "/mnt/r1");
  REQUIRE(e.devices.size() == 1);  // vda has no counters in the snapshots
  CHECK(e.devices[0].name == "loop0");
  CHECK(e.devices[0].write_bytes == 8 * kRankMiB);  // the longer window's, not 15.5 MiB
  CHECK(e.devices[0].targets == std::vector<std::size_t>{0, 1});
  CHECK(e.interval_ns == 2'000'000'000);
  CHECK(e.application.write_bytes == 8 * kRankMiB);
  CHECK(e.application.target_write_bytes == std::vector<std::uint64_t>{4 * kRankMiB, 4 * kRankMiB});
  CHECK(e.application.workers == 2);
  CHECK(e.device_write_bytes == 8 * kRankMiB);
  REQUIRE(e.write_amplification);
  CHECK(*e.write_amplification == Approx(1.0));
  CHECK(e.shared_device);
  CHECK(has_finding(e, "shared_device"));
  CHECK(has_finding(e, "writes_reached_device"));
  // Each rank keeps its own explanation; the JSON's per-rank rows name their findings.
  CHECK(ranked.ranks[1].step.phases[0].explanation->devices.at(0).write_bytes ==
        7 * kRankMiB + kRankMiB / 2);
  const nlohmann::json j = nlohmann::json::parse(
      add_ranks_to_json(R"({"steps": []})", std::span<const RankedStep>(&ranked, 1)));
  const nlohmann::json& per_rank = j["ranks"]["steps"][0]["phases"][0]["per_rank"];
  REQUIRE(per_rank.size() == 2);
  // Rank 1 alone: its device wrote 7.5 MiB of its 4 MiB (the other rank's share with it).
  const nlohmann::json& findings = per_rank[1]["findings"];
  CHECK(std::find(findings.begin(), findings.end(), "write_amplification") != findings.end());
  CHECK(*ranked.ranks[1].step.phases[0].explanation->write_amplification == Approx(1.875));
}

TEST_CASE("ranks on several hosts keep their devices apart by host", "[mpi][explain]") {
  const RankedStep ranked =
      aggregate_ranks({writing_rank(0, "a", 4 * kRankMiB, 4 * kRankMiB, 1'000'000'000),
                       writing_rank(1, "b", 2 * kRankMiB, 2 * kRankMiB, 1'000'000'000)});
  const explain::PhaseExplanation& e = *ranked.aggregate.phases.at(0).explanation;
  REQUIRE(e.devices.size() == 2);
  CHECK(e.devices[0].name == "a:loop0");
  CHECK(e.devices[1].name == "b:loop0");
  CHECK(e.devices[1].targets == std::vector<std::size_t>{1});
  CHECK(e.chains[1].devices.at(0).name == "b:loop0");
  CHECK(e.device_write_bytes == 6 * kRankMiB);
  CHECK_FALSE(e.shared_device);
  CHECK_FALSE(has_finding(e, "shared_device"));
  CHECK(has_finding(e, "writes_reached_device"));
}

TEST_CASE("a rank without an explanation leaves the aggregate without one", "[mpi][explain]") {
  RankStep old = writing_rank(1, "node", 4 * kRankMiB, 4 * kRankMiB, 1'000'000'000);
  old.step.phases[0].explanation.reset();
  const RankedStep ranked =
      aggregate_ranks({writing_rank(0, "node", 4 * kRankMiB, 4 * kRankMiB, 1'000'000'000), old});
  CHECK_FALSE(ranked.aggregate.phases.at(0).explanation);
}
