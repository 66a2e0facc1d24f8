// compare lines up like with like: a workload's own repetitions pooled as samples of one phase,
// figures an input lacks null (never 0) in every format, "What differs" on normalised params,
// fio's jobs as disk steps, dbench's headline figure beside dbench's own output.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;
using Json = nlohmann::json;

// Named apart: the unity build puts the other compare tests' helpers beside these.
namespace alignment {

std::string data_file(const std::string& name) {
  return (std::filesystem::path(IOBENCH_COMPARE_DATA_DIR) / name).string();
}

const MetricRow& row_of(const PhaseComparison& phase, CompareMetric metric) {
  for (const MetricRow& row : phase.metrics) {
    if (row.metric == metric) return row;
  }
  FAIL("no row for metric " << compare_metric_info(metric).name);
  throw std::logic_error("unreachable");
}

// A bonnie step with repetitions=N: seq_create#1..#N, 1000 creates in each of `walls`.
ResultDocument bonnie_repetitions(const std::vector<std::uint64_t>& walls) {
  std::vector<PhaseResult> phases;
  for (std::size_t r = 0; r < walls.size(); ++r) {
    phases.push_back(compare_phase(fmt::format("seq_create#{}", r + 1), walls[r], 1000, 0, 20'000));
  }
  StepResult step = compare_step("bonnie", std::move(phases));
  step.workload = "bonnie";
  step.params = {{"repetitions", std::to_string(walls.size())}};
  step.given_params = {"repetitions"};
  return single_run_document(compare_environment(), {step});
}

std::vector<CompareInput> two(const ResultDocument& a, const ResultDocument& b) {
  return {{"base.json", through_json(a)}, {"other.json", through_json(b)}};
}

std::vector<std::string> fields_of(const Comparison& c) {
  std::vector<std::string> fields;
  for (const EnvironmentDifference& d : c.environment) fields.push_back(d.field);
  return fields;
}

}  // namespace alignment

using ::iobench::test::kSecond;

TEST_CASE("pooled_phase_name: bonnie's #N and tiobench's run=N are runs of one phase",
          "[compare]") {
  CHECK(pooled_phase_name("seq_create#3") == "seq_create");
  CHECK(pooled_phase_name("put_block#12") == "put_block");
  CHECK(pooled_phase_name("Write size=64M bs=4096 threads=2 run=2") ==
        "Write size=64M bs=4096 threads=2");
  CHECK(pooled_phase_name("write") == "write");
  CHECK(pooled_phase_name("#3") == "#3");
  CHECK(pooled_phase_name("seq#x") == "seq#x");
  CHECK(pooled_phase_name("Write run=") == "Write run=");
}

TEST_CASE("a workload's own repetitions are samples of one row, with the t-test", "[compare]") {
  const auto base =
      alignment::bonnie_repetitions({kSecond, kSecond + kSecond / 100, kSecond - kSecond / 100});
  SECTION("a real change: significant") {
    const auto other = alignment::bonnie_repetitions(
        {kSecond * 11 / 10, kSecond * 111 / 100, kSecond * 109 / 100});
    const Comparison c = compare_results(alignment::two(base, other));
    REQUIRE(c.phases.size() == 1);
    CHECK(c.phases[0].phase == "seq_create");
    const MetricRow& iops = alignment::row_of(c.phases[0], CompareMetric::kIops);
    CHECK(iops.inputs[0].stats.count == 3);
    CHECK(iops.inputs[1].stats.count == 3);
    REQUIRE(iops.changes[0].has_value());
    CHECK(iops.changes[0]->welch.valid);
    CHECK(iops.changes[0]->noise == Noise::kSignificant);
    CHECK(iops.changes[0]->direction == ChangeDirection::kWorse);
    CHECK(iops.inputs[0].stats.mean == Approx((1000.0 + 1000 / 1.01 + 1000 / 0.99) / 3));
    CHECK_THAT(comparison_text(c), Contains("(n=3)"));
  }
  SECTION("noise: the gate does not fire") {
    // Each run alone differs by 2 % from the baseline's run of the same number.
    const auto other =
        alignment::bonnie_repetitions({kSecond + kSecond / 50, kSecond - kSecond / 100, kSecond});
    const Comparison c = compare_results(alignment::two(base, other));
    REQUIRE(c.phases.size() == 1);
    const MetricRow& iops = alignment::row_of(c.phases[0], CompareMetric::kIops);
    CHECK(iops.changes[0]->noise == Noise::kWithinNoise);
    CHECK(regressions(c, 0.1).empty());
  }
  SECTION("--phases takes the pooled name") {
    CompareOptions options;
    options.phases = {"seq_create"};
    CHECK(compare_results(alignment::two(base, base), options).phases.size() == 1);
  }
}

TEST_CASE("tiobench's runs (run=1..N) are samples of one row", "[compare]") {
  const auto tiobench = [](std::uint64_t wall1, std::uint64_t wall2) {
    StepResult step = compare_step(
        "tiobench",
        {compare_phase("Write size=1M bs=4096 threads=1 run=1", wall1, 256, 4096, 1000),
         compare_phase("Write size=1M bs=4096 threads=1 run=2", wall2, 256, 4096, 1000)});
    step.workload = "tiobench";
    step.params.clear();
    step.given_params.clear();
    return single_run_document(compare_environment(), {step});
  };
  const Comparison c =
      compare_results(alignment::two(tiobench(kSecond, kSecond), tiobench(kSecond, 2 * kSecond)));
  REQUIRE(c.phases.size() == 1);
  CHECK(c.phases[0].phase == "Write size=1M bs=4096 threads=1");
  const MetricRow& throughput = alignment::row_of(c.phases[0], CompareMetric::kThroughput);
  CHECK(throughput.inputs[1].values == std::vector<double>{256 * 4096.0, 128 * 4096.0});
}

TEST_CASE("a figure an input lacks has no mean, n = 1 no stddev, in JSON, CSV and text",
          "[compare][classic]") {
  // seed 002: bonnie++ 1.0x CSVs; seq_stat is "+++++" in both, ran_create only in the first.
  const std::vector<CompareInput> inputs{
      {"unpatched.csv", read_result_file(alignment::data_file("seed002_unpatched.csv"))},
      {"patched.csv", read_result_file(alignment::data_file("seed002_patched.csv"))}};
  const Comparison c = compare_results(inputs);
  const Json j = Json::parse(comparison_to_json(c));
  std::size_t too_fast = 0;
  for (const Json& phase : j["phases"]) {
    for (const Json& row : phase["metrics"]) {
      for (const Json& input : row["inputs"]) {
        if (input["n"] == 0) CHECK(input["mean"].is_null());
        if (input["n"].get<int>() < 2) CHECK(input["stddev"].is_null());
        if (input.contains("unavailable") &&
            input["unavailable"] == "too fast to measure (+++++)") {
          ++too_fast;
          CHECK(input["mean"].is_null());
        }
      }
    }
  }
  CHECK(too_fast > 0);
  std::ostringstream csv;
  write_comparison_csv(c, csv);
  CHECK_THAT(csv.str(), Contains(",base_not_available,not_available,kind,base_total,total\n"));
  // The seq_stat row: n 0, empty mean and stddev, the reason on both sides.
  CHECK_THAT(csv.str(), Contains("bonnie,bonnie,,seq_stat,iops,ops/s,higher,unpatched.csv,"
                                 "patched.csv,0,,,0,,,,,,,,,too fast to measure (+++++),"
                                 "too fast to measure (+++++),metric,,\n"));
  // n = 1 on each side: an empty stddev, never 0.
  CHECK_THAT(csv.str(), Contains("bonnie,bonnie,,putc,throughput,bytes/s,higher,unpatched.csv,"
                                 "patched.csv,1,21983232,,1,37937152,,"));
}

TEST_CASE("one run beside repetitions shows no stddev, not 0", "[compare]") {
  const auto base = single_run_document(compare_environment(),
                                        {compare_step("seq", {compare_write_phase(kSecond)})});
  const auto other = repeated_document(
      compare_environment(), {{compare_write_phase(kSecond)}, {compare_write_phase(2 * kSecond)}});
  const Comparison c = compare_results(alignment::two(base, other));
  const std::string text = comparison_text(c);
  CHECK_THAT(text, Contains("1000.00 +- n/a (n=1)"));
  CHECK_THAT(text, Contains("(n=2)"));
  CHECK(text.find("+- 0.00 (n=1)") == std::string::npos);
  const Json j = Json::parse(comparison_to_json(c));
  const Json& input0 = j["phases"][0]["metrics"][0]["inputs"][0];
  CHECK(input0["n"] == 1);
  CHECK(input0["stddev"].is_null());
  CHECK(input0["mean"] == Approx(1000.0 * 1024 * 1024));
}

TEST_CASE("what differs: sizes by bytes, defaults filled, aliases, no (none) lines", "[compare]") {
  SECTION("64m and 64M, an unset param and its default") {
    StepResult a = compare_step("seq", {compare_write_phase(kSecond)});
    StepResult b = a;
    a.params["size"] = "64m";
    b.params["size"] = "64M";
    b.params["iodepth"] = "1";  // disk's default; a lacks it (an older result)
    const Comparison same =
        compare_results(alignment::two(single_run_document(compare_environment(), {a}),
                                       single_run_document(compare_environment(), {b})));
    CHECK(alignment::fields_of(same).empty());
    b.params["size"] = "65m";
    b.params["iodepth"] = "4";
    const Comparison differ =
        compare_results(alignment::two(single_run_document(compare_environment(), {a}),
                                       single_run_document(compare_environment(), {b})));
    REQUIRE(alignment::fields_of(differ) ==
            std::vector<std::string>{"step seq: param iodepth", "step seq: param size"});
    CHECK(differ.environment[0].values == std::vector<std::string>{"1", "4"});
    CHECK(differ.environment[1].values == std::vector<std::string>{"64m", "65m"});
  }
  SECTION("dbench 4's clients and procs against iobench's procs and clients_per_process") {
    // ref_dbench4_tmpfs.txt: "Throughput 1225.09 MB/sec  2 clients  2 procs ...".
    StepResult step = compare_step("dbench", {compare_phase("execute", kSecond, 100, 4096, 1000)});
    step.workload = "dbench";
    step.params = {{"procs", "2"}, {"clients_per_process", "1"}};
    step.given_params = {"procs"};
    const std::vector<CompareInput> inputs{
        {"dbench.txt", read_result_file(alignment::data_file("ref_dbench4_tmpfs.txt"))},
        {"iobench.json", through_json(single_run_document(compare_environment(), {step}))}};
    const Comparison c = compare_results(inputs);
    for (const EnvironmentDifference& d : c.environment) {
      INFO(d.field);
      CHECK(d.field.find("param") == std::string::npos);
      // Only fields two inputs state differently: a "(none)" beside one value is not listed.
      std::set<std::string> stated;
      for (const std::string& v : d.values) {
        if (v != "(none)") stated.insert(v);
      }
      CHECK(stated.size() >= 2);
    }
  }
}

TEST_CASE("fio's jobs line up with the disk steps doing the same I/O", "[compare][classic]") {
  // disk_like_fio.json: iobench's disk, steps randread4k (operation=read seek=random bs=4k) and
  // write64k (operation=write bs=64k), 4 MiB each on tmpfs; fio_disk_jobs.json: fio 3.33, jobs
  // randread4k (rw=randread bs=4k), write64k (rw=write bs=64k), randrw4k, ioengine=psync.
  const std::vector<CompareInput> inputs{
      {"disk.json", read_result_file(alignment::data_file("disk_like_fio.json"))},
      {"fio.json", read_result_file(alignment::data_file("fio_disk_jobs.json"))}};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.phases.size() == 2);
  CHECK(c.phases[0].step == "randread4k");
  CHECK(c.phases[0].workload == "disk");
  CHECK(c.phases[0].phase == "read");
  CHECK(c.phases[1].step == "write64k");
  CHECK(c.phases[1].phase == "write");
  // fio's own figures: randread4k read bw_bytes 2097152000, write64k write bw_bytes 4194304000.
  const MetricRow& read = alignment::row_of(c.phases[0], CompareMetric::kThroughput);
  CHECK(read.inputs[1].values == std::vector<double>{2097152000.0});
  REQUIRE(read.changes[0].has_value());
  const MetricRow& write = alignment::row_of(c.phases[1], CompareMetric::kThroughput);
  CHECK(write.inputs[1].values == std::vector<double>{4194304000.0});
  // bs 4k and 4096, size 4M and 4m are the same: only the source differs.
  CHECK(alignment::fields_of(c) == std::vector<std::string>{"source"});
  // The mixed job stays fio's, said why.
  bool said = false;
  for (const NotMapped& entry : c.not_mapped) {
    said = said || entry.what.find("fio job 'randrw4k' not lined up with a disk step: rw=randrw") !=
                       std::string::npos;
  }
  CHECK(said);
  REQUIRE(c.unmatched.size() == 1);
  CHECK(c.unmatched[0].step == "randrw4k");
}

TEST_CASE("compare CLI: fio against disk, and a gate with nothing to compare exits 2",
          "[compare][classic][cli]") {
  const std::string disk = alignment::data_file("disk_like_fio.json");
  const CliResult lined = run_cli({"compare", disk, alignment::data_file("fio_disk_jobs.json"),
                                   "--metrics", "throughput", "--fail-if-worse", "1000"});
  INFO(lined.err);
  CHECK(lined.exit_code == 0);
  CHECK_THAT(lined.out, Contains("== step randread4k (disk), phase read"));
  // fio_a.json's seqwrite does 4k writes: no disk step does; its write phase is compared with
  // nothing, so the gate has nothing to judge.
  const CliResult none = run_cli({"compare", disk, alignment::data_file("fio_a.json"), "--phases",
                                  "write", "--fail-if-worse", "5"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.out, Contains("No phase is in the baseline and another input."));
  CHECK_THAT(none.out, Contains("fio job 'seqwrite' not lined up with a disk step: no disk step "
                                "does operation=write seek=sequential bs=4096 iodepth=1 "
                                "engine=psync mode=buffered"));
  CHECK_THAT(none.err, Contains("--fail-if-worse 5: nothing to compare"));
  // Without the gate the listing alone exits 0.
  CHECK(run_cli({"compare", disk, alignment::data_file("fio_a.json"), "--phases", "write"})
            .exit_code == 0);
}

TEST_CASE("dbench: beside dbench's own output iobench's headline figure is compared",
          "[compare][classic]") {
  // An iobench dbench execute phase: 3.032 s, 600 MB of ReadX/WriteX in all, 524406190 bytes by
  // the last whole-second tick (2 s): dbench's figure 262.2 MB/s, the whole period's 197.9.
  PhaseResult execute = compare_phase("execute", 3'032'010'921, 1000, 600'000, 1000);
  execute.counter_names = {"lines", "bytes_to_last_tick"};
  execute.counters = {146162, 524406190};
  StepResult step = compare_step("dbench", {execute});
  step.workload = "dbench";
  step.params = {{"procs", "2"}};
  step.given_params = {"procs"};
  step.attributes = {{"tick_seconds", std::int64_t{2}}};
  const ResultDocument iobench = through_json(single_run_document(compare_environment(), {step}));
  SECTION("against dbench's output: the headline figure, said so") {
    const std::vector<CompareInput> inputs{
        {"dbench.txt", read_result_file(alignment::data_file("ref_dbench4_tmpfs.txt"))},
        {"iobench.json", iobench}};
    const Comparison c = compare_results(inputs);
    REQUIRE(c.phases.size() == 1);
    const MetricRow& throughput = alignment::row_of(c.phases[0], CompareMetric::kThroughput);
    CHECK(throughput.inputs[0].values == std::vector<double>{1166.97e6});
    CHECK(throughput.inputs[1].values == std::vector<double>{524406190.0 / 2});
    REQUIRE(c.phases[0].notes.size() == 1);
    CHECK_THAT(c.phases[0].notes[0], Contains("dbench's headline figure in every input"));
    CHECK_THAT(comparison_text(c), Contains("Compared: throughput: dbench's headline figure"));
  }
  SECTION("iobench against iobench: the whole execute period, said so") {
    const Comparison c = compare_results(alignment::two(iobench, iobench));
    REQUIRE(c.phases.size() == 1);
    const MetricRow& throughput = alignment::row_of(c.phases[0], CompareMetric::kThroughput);
    CHECK(throughput.inputs[0].values[0] == Approx(600'000'000.0 / 3.032010921));
    REQUIRE(c.phases[0].notes.size() == 1);
    CHECK_THAT(c.phases[0].notes[0], Contains("the whole execute period"));
  }
}
