#include "plugins/tiotest/tiotest_tables.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tiotest/result_builder.hpp"

namespace {

using iobench::PhaseResult;
using iobench::StepResult;
using iobench::plugins::tiotest::test::make_phase;
using iobench::plugins::tiotest::test::make_step;

// Two threads, four phases; the golden text below was computed with tiotest's own printf formats
// and formulas (tiotest.c print_results), independently of the formatter.
std::vector<PhaseResult> four_phases() {
  return {
      make_phase("Write", 4096, {{8191, 50'000}, {1, 8'190'000}}, 1'260'000'000, 900'000'000,
                 300'000'000, 37.5),
      make_phase("Random Write", 4096, {{1997, 120'000}, {2, 2'500'000'000}, {1, 11'000'000'000}},
                 20'000'000'000, 50'000'000, 1'500'000'000, 12.25),
      make_phase("Read", 4096, {{8192, 30'000}}, 400'000'000, 100'000'000, 500'000'000, 50),
      make_phase("Random Read", 4096, {{2000, 200'000}}, 450'000'000, 10'000'000, 200'000'000, 5),
  };
}

const char* const kGoldenTables =
    "Tiotest results for 2 concurrent io threads:\n"
    ",----------------------------------------------------------------------.\n"
    "| Item                  | Time     | Rate         | Usr CPU  | Sys CPU |\n"
    "+-----------------------+----------+--------------+----------+---------+\n"
    "| Write          32 MBs |    1.3 s |  25.397 MB/s |  35.7 %  |  11.9 % |\n"
    "| Random Write    8 MBs |   20.0 s |   0.391 MB/s |   0.1 %  |   3.8 % |\n"
    "| Read           32 MBs |    0.4 s |  80.000 MB/s |  12.5 %  |  62.5 % |\n"
    "| Random Read     8 MBs |    0.5 s |  17.361 MB/s |   1.1 %  |  22.2 % |\n"
    "`----------------------------------------------------------------------'\n"
    "Tiotest latency results:\n"
    ",-------------------------------------------------------------------------.\n"
    "| Item         | Average latency | Maximum latency | % >2 sec | % >10 sec |\n"
    "+--------------+-----------------+-----------------+----------+-----------+\n"
    "| Write        |        0.051 ms |        8.190 ms |  0.00000 |   0.00000 |\n"
    "| Random Write |        8.120 ms |    11000.000 ms |  0.15000 |   0.05000 |\n"
    "| Read         |        0.030 ms |        0.030 ms |  0.00000 |   0.00000 |\n"
    "| Random Read  |        0.200 ms |        0.200 ms |  0.00000 |   0.00000 |\n"
    "|--------------+-----------------+-----------------+----------+-----------|\n"
    "| Total        |        0.849 ms |    11000.000 ms |  0.01472 |   0.00491 |\n"
    "`--------------+-----------------+-----------------+----------+-----------'\n"
    "\n"
    "Units: MB = 2^20 bytes (MiB), latency in ms, CPU in % of one CPU per thread.\n";

std::string tiotest_text(const StepResult& step) {
  std::ostringstream out;
  iobench::plugins::tiotest::format_tiotest_text(step, out);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("tiotest result and latency tables match tiotest output exactly") {
  const StepResult step =
      make_step("tiotest", {{"threads", "2"}, {"percentiles", "false"}}, four_phases());
  CHECK(tiotest_text(step) == kGoldenTables);
}

TEST_CASE("tiotest tables print rows only for phases that ran") {
  std::vector<PhaseResult> phases = four_phases();
  phases.erase(phases.begin() + 1);  // no Random Write
  phases.pop_back();                 // no Random Read
  const StepResult step =
      make_step("tiotest", {{"threads", "2"}, {"percentiles", "false"}}, phases);
  const std::string text = tiotest_text(step);
  CHECK(text.find("Random") == std::string::npos);
  CHECK(text.find("| Write          32 MBs |    1.3 s |  25.397 MB/s |  35.7 %  |  11.9 % |\n") !=
        std::string::npos);
  // The Total row pools only Write and Read: (8191*50us + 8.19ms + 8192*30us) / 16384 ops.
  CHECK(
      text.find("| Total        |        0.040 ms |        8.190 ms |  0.00000 |   0.00000 |\n") !=
      std::string::npos);
}

TEST_CASE("tiotest latency table is hidden with latency_table false") {
  const StepResult step =
      make_step("tiotest", {{"threads", "2"}, {"percentiles", "false"}, {"latency_table", "false"}},
                four_phases());
  const std::string text = tiotest_text(step);
  CHECK(text.find("Tiotest results for 2 concurrent io threads:") == 0);
  CHECK(text.find("Tiotest latency results:") == std::string::npos);
}

TEST_CASE("tiotest result table widens its columns for rates above 1000 MB/s") {
  // tiotest prints "%7.3f MB/s", which shifts the border for 1770.401 MB/s; here the column
  // widens for every row, borders included.
  const StepResult step =
      make_step("tiotest", {{"threads", "2"}, {"latency_table", "false"}, {"percentiles", "false"}},
                {make_phase("Write", 4096, {{8192, 2'000}}, 18'075'000, 52'236'750, 72'300),
                 make_phase("Read", 4096, {{8192, 3'000}}, 32'432'000, 0, 41'123'776)});
  CHECK(tiotest_text(step) ==
        "Tiotest results for 2 concurrent io threads:\n"
        ",-----------------------------------------------------------------------.\n"
        "| Item                  | Time     | Rate          | Usr CPU  | Sys CPU |\n"
        "+-----------------------+----------+---------------+----------+---------+\n"
        "| Write          32 MBs |    0.0 s | 1770.401 MB/s | 144.5 %  |   0.2 % |\n"
        "| Read           32 MBs |    0.0 s |  986.680 MB/s |   0.0 %  |  63.4 % |\n"
        "`-----------------------------------------------------------------------'\n"
        "Units: MB = 2^20 bytes (MiB), latency in ms, CPU in % of one CPU per thread.\n");
}

TEST_CASE("tiotest tables stay aligned with very large values in every column") {
  // 40 GiB in 2 s by one thread with 1100 % CPU, and a maximum latency of 120 s.
  const std::uint64_t ops = 10 * 1024 * 1024;
  const StepResult step =
      make_step("tiotest", {{"threads", "1"}},
                {make_phase("Write", 4096, {{ops - 1, 100}, {1, 120'000'000'000}}, 2'000'000'000,
                            22'000'000'000, 21'000'000'000, 99.5),
                 make_phase("Random Read", 4096, {{3, 30'000'000'000}}, 90'000'000'000, 0, 0)});
  const std::vector<std::string> lines = lines_of(tiotest_text(step));
  // Every table line of a table has the same length and its column bars at the same places.
  auto check_table = [&](std::size_t first, std::size_t last) {
    const std::size_t width = lines[first].size();
    std::vector<std::size_t> bars;
    for (std::size_t i = 0; i < lines[first + 2].size(); ++i) {
      if (lines[first + 2][i] == '+') bars.push_back(i);
    }
    for (std::size_t i = first; i <= last; ++i) {
      INFO(lines[i]);
      CHECK(lines[i].size() == width);
      if (i == first || i == last) continue;
      for (const std::size_t b : bars) {
        if (b == 0 || b == width - 1) continue;
        CHECK((lines[i][b] == '|' || lines[i][b] == '+'));
      }
    }
  };
  REQUIRE(lines.size() > 20);
  CHECK(lines[0] == "Tiotest results for 1 concurrent io threads:");
  check_table(1, 6);  // , header + Write + Random Read `
  CHECK(lines[4].find("| Write       40960 MBs |") == 0);
  CHECK(lines[4].find("| 20480.000 MB/s | 1100.0 %  | 1050.0 % |") != std::string::npos);
  CHECK(lines[7] == "Tiotest latency results:");
  check_table(8, 15);
  CHECK(lines[11].find("|   120000.000 ms |") != std::string::npos);
  CHECK(lines[12].find("| 100.00000 | 100.00000 |") != std::string::npos);
}

TEST_CASE("tiotest terse output has five lines with tiotest's fields") {
  const StepResult step =
      make_step("tiotest", {{"threads", "2"}, {"terse", "true"}}, four_phases());
  CHECK(tiotest_text(step) ==
        "write:32.00000,1.26000,0.45000,0.15000,0.05099,8.19000,0.00000,0.00000\n"
        "rwrite:7.81250,20.00000,0.02500,0.75000,8.11982,11000.00000,0.15000,0.05000\n"
        "read:32.00000,0.40000,0.05000,0.25000,0.03000,0.03000,0.00000,0.00000\n"
        "rread:7.81250,0.45000,0.00500,0.10000,0.20000,0.20000,0.00000,0.00000\n"
        "total:0.84886,11000.00000,0.01472,0.00491\n");
}

TEST_CASE("tiotest terse output prints zeros for skipped phases") {
  std::vector<PhaseResult> phases = four_phases();
  phases.erase(phases.begin(), phases.begin() + 2);  // only Read and Random Read
  const StepResult step = make_step("tiotest", {{"threads", "2"}, {"terse", "true"}}, phases);
  CHECK(tiotest_text(step) ==
        "write:0.00000,0.00000,0.00000,0.00000,0.00000,0.00000,0.00000,0.00000\n"
        "rwrite:0.00000,0.00000,0.00000,0.00000,0.00000,0.00000,0.00000,0.00000\n"
        "read:32.00000,0.40000,0.05000,0.25000,0.03000,0.03000,0.00000,0.00000\n"
        "rread:7.81250,0.45000,0.00500,0.10000,0.20000,0.20000,0.00000,0.00000\n"
        "total:0.06336,0.20000,0.00000,0.00000\n");
}

TEST_CASE("tiotest percentile table shows p50 to p99.99 and system busy percent") {
  // Phases with one latency value each: every percentile is exactly that value. The Total row
  // pools 8192 ops of 30 us and 2000 of 200 us: p50 is 30 us, p90 (rank 9173) is 200 us.
  const StepResult step = make_step(
      "tiotest", {{"threads", "2"}, {"latency_table", "false"}},
      {make_phase("Read", 4096, {{8192, 30'000}}, 400'000'000, 100'000'000, 500'000'000, 50),
       make_phase("Random Read", 4096, {{2000, 200'000}}, 450'000'000, 0, 0, 5.3)});
  const std::string text = tiotest_text(step);
  const std::string table = text.substr(text.find("Latency percentiles"));
  CHECK(table ==
        "Latency percentiles (ms) and system CPU busy (% of all CPUs):\n"
        ",-------------------------------------------------------------------------------------.\n"
        "| Item         |       p50 |       p90 |       p99 |     p99.9 |    p99.99 | Sys busy |\n"
        "+--------------+-----------+-----------+-----------+-----------+-----------+----------+\n"
        "| Read         |    0.0300 |    0.0300 |    0.0300 |    0.0300 |    0.0300 |   50.0 % |\n"
        "| Random Read  |    0.2000 |    0.2000 |    0.2000 |    0.2000 |    0.2000 |    5.3 % |\n"
        "|--------------+-----------+-----------+-----------+-----------+-----------+----------|\n"
        "| Total        |    0.0300 |    0.2000 |    0.2000 |    0.2000 |    0.2000 |          |\n"
        "`--------------+-----------+-----------+-----------+-----------+-----------+----------'\n"
        "\n"
        "Units: MB = 2^20 bytes (MiB), latency in ms, CPU in % of one CPU per thread.\n");
}

TEST_CASE("tiotest text lists phases that did not end ok") {
  std::vector<PhaseResult> phases = four_phases();
  phases[3].status = iobench::Status::kInterrupted;
  phases[3].message = "interrupted by a stop request (SIGINT/SIGTERM)";
  StepResult step = make_step("tiotest", {{"threads", "2"}}, phases);
  step.warnings.push_back("page cache not dropped before 'Read': not root");
  const std::string text = tiotest_text(step);
  CHECK(text.find("Random Read: interrupted: interrupted by a stop request (SIGINT/SIGTERM)\n") !=
        std::string::npos);
  CHECK(text.find("WARNING: page cache not dropped before 'Read': not root\n") !=
        std::string::npos);
}

TEST_CASE("tiotest csv has a header a row per phase and a total row") {
  StepResult step = make_step("tiotest", {{"threads", "2"}}, four_phases());
  step.name = "run, one";  // quoted: the comma must not add a field
  std::ostringstream out;
  iobench::plugins::tiotest::format_tiotest_csv_header(step, out);
  iobench::plugins::tiotest::format_tiotest_csv(step, out);
  const std::vector<std::string> lines = lines_of(out.str());
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].rfind("step,item,mib,real_s,usr_cpu_pct,sys_cpu_pct,rate_mib_per_s,", 0) == 0);
  CHECK(lines[3] ==
        "\"run, one\",Read,32.00000,0.40000,12.50,62.50,80.000,0.030000,0.030000,0.00000,0.00000,"
        "0.030000,0.030000,0.030000,0.030000,0.030000,50.0");
  CHECK(lines[5].rfind("\"run, one\",Total,,,,,,0.848859,11000.000000,0.01472,0.00491,", 0) == 0);
  CHECK(std::count(lines[0].begin(), lines[0].end(), ',') == 16);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    // 16 separators after the quoted name's own comma.
    CHECK(std::count(lines[i].begin(), lines[i].end(), ',') == 17);
  }
}

TEST_CASE("tiotest tables mark a phase that did not end ok instead of printing its figures") {
  std::vector<PhaseResult> phases = four_phases();
  phases[2].status = iobench::Status::kFailed;
  phases[2].message = "worker 0: ftruncate /d/_tiotest.thr0: Bad file descriptor";
  const StepResult step = make_step("tiotest", {{"threads", "2"}}, phases);
  const std::string text = tiotest_text(step);
  INFO(text);
  // The result table: the Read row is its status across the table's width, no MB, time or rate.
  CHECK(text.find("| Read           32 MBs") == std::string::npos);
  CHECK(text.find("| Read: failed, no figures                                             |\n"
                  "| Random Read     8 MBs |") != std::string::npos);
  // The latency table: the same, and the Total row pools the three measured phases only
  // (8191 x 0.05 + 8.19 + 1997 x 0.12 + 2 x 2500 + 11000 + 2000 x 0.2 ms over 12192 ops).
  CHECK(text.find("| Read: failed, no figures                                                |\n"
                  "| Random Read  |        0.200 ms |") != std::string::npos);
  CHECK(text.find("| Total        |        1.399 ms |    11000.000 ms |  0.02461 |   0.00820 |") !=
        std::string::npos);
  CHECK(text.find("| Read         |") == std::string::npos);
  CHECK(text.find("Read: failed: worker 0: ftruncate /d/_tiotest.thr0: Bad file descriptor\n") !=
        std::string::npos);

  const StepResult terse = make_step("tiotest", {{"threads", "2"}, {"terse", "true"}}, phases);
  CHECK(lines_of(tiotest_text(terse)).at(2) == "read:failed");

  std::ostringstream csv;
  iobench::plugins::tiotest::format_tiotest_csv(step, csv);
  const std::vector<std::string> rows = lines_of(csv.str());
  INFO(csv.str());
  REQUIRE(rows.size() == 5);
  CHECK(rows[2] == "tiotest,Read,,,,,,,,,,,,,,,");
  CHECK(rows[4].rfind("tiotest,Total,,,,,,1.399063,11000.000000,0.02461,0.00820,", 0) == 0);
}
