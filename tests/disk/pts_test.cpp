// SNIA PTS 2.0 tests (workload pts, suites pts-iops, pts-throughput, pts-latency, pts-wsat,
// pts-dirth) on a small file: PTS's steady-state rule on constructed rounds, every cell of the
// matrices measured, the reported window and matrix recomputed from the JSON's rounds,
// not-PTS-valid marking, and the params refused before any I/O.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iobench/error.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plugins/disk/pts_config.hpp"
#include "plugins/disk/pts_rounds.hpp"
#include "tests/disk/pts_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::disk;
using namespace iobench::pts_test;

namespace {

// A phase that did `ops` ops of `bytes_per_op` bytes in one second, with latencies `latency_ns`.
PhaseResult phase_of(std::uint64_t ops, std::uint64_t bytes_per_op, std::uint64_t latency_ns) {
  PhaseResult phase;
  phase.op_names = {"read", "write"};
  phase.ops.resize(2);
  for (std::uint64_t i = 0; i < ops; ++i) phase.ops[1].record(bytes_per_op, latency_ns);
  phase.wall_ns = 1'000'000'000;
  return phase;
}

}  // namespace

TEST_CASE("pts rounds are judged by PTS's rule on the tracked cell", "[disk][pts]") {
  PtsRounds rounds(2, 1, PtsTracking::kIops);
  // Tracked IOPS per round: 50, then 100 five times; the other cell 10 x round.
  const std::vector<std::uint64_t> tracked{50, 100, 100, 100, 100, 100};
  for (std::size_t r = 0; r < tracked.size(); ++r) {
    rounds.record(0, phase_of(10 * (r + 1), 4096, 1000));
    rounds.record(1, phase_of(tracked[r], 4096, 2000 + r));
    const bool steady = rounds.end_round();
    // Round 5's window (50, 100 x 4): excursion 50 / 90 = 55.6 % > 20 %; round 6's is flat.
    CHECK(steady == (r + 1 == 6));
    if (r + 1 == 5) {
      REQUIRE(rounds.figures().has_value());
      CHECK(rounds.figures()->data_excursion_percent == Approx(50.0 / 90.0 * 100));
      CHECK(rounds.figures()->window_mean == Approx(90));
      CHECK(*rounds.window_first_round() == 1);
    }
  }
  CHECK(rounds.tracked_series() == std::vector<double>{50, 100, 100, 100, 100, 100});
  CHECK(*rounds.window_first_round() == 2);
  CHECK(rounds.window_last_round() == 6);
  CHECK(rounds.figures()->data_excursion_percent == 0);
  CHECK(rounds.figures()->fit_excursion_percent == 0);
  // The other cell over rounds 2-6: IOPS 20..60, mean 40; 200 ops of 4 KiB.
  const PtsCellWindow other = rounds.window_of(0);
  CHECK(other.iops == Approx(40));
  CHECK(other.ops == 200);
  CHECK(other.bytes == 200 * 4096);
  // The tracked cell's latency over its window: 2001..2005 ns, 100 ops each: mean 2003.
  const PtsCellWindow mine = rounds.window_of(1);
  CHECK(mine.mean_latency_ns == Approx(2003));
  CHECK(mine.max_latency_ns == 2005);
  // After steady, more rounds do not move the window.
  rounds.record(0, phase_of(1, 4096, 1));
  rounds.record(1, phase_of(1, 4096, 1));
  CHECK(rounds.end_round());
  CHECK(rounds.window_last_round() == 6);
}

TEST_CASE("pts rounds: a window whose best-fit line drifts past 10 % is not steady",
          "[disk][pts]") {
  PtsRounds rounds(1, 0, PtsTracking::kIops);
  // 100, 103, 106, 109, 112: data excursion 12/106 = 11.3 %, fit 3 x 4 / 106 = 11.3 %.
  for (const std::uint64_t iops : {100, 103, 106, 109, 112}) {
    rounds.record(0, phase_of(iops, 512, 1));
    CHECK_FALSE(rounds.end_round());
  }
  CHECK(rounds.figures()->fit_excursion_percent == Approx(12.0 / 106.0 * 100));
  CHECK(rounds.figures()->data_excursion_percent == Approx(12.0 / 106.0 * 100));
}

