#include <catch2/catch.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/report/golden.hpp"
#include "tests/report/sample_run.hpp"
#include "tests/support/test_support.hpp"

namespace iobench {
namespace {

using Record = test::CsvRecord;

using test::parse_csv;

std::string render_csv(const RunResult& run, const Registry& registry) {
  std::ostringstream out;
  auto reporter = make_csv_reporter(out, registry);
  reporter->on_run_start(run.environment);
  for (const StepResult& step : run.steps) reporter->on_step_end(step);
  reporter->on_run_end(run);
  return out.str();
}

const Record kHeader = {"step", "workload", "phase", "worker", "target", "op", "ops", "bytes",
                        "elapsed_ns", "throughput_bytes_per_s", "iops", "lat_mean_ns", "lat_p50_ns",
                        "lat_p99_ns", "lat_p99_9_ns", "lat_max_ns", "cpu_user_ns", "cpu_system_ns",
                        "status",
                        // The phase's device figures (issue 29), empty without an explanation.
                        "dev_read_bytes", "dev_write_bytes", "dev_util_percent", "dev_r_await_ms",
                        "dev_w_await_ms", "read_amplification", "write_amplification"};

TEST_CASE("generic csv output matches the golden file", "[report]") {
  const Registry registry;
  test::check_golden("sample_run.csv", render_csv(test::make_sample_run(), registry));
}

TEST_CASE("csv output parses back into the run's numbers", "[report]") {
  const Registry registry;
  const std::vector<Record> records = parse_csv(render_csv(test::make_sample_run(), registry));
  // Header; seqwrite: 2 workers x 1 op + 1 merged; meta: 1 worker x 3 ops + 3 merged; broken: 1.
  REQUIRE(records.size() == 1 + 3 + 6 + 1);
  CHECK(records[0] == kHeader);
  for (const Record& record : records) CHECK(record.size() == kHeader.size());

  const Record& w1 = records[2];
  CHECK(w1[0] == "seqwrite");
  CHECK(w1[2] == "write");
  CHECK(w1[3] == "1");
  CHECK(w1[4] == "/mnt/b,\"x\"");  // quoted on output, restored by the reader
  CHECK(w1[5] == "write");
  CHECK(w1[6] == "64");
  CHECK(w1[7] == std::to_string(64 * 1024 * 1024));
  CHECK(w1[8] == "640000000");
  CHECK(std::stod(w1[9]) == Approx(64.0 * 1024 * 1024 / 0.64));
  CHECK(std::stod(w1[10]) == Approx(100.0));
  CHECK(w1[12] == std::to_string(test::kFastNs));
  CHECK(w1[13] == std::to_string(test::kSlowNs));
  CHECK(w1[15] == std::to_string(test::kSlowNs));
  CHECK(w1[16] == "64000000");
  CHECK(w1[17] == "240000000");
  CHECK(w1[18] == "ok");

  const Record& merged = records[3];
  CHECK(merged[3] == "all");
  CHECK(merged[4] == "all");
  CHECK(merged[6] == "128");
  CHECK(merged[8] == "640000000");
  CHECK(merged[16] == "120000000");  // whole process CPU
  CHECK(std::stod(merged[11]) == Approx((122.0 * test::kFastNs + 6.0 * test::kSlowNs) / 128.0));

  const Record& stat = records[5];
  CHECK(stat[2] == "create and stat");
  CHECK(stat[5] == "stat");
  CHECK(stat[11] == "127.0");
  CHECK(stat[12] == "127");
  CHECK(stat[13] == "251");
  CHECK(stat[14] == "253");
  CHECK(stat[18] == "interrupted");

  const Record& broken = records[10];
  CHECK(broken[0] == "broken");
  CHECK(broken[2] == "");
  CHECK(broken[6] == "0");
  CHECK(broken[18] == "failed");
}

TEST_CASE("csv quotes step names with commas quotes and line breaks", "[report]") {
  const Registry registry;
  RunResult run = test::make_sample_run();
  run.steps.resize(1);
  run.steps[0].name = "odd, \"name\"\nhere";
  const std::string text = render_csv(run, registry);
  CHECK(text.find("\"odd, \"\"name\"\"\nhere\",disk,write,0,/mnt/a,write,64,") !=
        std::string::npos);
  const std::vector<Record> records = parse_csv(text);
  REQUIRE(records.size() == 4);
  CHECK(records[1][0] == "odd, \"name\"\nhere");
}

TEST_CASE("generic csv holds every step with one header whatever the family", "[report]") {
  Registry registry;
  registry.add_formatter("disk", "csv", [](const StepResult& step, std::ostream& out) {
    out << "disk-csv," << step.name << "\n";
  });
  const std::string text = render_csv(test::make_sample_run(), registry);
  const std::vector<Record> records = parse_csv(text);
  // The family formatter is not mixed in: one header, then the generic rows of all steps.
  REQUIRE(records.size() == 1 + 3 + 6 + 1);
  CHECK(records[0] == kHeader);
  for (std::size_t i = 1; i < records.size(); ++i) {
    CHECK(records[i].size() == kHeader.size());
    CHECK(records[i] != kHeader);
  }
  CHECK(text.find("disk-csv") == std::string::npos);
}

TEST_CASE("a family csv holds only its workload's rows under its header once", "[report]") {
  Registry registry;
  registry.add_formatter("disk", "csv", [](const StepResult& step, std::ostream& out) {
    out << step.name << "," << step.phases.size() << "\n";
  });
  registry.add_formatter("disk", "csv_header",
                         [](const StepResult&, std::ostream& out) { out << "name,phases\n"; });
  const RunResult run = test::make_sample_run();  // disk, custom-meta, disk
  std::ostringstream out;
  auto reporter = make_family_csv_reporter(out, registry, "disk");
  for (const StepResult& step : run.steps) reporter->on_step_end(step);
  const std::vector<Record> records = parse_csv(out.str());
  REQUIRE(records.size() == 3);
  CHECK(records[0] == Record{"name", "phases"});
  CHECK(records[1] == Record{"seqwrite", "1"});
  CHECK(records[2] == Record{"broken", "0"});

  // Without a csv_header formatter (bonnie++'s lines): rows only. Without a csv formatter:
  // nothing.
  Registry headerless;
  headerless.add_formatter("disk", "csv",
                           [](const StepResult& step, std::ostream& o) { o << step.name << "\n"; });
  std::ostringstream rows;
  auto plain = make_family_csv_reporter(rows, headerless, "disk");
  for (const StepResult& step : run.steps) plain->on_step_end(step);
  CHECK(rows.str() == "seqwrite\nbroken\n");
  std::ostringstream none;
  auto empty = make_family_csv_reporter(none, headerless, "custom-meta");
  for (const StepResult& step : run.steps) empty->on_step_end(step);
  CHECK(none.str().empty());
}

TEST_CASE("family csv files are named after the generic one", "[report]") {
  CHECK(family_csv_path("result.csv", "bonnie") == "result.bonnie.csv");
  CHECK(family_csv_path("out/r.csv", "tiotest") == "out/r.tiotest.csv");
  CHECK(family_csv_path("r", "bonnie") == "r.bonnie.csv");
  CHECK(family_csv_path("d.x/r.txt", "bonnie") == "d.x/r.bonnie.txt");
}

}  // namespace
}  // namespace iobench
