// The --live view's numbers and layout, and --live-csv's lines, from given snapshots.
#include "live_view.hpp"

#include <catch2/catch.hpp>
#include <iobench/runner.hpp>
#include <string>
#include <vector>

#include "live_csv.hpp"

using iobench::ProgressState;
using iobench::SeriesLatency;
using iobench::SuiteProgress;
using iobench::WorkerProgress;
using iobench::cli::LiveFrame;
using iobench::cli::LiveRates;

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

// A two-worker "write" phase (2 of 3) of step 1/2 "seq" at `time_s` into the suite.
SuiteProgress two_workers(std::uint64_t time_ms, std::uint64_t bytes0, std::uint64_t bytes1,
                          bool state_changed = false) {
  SuiteProgress p;
  p.suite_elapsed_ns = time_ms * 1'000'000;
  p.eta_ns = 90'000'000'000;
  p.phase.step_index = 0;
  p.phase.step_count = 2;
  p.phase.step_name = "seq";
  p.phase.phase_name = "write";
  p.phase.phase_index = 1;
  p.phase.phase_count = 3;
  p.phase.state = ProgressState::kMeasuring;
  p.phase.state_changed = state_changed;
  p.phase.done_fraction = 0.25;
  p.phase.phase_left_ns = 30'000'000'000;
  p.phase.bytes = bytes0 + bytes1;
  p.phase.ops = (bytes0 + bytes1) / 4096;
  p.phase.interval_latency_ns =
      SeriesLatency{.mean = 60, .max = 900, .p50 = 50'000, .p99 = 120'500, .p99_9 = 300'000};
  p.phase.worker_progress = {
      WorkerProgress{
          .worker = 0,
          .bytes = bytes0,
          .ops = bytes0 / 4096,
          .interval_latency_ns = SeriesLatency{.p50 = 40'000, .p99 = 100'000, .p99_9 = 200'000}},
      WorkerProgress{.worker = 1, .bytes = bytes1, .ops = bytes1 / 4096, .in_fsync = true}};
  return p;
}

}  // namespace

TEST_CASE("live rates come from two interval snapshots, per worker and in total", "[live]") {
  LiveRates rates;
  const LiveFrame first = rates.update(two_workers(1000, 10 * kMiB, 4 * kMiB));
  REQUIRE(first.workers.size() == 2);
  CHECK_FALSE(first.workers[0].bytes_per_s.has_value());  // one snapshot: no rate yet
  CHECK_FALSE(first.total.bytes_per_s.has_value());
  // 500 ms later: worker 0 wrote 5 MiB more (10 MiB/s), worker 1 1 MiB (2 MiB/s).
  const LiveFrame second = rates.update(two_workers(1500, 15 * kMiB, 5 * kMiB));
  CHECK(*second.workers[0].bytes_per_s == Approx(10.0 * kMiB));
  CHECK(*second.workers[0].ops_per_s == Approx(2560.0));
  CHECK(*second.workers[1].bytes_per_s == Approx(2.0 * kMiB));
  CHECK(*second.total.bytes_per_s == Approx(12.0 * kMiB));
  CHECK(second.total.bytes == 20 * kMiB);
  CHECK(second.workers[0].state == "measuring");
  CHECK(second.workers[1].state == "fsync");
  // A state change reported at once (100 ms on) keeps the interval's rates.
  const LiveFrame change = rates.update(two_workers(1600, 16 * kMiB, 5 * kMiB, true));
  CHECK(*change.workers[0].bytes_per_s == Approx(10.0 * kMiB));
  // The next interval measures from the last interval snapshot (1500 ms): 6 MiB in 1 s.
  const LiveFrame third = rates.update(two_workers(2500, 21 * kMiB, 5 * kMiB));
  CHECK(*third.workers[0].bytes_per_s == Approx(6.0 * kMiB));
  CHECK(*third.workers[1].bytes_per_s == Approx(0.0));
  // Another phase starts anew: no rate from the last phase's counters.
  SuiteProgress next = two_workers(3000, 1 * kMiB, 1 * kMiB);
  next.phase.phase_index = 2;
  next.phase.phase_name = "read";
  const LiveFrame other = rates.update(next);
  CHECK_FALSE(other.workers[0].bytes_per_s.has_value());
  CHECK_FALSE(other.total.bytes_per_s.has_value());
}

TEST_CASE("a worker that has ended shows done", "[live]") {
  LiveRates rates;
  SuiteProgress p = two_workers(1000, kMiB, kMiB);
  p.phase.worker_progress[0].ended = true;
  const LiveFrame frame = rates.update(p);
  CHECK(frame.workers[0].state == "done");
  CHECK(frame.workers[1].state == "fsync");
  CHECK(frame.total.state == "measuring");
}

TEST_CASE("the live screen's rows", "[live]") {
  LiveRates rates;
  (void)rates.update(two_workers(1000, 10 * kMiB, 4 * kMiB));
  const LiveFrame frame = rates.update(two_workers(1500, 15 * kMiB, 5 * kMiB));
  const std::vector<std::string> lines = iobench::cli::live_screen_lines(frame, 120, 30);
  const std::vector<std::string> expected = {
      "iobench  step 1/2 seq  phase 2/3 write  measuring  elapsed 1.5s  25% done  ETA 1m30s",
      "",
      "worker state          MiB/s       IOPS    p50 us    p99 us  p99.9 us        done",
      "     0 measuring       10.0       2560      40.0     100.0     200.0    15.0 MiB",
      "     1 fsync            2.0        512         -         -         -     5.0 MiB",
      " total measuring       12.0       3072      50.0     120.5     300.0    20.0 MiB"};
  CHECK(lines == expected);
  // Narrow: every line cut at the width.
  for (const std::string& line : iobench::cli::live_screen_lines(frame, 40, 30)) {
    CHECK(line.size() <= 40);
  }
}

TEST_CASE("a short screen keeps the total row and says how many workers are left out", "[live]") {
  LiveRates rates;
  SuiteProgress p = two_workers(1000, kMiB, kMiB);
  for (std::size_t w = 2; w < 10; ++w) {
    p.phase.worker_progress.push_back(WorkerProgress{.worker = w, .bytes = 4096, .ops = 1});
  }
  const LiveFrame frame = rates.update(p);
  // 8 lines: header, blank, heads, total leave 4: 3 workers and the note.
  const std::vector<std::string> lines = iobench::cli::live_screen_lines(frame, 100, 8);
  REQUIRE(lines.size() == 8);
  CHECK(lines[3].rfind("     0 ", 0) == 0);
  CHECK(lines[5].rfind("     2 ", 0) == 0);
  CHECK(lines[6] == "   ... 7 more workers");
  CHECK(lines[7].rfind(" total ", 0) == 0);
  CHECK(lines[7].find("2.0 MiB") != std::string::npos);
}

TEST_CASE("live CSV lines: a row per worker and a total row, plain decimals", "[live]") {
  LiveRates rates;
  (void)rates.update(two_workers(1000, 10 * kMiB, 4 * kMiB));
  SuiteProgress p = two_workers(1500, 15 * kMiB, 5 * kMiB);
  p.phase.step_name = "seq, big";
  const LiveFrame frame = rates.update(p);
  CHECK(iobench::cli::live_csv_header() ==
        "time_s,step,step_name,repetition,phase,worker,state,bytes,ops,throughput_MiB_per_s,"
        "iops,latency_p50_us,latency_p99_us,latency_p99_9_us,phase_left_s,eta_s\n");
  CHECK(iobench::cli::live_csv_lines(frame) ==
        "1.500,1,\"seq, big\",1,write,0,measuring,15728640,3840,10.000,2560.000,40.000,100.000,"
        "200.000,30.000,90.000\n"
        "1.500,1,\"seq, big\",1,write,1,fsync,5242880,1280,2.000,512.000,,,,30.000,90.000\n"
        "1.500,1,\"seq, big\",1,write,total,measuring,20971520,5120,12.000,3072.000,50.000,"
        "120.500,300.000,30.000,90.000\n");
}

TEST_CASE("live durations", "[live]") {
  CHECK(iobench::cli::live_duration(500'000'000) == "0.5s");
  CHECK(iobench::cli::live_duration(42'000'000'000) == "42s");
  CHECK(iobench::cli::live_duration(185'000'000'000) == "3m05s");
  CHECK(iobench::cli::live_duration(3'720'000'000'000) == "1h02m");
}