TEST_CASE("pts mixes are R/W percentages adding up to 100", "[disk][pts]") {
  CHECK(parse_mixes("100/0,95/5,65/35,50/50,35/65,5/95,0/100") ==
        std::vector<std::uint32_t>{100, 95, 65, 50, 35, 5, 0});
  for (const char* bad : {"", "70/20", "65-35", "65/35,", "x/100", "65/35,65/35", "101/-1"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_mixes(bad), Catch::Contains("pts: mixes="));
  }
  CHECK(pts_block_size_text(512) == "0.5KiB");
  CHECK(pts_block_size_text(4096) == "4KiB");
  CHECK(pts_block_size_text(1 << 20) == "1024KiB");
}

TEST_CASE("pts-iops on a small file measures every cell, its figures follow from its rounds",
          "[disk][pts]") {
  test::TempDir dir("pts-iops");
  std::string text;
  const Json doc = run_json(
      dir,
      {"run", "pts-iops", "-d", dir.path().string(), "capacity=2m", "round_time=100ms", "rounds=5"},
      &text);
  const Json& step = doc.at("steps").at(0);
  check_step(step, {"100/0", "95/5", "65/35", "50/50", "35/65", "5/95", "0/100"},
             {1 << 20, 128 << 10, 64 << 10, 32 << 10, 16 << 10, 8 << 10, 4 << 10, 512}, "RND",
             "0/100", 4096, "ops_per_s");
  // A file and a short round; rounds=5 counts only when the 5 rounds were not steady.
  const bool steady = text_attribute(step, "pts.steady") == "yes";
  const std::string reasons =
      std::string("a file target, not the raw device; round_time=100ms (PTS: 1 minute per cell)") +
      (steady ? "" : "; rounds=5: not steady within PTS's 25 rounds");
  CHECK(text_attribute(step, "pts.valid") == "no");
  CHECK(text_attribute(step, "pts.not_valid") == reasons);
  CHECK(attribute(step, "pts.condition.capacity_bytes") == 2 << 20);
  CHECK(text_attribute(step, "pts.condition.purge").starts_with("none (a file target"));
  CHECK(attribute(step, "pts.condition.oio") == 1);
  // The text report: validity, conditions, the window and the matrix.
  CHECK_THAT(text, Catch::Contains("not PTS-valid: " + reasons + "\n"));
  CHECK_THAT(text, Catch::Contains("capacity:         2097152 bytes"));
  CHECK_THAT(text, Catch::Contains("threads/QD/OIO:   TC1 QD1 (OIO 1)"));
  CHECK_THAT(text, Catch::Contains("Steady state, tracking RND 4KiB 0/100 IOPS (5 rounds run"));
  CHECK_THAT(text, Catch::Contains("window rounds 1-5: mean "));
  CHECK_THAT(text, Catch::Contains(steady ? "steady: yes after 5 rounds" : "steady: no"));
  CHECK_THAT(text, Catch::Contains("IOPS, mean over rounds 1-5:"));
  CHECK_THAT(text, Catch::Contains("     0.5KiB"));
  check_wdpc(step, text);
  CHECK(dir.entries().empty());
}

