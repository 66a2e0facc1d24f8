#include "plugins/tiotest/tiobench_report.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"
#include "tests/tiotest/result_builder.hpp"

namespace {

using iobench::PhaseResult;
using iobench::StepResult;
using iobench::plugins::tiotest::aggregate_sweep;
using iobench::plugins::tiotest::PhaseKind;
using iobench::plugins::tiotest::SweepCell;
using iobench::plugins::tiotest::SweepPoint;
using iobench::plugins::tiotest::test::make_phase;
using iobench::plugins::tiotest::test::make_step;

using ::iobench::test::kMiB;

// One phase of one sweep point: `megabytes` MiB in 4096-byte ops.
PhaseResult sweep_phase(const std::string& label, const std::string& suffix,
                        std::uint64_t megabytes, std::uint64_t latency_ns, std::uint64_t wall_ns,
                        std::uint64_t cpu_ns) {
  return make_phase(label + suffix, 4096, {{megabytes * kMiB / 4096, latency_ns}}, wall_ns, cpu_ns,
                    0);
}

std::string tiobench_text(const StepResult& step) {
  std::ostringstream out;
  iobench::plugins::tiotest::format_tiobench_text(step, out);
  return out.str();
}

}  // namespace

TEST_CASE("tiobench row matches the tiobench.pl format") {
  // The row of the reference sample: 32 MB, 4096, 1 thread, 690.25 MB/s, 51.25 % CPU,
  // 0.011 ms average and 8.37 ms maximum latency, CPU efficiency 1347.
  const PhaseResult read =
      make_phase(" ", 4096, {{8191, 9'979}, {1, 8'370'000}}, 46'360'014, 23'759'508, 0);
  SweepCell cell;
  cell.runs = 1;
  cell.bytes = read.ops[0].bytes;
  cell.wall_ns = read.wall_ns;
  cell.cpu_ns_per_thread = 23'759'508;
  cell.ops = read.ops[0].ops;
  cell.latency_sum_ns = read.ops[0].latency.sum();
  cell.latency_max_ns = read.ops[0].latency.max();
  CHECK(iobench::plugins::tiotest::tiobench_row("test", SweepPoint{32, 4096, 1}, cell) ==
        "test                           32    4096    1        690.25 51.25%     0.011        8.37"
        "   0.00000  0.00000    1347");
}

TEST_CASE("tiobench row fills numbers too wide for their field with hashes as Perl does") {
  SweepCell cell;
  cell.runs = 1;
  cell.bytes = 100;
  cell.wall_ns = 1'000'000'000;
  cell.cpu_ns_per_thread = 1e8;  // 10 %
  cell.ops = 4;
  cell.ops_over_2s = 4;  // 100 % does not fit @#.#####
  cell.latency_sum_ns = 4 * 3'000'000'000ULL;
  cell.latency_max_ns = 3'000'000'000ULL;
  const std::string row = iobench::plugins::tiotest::tiobench_row(
      "an identifier longer than twenty-eight characters", SweepPoint{65536, 4096, 128}, cell);
  CHECK(row ==
        "an identifier longer than tw 65536   4096  128          0.00    10%  3000.000     3000.00"
        "  ########  0.00000       0");
}

TEST_CASE("tiobench row prints block sizes sizes and threads whole") {
  // Perl cuts them to their 6- and 3-character fields (8388608 read 838860); iobench prints
  // them whole and the rest of the row moves right.
  SweepCell cell;
  cell.runs = 1;
  cell.bytes = 64 * kMiB;
  cell.wall_ns = 1'000'000'000;
  cell.cpu_ns_per_thread = 5e8;  // 50 %
  cell.ops = 8;
  cell.latency_sum_ns = 8'000'000;
  cell.latency_max_ns = 1'000'000;
  const std::string row =
      iobench::plugins::tiotest::tiobench_row("id", SweepPoint{1048576, 8388608, 4096}, cell);
  CHECK(
      row ==
      "id                           1048576 8388608 4096         64.00    50%     1.000        1.00"
      "   0.00000  0.00000     128");
  std::istringstream fields(row);
  std::string id, size, block, threads;
  fields >> id >> size >> block >> threads;
  CHECK(size == "1048576");
  CHECK(block == "8388608");
  CHECK(threads == "4096");
}

TEST_CASE("tiobench cpu efficiency is not shown for a cpu that rounds to 0") {
  // 1943.8 MiB/s at 0 % CPU: tiobench.pl's rate / (0 + 0.00001) is 194382380, which the text
  // shows as ####### and the CSV printed in full.
  SweepCell cell;
  cell.runs = 1;
  cell.bytes = static_cast<std::uint64_t>(1943.8 * kMiB);
  cell.wall_ns = 1'000'000'000;
  cell.ops = 1;
  cell.cpu_ns_per_thread = 0;
  CHECK_FALSE(cell.cpu_efficiency().has_value());
  cell.cpu_ns_per_thread = 40'000;  // 0.004 %: prints as 0.00
  CHECK_FALSE(cell.cpu_efficiency().has_value());
  const std::string row =
      iobench::plugins::tiotest::tiobench_row("id", SweepPoint{8, 4096, 1}, cell);
  CHECK(row.substr(row.size() - 8) == "       -");
  CHECK(row.find('#') == std::string::npos);
  cell.cpu_ns_per_thread = 1e9;  // 100 %: rate / 1.00001
  REQUIRE(cell.cpu_efficiency().has_value());
  CHECK(*cell.cpu_efficiency() == Approx(1943.8 / 1.00001).epsilon(1e-9));

  const std::string a = " size=8M bs=4096 threads=1 run=1";
  const StepResult step = make_step("tiobench", {{"identifier", "id"}},
                                    {sweep_phase("Read", a, 8, 5'000, 50'000'000, 0)});
  std::ostringstream out;
  iobench::plugins::tiotest::format_tiobench_csv(step, out);
  CHECK(out.str() ==
        "tiobench,id,8,4096,1,read,1,160.000,0.00,0.005000,0.005000,0.00000,0.00000,\n");
}

TEST_CASE("tiobench averages repetitions from summed bytes over summed time") {
  const std::string p1 = " size=8M bs=4096 threads=2 run=1";
  const std::string p2 = " size=8M bs=4096 threads=2 run=2";
  // Run 1: 8 MiB in 0.1 s; run 2: 8 MiB in 0.3 s. tiobench.pl's rate = 16 MiB / 0.4 s = 40 MB/s
  // (the mean of the two rates, 53.3, would be wrong).
  const StepResult step =
      make_step("tiobench", {{"identifier", "x"}},
                {sweep_phase("Write", p1, 8, 10'000, 100'000'000, 60'000'000),
                 sweep_phase("Write", p2, 8, 30'000, 300'000'000, 20'000'000),
                 make_phase("Random Read" + p2, 4096, {{999, 100'000}, {1, 2'100'000'000}},
                            500'000'000, 0, 0),
                 make_phase("Random Read" + p1, 4096, {{1000, 300'000}}, 500'000'000, 0, 0)});
  const std::vector<iobench::plugins::tiotest::SweepRow> rows = aggregate_sweep(step);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].point == SweepPoint{8, 4096, 2});
  const SweepCell& write = rows[0].cells[index_of(PhaseKind::kWrite)];
  CHECK(write.runs == 2);
  CHECK(write.bytes == 16 * kMiB);
  CHECK(write.wall_ns == 400'000'000);
  CHECK(write.rate_mb_per_s() == Approx(40.0).epsilon(1e-12));
  // CPU: (60 ms + 20 ms) / 2 threads over 0.4 s = 10 %.
  CHECK(write.cpu_percent() == Approx(10.0).epsilon(1e-12));
  // Latency: mean over all ops of both runs (equal op counts: (10 + 30) / 2 us).
  CHECK(write.mean_latency_ms() == Approx(0.020).epsilon(1e-12));
  CHECK(write.max_latency_ms() == Approx(0.030).epsilon(1e-12));
  const SweepCell& rread = rows[0].cells[index_of(PhaseKind::kRandomRead)];
  CHECK(rread.runs == 2);
  CHECK(rread.max_latency_ms() == Approx(2100.0).epsilon(1e-12));
  CHECK(rread.percent_over_2s() == Approx(100.0 / 2000).epsilon(1e-12));
  CHECK(rread.mean_latency_ms() == Approx((999 * 0.1 + 2100.0 + 1000 * 0.3) / 2000).epsilon(1e-12));
  CHECK_FALSE(rows[0].present[index_of(PhaseKind::kRead)]);
}

TEST_CASE("tiobench report has the unit block and four sections in tiobench order") {
  const std::string a = " size=8M bs=4096 threads=1 run=1";
  const std::string b = " size=8M bs=4096 threads=2 run=1";
  std::vector<PhaseResult> phases;
  for (const std::string& suffix : {a, b}) {
    phases.push_back(sweep_phase("Write", suffix, 8, 10'000, 100'000'000, 50'000'000));
    phases.push_back(sweep_phase("Random Write", suffix, 1, 20'000, 100'000'000, 0));
    phases.push_back(sweep_phase("Read", suffix, 8, 5'000, 50'000'000, 0));
    phases.push_back(sweep_phase("Random Read", suffix, 1, 10'000, 100'000'000, 0));
  }
  const StepResult step = make_step("tiobench", {{"identifier", ""}}, phases);
  StepResult with_attribute = step;
  with_attribute.attributes.emplace_back("identifier", std::string("6.1.0-test"));
  const std::string text = tiobench_text(with_attribute);
  const std::string header =
      "                              File   Blk   Num                         Avg      Maximum     "
      " "
      "Lat%     Lat%     CPU\n"
      "Identifier                    Size   Size  Thr      Rate     (CPU%)  Latency    Latency     "
      " "
      ">2s      >10s     Eff\n"
      "---------------------------- ------ ------ ---  ------------ ------ --------- -----------  "
      "-------- -------- -------\n";
  const std::string expected =
      "\nUnit information\n================\n"
      "File size = megabytes (2^20 bytes, 1,048,576 bytes)\n"
      "Blk Size  = bytes\n"
      "Rate      = megabytes per second\n"
      "CPU%      = percentage of CPU used during the test\n"
      "Latency   = milliseconds\n"
      "Lat%      = percent of requests that took longer than X seconds\n"
      "CPU Eff   = Rate divided by CPU% - throughput per cpu load\n"
      "\nSequential Reads\n================\n" +
      header +
      "6.1.0-test                     8     4096    1        160.00     0%     0.005        0.01"
      "   0.00000  0.00000       -\n"
      "6.1.0-test                     8     4096    2        160.00     0%     0.005        0.01"
      "   0.00000  0.00000       -\n"
      "\nRandom Reads\n============\n" +
      header +
      "6.1.0-test                     8     4096    1         10.00     0%     0.010        0.01"
      "   0.00000  0.00000       -\n"
      "6.1.0-test                     8     4096    2         10.00     0%     0.010        0.01"
      "   0.00000  0.00000       -\n"
      "\nSequential Writes\n=================\n" +
      header +
      "6.1.0-test                     8     4096    1         80.00    50%     0.010        0.01"
      "   0.00000  0.00000     160\n"
      "6.1.0-test                     8     4096    2         80.00    25%     0.010        0.01"
      "   0.00000  0.00000     320\n"
      "\nRandom Writes\n=============\n" +
      header +
      "6.1.0-test                     8     4096    1         10.00     0%     0.020        0.02"
      "   0.00000  0.00000       -\n"
      "6.1.0-test                     8     4096    2         10.00     0%     0.020        0.02"
      "   0.00000  0.00000       -\n";
  CHECK(text == expected);
}

TEST_CASE("tiobench csv has one row per point and test") {
  const std::string a = " size=8M bs=4096 threads=1 run=1";
  const StepResult step = make_step("tiobench", {{"identifier", "a,b"}},
                                    {sweep_phase("Write", a, 8, 10'000, 100'000'000, 50'000'000),
                                     sweep_phase("Read", a, 8, 5'000, 50'000'000, 0)});
  std::ostringstream out;
  iobench::plugins::tiotest::format_tiobench_csv_header(step, out);
  iobench::plugins::tiotest::format_tiobench_csv(step, out);
  CHECK(out.str() ==
        "step,identifier,size_mib,block_bytes,threads,test,runs,rate_mib_per_s,cpu_pct,"
        "avg_latency_ms,max_latency_ms,pct_over_2s,pct_over_10s,cpu_eff\n"
        "tiobench,\"a,b\",8,4096,1,read,1,160.000,0.00,0.005000,0.005000,0.00000,0.00000,\n"
        "tiobench,\"a,b\",8,4096,1,write,1,80.000,50.00,0.010000,0.010000,0.00000,0.00000,160\n");
  // Parsed back as RFC 4180: 14 fields under 14 names, the identifier whole.
  std::istringstream lines(out.str());
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (const char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    CHECK(fields.size() == 14);
    if (fields[0] != "step") CHECK(fields[1] == "a,b");
  }
}

TEST_CASE("tiobench marks a cell whose phase did not end ok instead of printing its figures") {
  const std::string r1 = " size=8M bs=4096 threads=1 run=1";
  const std::string r2 = " size=8M bs=4096 threads=1 run=2";
  PhaseResult failed = sweep_phase("Read", r2, 8, 5'000, 50'000'000, 0);
  failed.status = iobench::Status::kFailed;
  failed.message = "worker 0: preadv2: Input/output error";
  const StepResult step =
      make_step("tiobench", {{"identifier", "x"}},
                {sweep_phase("Write", r1, 8, 10'000, 100'000'000, 50'000'000),
                 sweep_phase("Read", r1, 8, 5'000, 50'000'000, 0),
                 sweep_phase("Write", r2, 8, 10'000, 100'000'000, 50'000'000), failed});
  const std::vector<iobench::plugins::tiotest::SweepRow> rows = aggregate_sweep(step);
  REQUIRE(rows.size() == 1);
  const SweepCell& read = rows[0].cells[index_of(PhaseKind::kRead)];
  CHECK(read.status == iobench::Status::kFailed);
  CHECK(read.runs == 1);  // the ok repetition only
  CHECK(read.bytes == 8 * kMiB);
  const std::string text = tiobench_text(step);
  INFO(text);
  CHECK(text.find("Sequential Reads\n================\n") != std::string::npos);
  CHECK(text.find("x                              8     4096    1  failed, no figures\n") !=
        std::string::npos);
  CHECK(text.find("x                              8     4096    1         80.00") !=
        std::string::npos);  // the writes: both repetitions ok
  std::ostringstream csv;
  iobench::plugins::tiotest::format_tiobench_csv(step, csv);
  CHECK(csv.str() ==
        "tiobench,x,8,4096,1,read,1,,,,,,,\n"
        "tiobench,x,8,4096,1,write,2,80.000,50.00,0.010000,0.010000,0.00000,0.00000,160\n");
}