TEST_CASE("pts runs workload-dependent preconditioning rounds until PTS's rule finds steady state",
          "[disk][pts]") {
  test::TempDir dir("pts-wdpc");
  std::string text;
  // Throughput at 128 KiB: rounds of SEQ 100/0 and 0/100 until the 0/100 throughput is steady,
  // at most PTS's 25 rounds (2 cells x 50 ms each).
  const std::vector<std::string> run{"run",
                                     "pts",
                                     "-d",
                                     dir.path().string(),
                                     "test=throughput",
                                     "block_sizes=128k",
                                     "capacity=1m",
                                     "round_time=50ms"};
  const Json doc = run_json(dir, run, &text);
  const Json& step = doc.at("steps").at(0);
  check_step(step, {"100/0", "0/100"}, {128 << 10}, "SEQ", "0/100", 128 << 10,
             "throughput_bytes_per_s");
  CHECK(attribute(step, "pts.max_rounds") == 25);
  check_wdpc(step, text);
  CHECK(text_attribute(step, "pts.not_valid") ==
        "a file target, not the raw device; round_time=50ms (PTS: 1 minute per cell)");

  // wdpc=false: the 5 window rounds only, steady or not, and not PTS-valid for it.
  std::vector<std::string> off = run;
  off.emplace_back("wdpc=false");
  const Json none = run_json(dir, off, &text);
  const Json& quick = none.at("steps").at(0);
  check_step(quick, {"100/0", "0/100"}, {128 << 10}, "SEQ", "0/100", 128 << 10,
             "throughput_bytes_per_s");
  CHECK(attribute(quick, "pts.rounds") == 5);
  CHECK(attribute(quick, "pts.max_rounds") == 5);
  CHECK(quick.at("phases").size() == 10);
  CHECK(text_attribute(quick, "pts.wdpc") == "no");
  CHECK_FALSE(quick.at("attributes").contains("pts.wdpc.rounds"));
  const std::string steady = text_attribute(quick, "pts.steady");
  const std::string wdpc =
      "none (wdpc=false): 5 rounds measured without running to steady state (window rounds 1-5, "
      "steady: " +
      steady + ")";
  CHECK(text_attribute(quick, "pts.condition.wdpc") == wdpc);
  CHECK(text_attribute(quick, "pts.not_valid") ==
        "a file target, not the raw device; wdpc=false (PTS: workload-dependent "
        "preconditioning, the rounds run until steady); round_time=50ms (PTS: 1 minute per "
        "cell)");
  CHECK_THAT(text, Catch::Contains("  workload-dependent preconditioning: " + wdpc + "\n"));
  CHECK(dir.entries().empty());
}

TEST_CASE("pts-throughput and pts-latency on a small file", "[disk][pts]") {
  test::TempDir dir("pts-tp-lat");
  std::string text;
  const Json tp = run_json(dir,
                           {"run", "pts-throughput", "-d", dir.path().string(), "capacity=4m",
                            "round_time=100ms", "rounds=5"},
                           &text);
  REQUIRE(tp.at("steps").size() == 2);
  check_step(tp.at("steps").at(0), {"100/0", "0/100"}, {128 << 10}, "SEQ", "0/100", 128 << 10,
             "throughput_bytes_per_s");
  check_step(tp.at("steps").at(1), {"100/0", "0/100"}, {1 << 20}, "SEQ", "0/100", 1 << 20,
             "throughput_bytes_per_s");
  CHECK_THAT(text, Catch::Contains("Throughput, MB/s (10^6 bytes/s), mean over rounds 1-5:"));
  const Json lat = run_json(dir,
                            {"run", "pts-latency", "-d", dir.path().string(), "capacity=1m",
                             "round_time=100ms", "rounds=5"},
                            &text);
  const Json& step = lat.at("steps").at(0);
  check_step(step, {"100/0", "65/35", "0/100"}, {512, 4096, 8192}, "RND", "0/100", 4096, "mean_ns");
  CHECK(attribute(step, "pts.condition.threads") == 1);
  CHECK(attribute(step, "pts.condition.queue_depth") == 1);
  // The max latency over the window is the largest of the window rounds' maxima.
  for (const char* mix : {"100/0", "65/35", "0/100"}) {
    std::uint64_t max = 0;
    for (int round = 1; round <= 5; ++round) {
      const Json& phase = phase_named(step, fmt::format("round {} RND 4KiB {}", round, mix));
      for (const auto& [kind, op] : phase.at("ops_by_kind").items()) {
        if (op.at("ops").get<std::uint64_t>() > 0) {
          max = std::max(max, op.at("latency_ns").at("max").get<std::uint64_t>());
        }
      }
    }
    CHECK(attribute(step, fmt::format("pts.cell.{}.4096.max_latency_ns", mix)) ==
          static_cast<double>(max));
  }
  CHECK_THAT(text, Catch::Contains("p99 latency, ms, over rounds 1-5:"));
  CHECK(dir.entries().empty());
}

TEST_CASE("pts refuses bad params with exit 2 naming the field, before any I/O", "[disk][pts]") {
  test::TempDir dir("pts-refuse");
  const std::string d = dir.path().string();
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases{
      {{"run", "pts-iops", "-d", d, "capacity=2m", "mixes=100/0,70/20,0/100"},
       "pts: mixes=100/0,70/20,0/100: '70/20' is not a R/W mix"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "round_time=0"}, "pts: round_time=0:"},
      {{"run", "pts-latency", "-d", d, "capacity=1000t"},
       "pts: capacity=1000t is bigger than the "
       "free space of target"},
      {{"run", "pts-iops", "-d", d}, "pts: capacity: a directory target needs capacity=SIZE"},
      {{"run", "pts-iops", "-d", d, "capacity=1536k"},
       "pts: capacity=1536k must be a whole number (at least 1) of the largest block size"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "mixes=100/0,65/35"},
       "tracks steady state on its 0/100 4KiB cell"},
      {{"run", "pts-latency", "-d", d, "capacity=1m", "iodepth=4"},
       "pts: test=latency runs at one thread and queue depth 1"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "rounds=4"}, "rounds"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "rounds=26"},
       "pts: rounds=26: test=iops stops at PTS's 25 rounds"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "--time", "1s"}, "--time"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "threads=2"},
       "pts: threads=2 is test=dirth's thread count x queue depth grid"},
      {{"run", "pts-dirth", "-d", d, "capacity=1m", "numjobs=2"},
       "pts: numjobs=2: test=dirth sweeps threads= x depths="},
      {{"run", "pts-dirth", "-d", d, "capacity=1m", "threads=1,0"},
       "pts: threads=1,0: '0' is not a count from 1 to 1024"},
      {{"run", "pts-dirth", "-d", d, "capacity=1m", "depths=2,2"},
       "pts: depths=2,2: '2' is given twice"},
      {{"run", "pts-dirth", "-d", d, "capacity=1m", "block_sizes=4k,8k"},
       "pts: test=dirth runs one R/W mix at one block size"},
      {{"run", "pts-dirth", "-d", d, "capacity=1m", "depths=1,4", "--engine", "psync"},
       "iodepth=4: engine psync does one I/O at a time"},
      {{"run", "pts-iops", "-d", d, "capacity=2m", "wdpc=false", "rounds=7"},
       "pts: wdpc=false runs the 5 rounds of the steady-state window only, but rounds=7 is given"},
      {{"run", "pts-wsat", "-d", d, "capacity=1m", "wdpc=false"},
       "pts: wdpc=false with test=wsat: WSAT has no workload-dependent preconditioning"},
  };
  for (const Case& c : cases) {
    INFO(fmt::format("{}", fmt::join(c.args, " ")));
    const test::CliResult result = test::run_cli(c.args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("pts-wsat writes until 4 x capacity, its IOPS per round over the bytes written",
          "[disk][pts]") {
  test::TempDir dir("pts-wsat");
  std::string text;
  const Json doc = run_json(
      dir, {"run", "pts-wsat", "-d", dir.path().string(), "capacity=1m", "round_time=100ms"},
      &text);
  const Json& step = doc.at("steps").at(0);
  REQUIRE(step.at("status") == "ok");
  const auto rounds = static_cast<std::size_t>(attribute(step, "pts.rounds"));
  REQUIRE(step.at("phases").size() == rounds);
  constexpr std::uint64_t kTarget = 4 << 20;
  CHECK(attribute(step, "pts.wsat.target_bytes") == kTarget);
  std::uint64_t written = 0;
  for (std::size_t round = 1; round <= rounds; ++round) {
    const Json& phase = phase_named(step, fmt::format("round {} RND 4KiB 0/100", round));
    const auto ops = phase.at("ops").get<std::uint64_t>();
    CHECK(ops > 0);
    CHECK(phase.at("bytes").get<std::uint64_t>() == ops * 4096);
    CHECK(phase.at("ops_by_kind").at("read").at("ops") == 0);
    // Every round before the last left less than 4 x capacity written.
    if (round < rounds) {
      CHECK(written + phase.at("bytes").get<std::uint64_t>() < kTarget);
    }
    written += phase.at("bytes").get<std::uint64_t>();
    CHECK(attribute(step, fmt::format("pts.round.{}.written_bytes", round)) ==
          static_cast<double>(written));
    CHECK(attribute(step, fmt::format("pts.round.{}.tracked", round)) ==
          Approx(phase.at("ops_per_s").get<double>()).epsilon(1e-9));
  }
  CHECK(written >= kTarget);
  CHECK(attribute(step, "pts.wsat.written_bytes") == static_cast<double>(written));
  CHECK(text_attribute(step, "pts.not_valid") ==
        "a file target, not the raw device; round_time=100ms (PTS: 1 minute per cell)");
  CHECK(text_attribute(step, "pts.wdpc") == "no");
  CHECK_THAT(text,
             Catch::Contains(
                 "  workload-dependent preconditioning: none (WSAT: its rounds are the test)"));
  CHECK_THAT(text, Catch::Contains("SNIA PTS 2.0 write saturation (WSAT) test"));
  CHECK_THAT(text, Catch::Contains(fmt::format(
                       "written {} bytes of the 4194304 (4 x capacity) WSAT writes", written)));
  CHECK(dir.entries().empty());
}

TEST_CASE("pts-dirth on a small file runs every TC x QD cell, largest OIO first", "[disk][pts]") {
  test::TempDir dir("pts-dirth");
  std::string text;
  const Json doc = run_json(dir,
                            {"run", "pts-dirth", "-d", dir.path().string(), "capacity=1m",
                             "round_time=100ms", "rounds=5", "threads=1,2", "depths=1,4"},
                            &text);
  const Json& step = doc.at("steps").at(0);
  REQUIRE(step.at("status") == "ok");
  const auto rounds = static_cast<std::size_t>(attribute(step, "pts.rounds"));
  REQUIRE(rounds == 5);
  // Each round: OIO 8, 4, 2, 1 (TC x QD), every cell with TC workers writing 4 KiB blocks.
  const std::vector<std::pair<int, int>> order{{2, 4}, {1, 4}, {2, 1}, {1, 1}};
  REQUIRE(step.at("phases").size() == rounds * order.size());
  for (std::size_t round = 1; round <= rounds; ++round) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto [threads, depth] = order[i];
      const Json& phase = step.at("phases").at((round - 1) * order.size() + i);
      CHECK(phase.at("name") ==
            fmt::format("round {} RND 4KiB 0/100 TC{} QD{}", round, threads, depth));
      CHECK(phase.at("workers").size() == static_cast<std::size_t>(threads));
      const auto ops = phase.at("ops").get<std::uint64_t>();
      CHECK(ops > 0);
      CHECK(phase.at("bytes").get<std::uint64_t>() == ops * 4096);
      CHECK(phase.at("ops_by_kind").at("read").at("ops") == 0);
    }
  }
  // Each cell's IOPS is the mean of its window rounds, its histogram holds their ops; the
  // tracked series is the largest OIO's IOPS.
  struct Cell {
    int threads;
    int depth;
    double iops;
    double mean_latency_ns;
  };
  std::vector<Cell> cells;
  std::vector<double> series;
  for (const auto& [threads, depth] : order) {
    double iops = 0;
    for (std::size_t round = 1; round <= rounds; ++round) {
      const Json& phase = phase_named(
          step, fmt::format("round {} RND 4KiB 0/100 TC{} QD{}", round, threads, depth));
      iops += phase.at("ops_per_s").get<double>() / 5;
      if (threads == 2 && depth == 4) series.push_back(phase.at("ops_per_s").get<double>());
    }
    const std::string key = fmt::format("pts.cell.TC{}.QD{}", threads, depth);
    CHECK(attribute(step, key + ".iops") == Approx(iops).epsilon(1e-9));
    cells.push_back({threads, depth, iops, attribute(step, key + ".mean_latency_ns")});
  }
  for (std::size_t round = 1; round <= rounds; ++round) {
    CHECK(attribute(step, fmt::format("pts.round.{}.tracked", round)) ==
          Approx(series[round - 1]).epsilon(1e-9));
  }
  CHECK(attribute(step, "pts.window.mean") == Approx(judge(series).mean).epsilon(1e-9));
  // The max-IOPS point is the cell of the largest IOPS; the min response time point the cell
  // of the smallest mean latency.
  const auto max = std::max_element(cells.begin(), cells.end(),
                                    [](const Cell& a, const Cell& b) { return a.iops < b.iops; });
  const auto min = std::min_element(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) {
    return a.mean_latency_ns < b.mean_latency_ns;
  });
  CHECK(attribute(step, "pts.dirth.max_iops.threads") == max->threads);
  CHECK(attribute(step, "pts.dirth.max_iops.queue_depth") == max->depth);
  CHECK(attribute(step, "pts.dirth.max_iops.oio") == max->threads * max->depth);
  CHECK(attribute(step, "pts.dirth.max_iops.iops") == Approx(max->iops).epsilon(1e-9));
  CHECK(attribute(step, "pts.dirth.min_latency.threads") == min->threads);
  CHECK(attribute(step, "pts.dirth.min_latency.queue_depth") == min->depth);
  // The histogram's bins hold every op of the point's window rounds.
  std::uint64_t histogram_ops = 0;
  std::istringstream bins(text_attribute(step, "pts.dirth.max_iops.histogram"));
  for (std::string bin; std::getline(bins, bin, ',');) {
    histogram_ops += std::stoull(bin.substr(bin.find(':') + 1));
  }
  CHECK(histogram_ops ==
        static_cast<std::uint64_t>(
            attribute(step, fmt::format("pts.cell.TC{}.QD{}.ops", max->threads, max->depth))));
  CHECK(text_attribute(step, "pts.not_valid") ==
        "a file target, not the raw device; round_time=100ms (PTS: 1 minute per cell); "
        "threads=1,2; depths=1,4" +
            std::string(text_attribute(step, "pts.steady") == "yes"
                            ? ""
                            : "; rounds=5: not steady within PTS's 25 rounds"));
  // The text table parses back: a row per cell, OIO = TC x QD, its IOPS the cell's.
  CHECK_THAT(text, Catch::Contains("threads/QD/OIO:   TC 1,2 x QD 1,4 (OIO 1-8)"));
  const std::string title = "Demand intensity, mean over rounds 1-5:\n";
  const std::size_t at = text.find(title);
  REQUIRE(at != std::string::npos);
  std::istringstream table(text.substr(at + title.size()));
  std::string header;
  std::getline(table, header);
  CHECK_THAT(header, Catch::Contains("TC") && Catch::Contains("ART ms"));
  double table_max = 0;
  for (const auto& [threads, depth] :
       std::vector<std::pair<int, int>>{{1, 1}, {1, 4}, {2, 1}, {2, 4}}) {
    int tc = 0;
    int qd = 0;
    int oio = 0;
    double iops = 0;
    double art_ms = 0;
    table >> tc >> qd >> oio >> iops >> art_ms;
    table.ignore(1000, '\n');
    CHECK(tc == threads);
    CHECK(qd == depth);
    CHECK(oio == tc * qd);
    const std::string key = fmt::format("pts.cell.TC{}.QD{}", threads, depth);
    CHECK(iops == Approx(attribute(step, key + ".iops")).margin(0.05));
    CHECK(art_ms == Approx(attribute(step, key + ".mean_latency_ns") * 1e-6).margin(0.00005));
    table_max = std::max(table_max, iops);
  }
  CHECK_THAT(text, Catch::Contains(fmt::format("max IOPS point: TC{} QD{} (OIO {}): {:.1f} IOPS",
                                               max->threads, max->depth, max->threads * max->depth,
                                               table_max)));
  CHECK_THAT(text, Catch::Contains(fmt::format(
                       "Response-time histogram at the max IOPS point (TC{} QD{}), rounds 1-5:",
                       max->threads, max->depth)));
  CHECK(dir.entries().empty());
}
