// compare_results: alignment, changes and their marks, repetitions, partial matches, environment
// differences, selection and --fail-if-worse's regressions, on crafted documents read back from
// JSON.
#include <catch2/catch.hpp>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

using ::iobench::test::kSecond;

const MetricRow& row_of(const PhaseComparison& phase, CompareMetric metric) {
  for (const MetricRow& row : phase.metrics) {
    if (row.metric == metric) return row;
  }
  FAIL("no row for metric " << compare_metric_info(metric).name);
  throw std::logic_error("unreachable");
}

std::vector<CompareInput> two(const ResultDocument& a, const ResultDocument& b) {
  return {{"base.json", through_json(a)}, {"other.json", through_json(b)}};
}

}  // namespace

TEST_CASE("metric names and directions", "[compare]") {
  REQUIRE(compare_metrics().size() == 8);
  CHECK(parse_compare_metric("throughput") == CompareMetric::kThroughput);
  CHECK(parse_compare_metric("lat_p99_9") == CompareMetric::kLatencyP99_9);
  CHECK(compare_metric_info(CompareMetric::kIops).better == Better::kHigher);
  CHECK(compare_metric_info(CompareMetric::kLatencyMax).better == Better::kLower);
  CHECK(compare_metric_info(CompareMetric::kCpu).better == Better::kLower);
  CHECK_THROWS_WITH(parse_compare_metric("p99"),
                    "unknown metric 'p99'; metrics: throughput, iops, lat_mean, lat_p50, lat_p99, "
                    "lat_p99_9, lat_max, cpu");
}

TEST_CASE("a faster write and a slower read read as better and worse", "[compare]") {
  const auto base = single_run_document(
      compare_environment(),
      {compare_step("seq", {compare_write_phase(kSecond), compare_read_phase(kSecond)})});
  const auto other = single_run_document(
      compare_environment(), {compare_step("seq", {compare_write_phase(kSecond / 2),
                                                   compare_read_phase(2 * kSecond, 75'000)})});
  const Comparison c = compare_results(two(base, other));
  CHECK(c.environment.empty());
  CHECK(c.unmatched.empty());
  CHECK(c.left_out.empty());
  REQUIRE(c.phases.size() == 2);
  const PhaseComparison& write = c.phases[0];
  CHECK(write.step == "seq");
  CHECK(write.workload == "disk");
  CHECK(write.phase == "write");
  CHECK_FALSE(write.sweep_point);
  REQUIRE(write.metrics.size() == 8);

  // 1000 MiB in 1 s against 0.5 s: +100 % throughput (better), CPU % unchanged (both wall-based).
  const MetricRow& throughput = row_of(write, CompareMetric::kThroughput);
  CHECK(throughput.inputs[0].values == std::vector<double>{1000.0 * (1 << 20)});
  CHECK(throughput.inputs[1].values == std::vector<double>{2000.0 * (1 << 20)});
  REQUIRE(throughput.changes[0]);
  CHECK_THAT(*throughput.changes[0]->change_percent, WithinAbs(100.0, 1e-9));
  CHECK_THAT(*throughput.changes[0]->worse_percent, WithinAbs(-100.0, 1e-9));
  CHECK(throughput.changes[0]->direction == ChangeDirection::kBetter);
  CHECK(throughput.changes[0]->noise == Noise::kNoEstimate);
  CHECK_FALSE(throughput.changes[0]->welch.valid);
  CHECK(row_of(write, CompareMetric::kCpu).changes[0]->direction == ChangeDirection::kUnchanged);
  CHECK(row_of(write, CompareMetric::kLatencyMean).changes[0]->direction ==
        ChangeDirection::kUnchanged);

  // Read: half the throughput and 1.5 x the latency; both are worse, whichever way they moved.
  const PhaseComparison& read = c.phases[1];
  const MetricRow& iops = row_of(read, CompareMetric::kIops);
  CHECK_THAT(*iops.changes[0]->change_percent, WithinAbs(-50.0, 1e-9));
  CHECK(iops.changes[0]->direction == ChangeDirection::kWorse);
  const MetricRow& mean = row_of(read, CompareMetric::kLatencyMean);
  // Means are exact: (999 x 50 us + 500 us) / 1000 against the same with 75 us.
  CHECK(mean.inputs[0].values[0] == 50'450.0);
  CHECK(mean.inputs[1].values[0] == 75'675.0);
  CHECK_THAT(*mean.changes[0]->change_percent, WithinAbs(50.0, 1e-9));
  CHECK_THAT(*mean.changes[0]->worse_percent, WithinAbs(50.0, 1e-9));
  CHECK(mean.changes[0]->direction == ChangeDirection::kWorse);
  CHECK(row_of(read, CompareMetric::kLatencyMax).inputs[1].values[0] == 750'000.0);

  // --fail-if-worse: the read regressed by 50 % (IOPS, throughput, latencies); n = 1 counts.
  CHECK(regressions(c, 50.0).empty());  // "by more than"
  const std::vector<Regression> found = regressions(c, 49.0);
  REQUIRE_FALSE(found.empty());
  for (const Regression& r : found) {
    CHECK(r.phase == 1);
    CHECK(r.input == 1);
    CHECK(r.worse_percent > 49.0);
  }
}

TEST_CASE("repetitions: Welch's test tells noise from change", "[compare]") {
  // Write: walls 1.00/1.02/0.98 s against 1.01/0.99/1.03 s, noise. Read: 1.00/1.01/0.99 s against
  // 1.25/1.24/1.26 s, a 20 % loss far beyond its spread.
  const auto base =
      repeated_document(compare_environment(),
                        {{compare_write_phase(1'000'000'000), compare_read_phase(1'000'000'000)},
                         {compare_write_phase(1'020'000'000), compare_read_phase(1'010'000'000)},
                         {compare_write_phase(980'000'000), compare_read_phase(990'000'000)}});
  const auto other =
      repeated_document(compare_environment(),
                        {{compare_write_phase(1'010'000'000), compare_read_phase(1'250'000'000)},
                         {compare_write_phase(990'000'000), compare_read_phase(1'240'000'000)},
                         {compare_write_phase(1'030'000'000), compare_read_phase(1'260'000'000)}});
  const Comparison c = compare_results(two(base, other));
  REQUIRE(c.phases.size() == 2);
  const MetricRow& write = row_of(c.phases[0], CompareMetric::kThroughput);
  CHECK(write.inputs[0].stats.count == 3);
  CHECK(write.inputs[1].stats.count == 3);
  REQUIRE(write.changes[0]);
  CHECK(write.changes[0]->welch.valid);
  CHECK(write.changes[0]->noise == Noise::kWithinNoise);
  CHECK(write.changes[0]->welch.p_value > 0.05);
  const MetricRow& read = row_of(c.phases[1], CompareMetric::kThroughput);
  CHECK(read.changes[0]->noise == Noise::kSignificant);
  CHECK(read.changes[0]->direction == ChangeDirection::kWorse);
  CHECK(read.changes[0]->welch.p_value < 0.001);
  // The test statistic from the summaries, by hand: t = (m_b - m_a) / sqrt(s_a^2/3 + s_b^2/3).
  const SampleStats& a = read.inputs[0].stats;
  const SampleStats& b = read.inputs[1].stats;
  CHECK_THAT(
      read.changes[0]->welch.t,
      WithinRel((b.mean - a.mean) / std::sqrt(a.stddev * a.stddev / 3 + b.stddev * b.stddev / 3),
                1e-12));
  // Latency did not move at all: unchanged, no spread, not significant.
  const MetricRow& mean = row_of(c.phases[0], CompareMetric::kLatencyMean);
  CHECK(mean.changes[0]->direction == ChangeDirection::kUnchanged);
  CHECK(mean.changes[0]->noise == Noise::kWithinNoise);

  // The write is worse on average but within noise: never a regression, however small PCT.
  const std::vector<Regression> found = regressions(c, 5.0);
  REQUIRE_FALSE(found.empty());
  for (const Regression& r : found) CHECK(c.phases[r.phase].phase == "read");
  CompareOptions writes_only;
  writes_only.phases = {"write"};
  const Comparison w = compare_results(two(base, other), writes_only);
  REQUIRE(w.phases.size() == 1);
  CHECK(regressions(w, 0.0).empty());
}

TEST_CASE("a phase some repetitions lack is compared over the others, which are listed",
          "[compare]") {
  // The other run's second repetition has no read phase (a partial result file).
  const auto base = repeated_document(
      compare_environment(), {{compare_write_phase(kSecond), compare_read_phase(kSecond)},
                              {compare_write_phase(kSecond), compare_read_phase(kSecond)}});
  const auto other = repeated_document(
      compare_environment(), {{compare_write_phase(kSecond), compare_read_phase(2 * kSecond)},
                              {compare_write_phase(kSecond)},
                              {compare_write_phase(kSecond), compare_read_phase(2 * kSecond)}});
  const Comparison c = compare_results(two(base, other));
  REQUIRE(c.phases.size() == 2);
  const MetricRow& read = row_of(c.phases[1], CompareMetric::kThroughput);
  CHECK(read.inputs[1].stats.count == 2);
  CHECK(c.unmatched.empty());
  REQUIRE(c.left_out.size() == 1);
  CHECK(c.left_out[0].input == 1);
  CHECK(c.left_out[0].repetition == 2);
  CHECK(c.left_out[0].phase == "read");
  CHECK(c.left_out[0].status == Status::kSkipped);
}

TEST_CASE("a single run against repetitions has no noise estimate", "[compare]") {
  const auto base = single_run_document(compare_environment(),
                                        {compare_step("seq", {compare_write_phase(kSecond)})});
  const auto other = repeated_document(
      compare_environment(), {{compare_write_phase(kSecond)}, {compare_write_phase(2 * kSecond)}});
  const Comparison c = compare_results(two(base, other));
  REQUIRE(c.phases.size() == 1);
  const MetricRow& throughput = row_of(c.phases[0], CompareMetric::kThroughput);
  CHECK(throughput.inputs[0].stats.count == 1);
  CHECK(throughput.inputs[1].stats.count == 2);
  CHECK(throughput.changes[0]->noise == Noise::kNoEstimate);
  CHECK_THAT(*throughput.changes[0]->change_percent, WithinAbs(-25.0, 1e-9));
  CHECK(regressions(c, 20.0).size() >= 1);  // n = 1 on one side: the change alone counts
}

TEST_CASE("steps and phases in only some inputs are listed, the rest compared", "[compare]") {
  const auto base = single_run_document(
      compare_environment(),
      {compare_step("seq", {compare_write_phase(kSecond), compare_read_phase(kSecond)}),
       compare_step("meta", {compare_phase("create", kSecond, 100, 0, 20'000)})});
  StepResult failed = compare_step("rand", {});
  failed.status = Status::kFailed;
  failed.message = "pwrite: No space left on device";
  const auto other = single_run_document(
      compare_environment(), {compare_step("seq", {compare_write_phase(kSecond)}), failed});
  const Comparison c = compare_results(two(base, other));
  REQUIRE(c.phases.size() == 1);
  CHECK(c.phases[0].phase == "write");
  REQUIRE(c.unmatched.size() == 3);
  CHECK(c.unmatched[0].step == "seq");
  CHECK(c.unmatched[0].phase == "read");
  CHECK(c.unmatched[0].present == std::vector<std::size_t>{0});
  CHECK(c.unmatched[0].missing == std::vector<std::size_t>{1});
  CHECK(c.unmatched[1].step == "meta");
  CHECK(c.unmatched[1].phase.empty());
  CHECK(c.unmatched[2].step == "rand");
  CHECK(c.unmatched[2].present == std::vector<std::size_t>{1});
  REQUIRE(c.left_out.size() == 1);
  CHECK(c.left_out[0].input == 1);
  CHECK(c.left_out[0].step == "rand");
  CHECK(c.left_out[0].status == Status::kFailed);
  CHECK(c.left_out[0].message == "pwrite: No space left on device");
}

TEST_CASE("environment differences: system, targets and step options", "[compare]") {
  Environment changed = compare_environment();
  changed.kernel = "Linux 6.8.0";
  changed.targets[0].mount_options = "rw,noatime";
  changed.targets[0].fs_type = "xfs";
  changed.start_time_utc = "2026-02-01T00:00:00Z";  // always differs: not listed
  changed.targets[0].free_bytes = 1;                // likewise
  StepResult step = compare_step("seq", {compare_write_phase(kSecond)});
  step.params["bs"] = "65536";
  step.engine = "io_uring";
  const auto base = single_run_document(compare_environment(),
                                        {compare_step("seq", {compare_write_phase(kSecond)})});
  const auto other = single_run_document(changed, {step});
  const Comparison c = compare_results(two(base, other));
  std::vector<std::string> fields;
  for (const EnvironmentDifference& d : c.environment) fields.push_back(d.field);
  CHECK(fields == std::vector<std::string>{"kernel", "target 0 fs_type", "target 0 mount_options",
                                           "step seq: param bs", "step seq: engine"});
  CHECK(c.environment[3].values == std::vector<std::string>{"4096", "65536"});
}

TEST_CASE("selection: metrics in the order given, unknown phases refused", "[compare]") {
  const auto doc = single_run_document(
      compare_environment(),
      {compare_step("seq", {compare_write_phase(kSecond), compare_read_phase(kSecond)})});
  CompareOptions options;
  options.metrics = {CompareMetric::kLatencyP99, CompareMetric::kThroughput};
  options.phases = {"read"};
  const Comparison c = compare_results(two(doc, doc), options);
  REQUIRE(c.phases.size() == 1);
  CHECK(c.phases[0].phase == "read");
  REQUIRE(c.phases[0].metrics.size() == 2);
  CHECK(c.phases[0].metrics[0].metric == CompareMetric::kLatencyP99);
  CHECK(c.phases[0].metrics[1].metric == CompareMetric::kThroughput);
  CHECK(c.phases[0].metrics[0].changes[0]->direction == ChangeDirection::kUnchanged);
  options.phases = {"rewrite"};
  CHECK_THROWS_WITH(compare_results(two(doc, doc), options),
                    "phase 'rewrite' is in none of the inputs; their phases: write, read");
  CHECK_THROWS_AS(compare_results(std::vector<CompareInput>{{"a", doc}}), ConfigError);
}

TEST_CASE("a phase without bytes has no throughput row", "[compare]") {
  const auto doc = single_run_document(
      compare_environment(),
      {compare_step("meta", {compare_phase("create", kSecond, 100, 0, 20'000)})});
  const Comparison c = compare_results(two(doc, doc));
  REQUIRE(c.phases.size() == 1);
  CHECK(c.phases[0].metrics.size() == 7);
  CHECK(c.phases[0].metrics[0].metric == CompareMetric::kIops);
}

TEST_CASE("sweep points align by value, unmatched points are listed", "[compare]") {
  const auto swept = [](const std::vector<std::pair<std::string, std::uint64_t>>& points) {
    ResultDocument document = single_run_document(compare_environment(), {});
    for (const auto& [point, wall_ns] : points) {
      document.run.steps.push_back(compare_step("sweep", {compare_write_phase(wall_ns)}));
      document.placements.push_back(
          StepPlacement{.suite_step = "threads", .sweep_point = point, .repetition = 1});
    }
    return document;
  };
  const auto base = swept({{"1", kSecond}, {"2", kSecond}});
  const auto other = swept({{"1", kSecond / 4}, {"4", kSecond}});
  const Comparison c = compare_results(two(base, other));
  REQUIRE(c.phases.size() == 1);
  CHECK(c.phases[0].step == "threads");
  CHECK(c.phases[0].sweep_point == "1");
  CHECK_THAT(*row_of(c.phases[0], CompareMetric::kThroughput).changes[0]->change_percent,
             WithinAbs(300.0, 1e-9));
  REQUIRE(c.unmatched.size() == 2);
  CHECK(c.unmatched[0].sweep_point == "2");
  CHECK(c.unmatched[0].missing == std::vector<std::size_t>{1});
  CHECK(c.unmatched[1].sweep_point == "4");
  CHECK(c.unmatched[1].missing == std::vector<std::size_t>{0});
}

TEST_CASE("steps of one run named alike are different steps, not repetitions", "[compare]") {
  const auto doc = single_run_document(compare_environment(),
                                       {compare_step("seq", {compare_write_phase(kSecond)}),
                                        compare_step("seq", {compare_write_phase(2 * kSecond)})});
  const Comparison c = compare_results(two(doc, doc));
  REQUIRE(c.phases.size() == 2);
  CHECK(c.phases[0].step == "seq");
  CHECK(c.phases[1].step == "seq (2)");
  CHECK(row_of(c.phases[1], CompareMetric::kThroughput).inputs[0].values ==
        std::vector<double>{500.0 * (1 << 20)});
}

TEST_CASE("IOPS and latency describe the ops that move data, not a closing fsync", "[compare]") {
  PhaseResult phase;
  phase.name = "write";
  phase.op_names = {"write", "fsync"};
  phase.wall_ns = 1'000'000'000;
  phase.ops.resize(2);
  for (int i = 0; i < 100; ++i) phase.ops[0].record(4096, 1'000);
  phase.ops[1].record(0, 5'000'000);  // one fsync of 5 ms
  CHECK(phase_metric(phase, CompareMetric::kIops) == Approx(100.0));
  CHECK(phase_metric(phase, CompareMetric::kLatencyMean) == Approx(1'000.0));
  CHECK(phase_metric(phase, CompareMetric::kLatencyMax) == Approx(1'000.0).epsilon(0.004));
  CHECK(phase_metric(phase, CompareMetric::kThroughput) == Approx(409'600.0));
  // A phase without data ops (creates, stats) counts all of them.
  PhaseResult meta;
  meta.op_names = {"create"};
  meta.wall_ns = 1'000'000'000;
  meta.ops.resize(1);
  for (int i = 0; i < 10; ++i) meta.ops[0].record(0, 2'000);
  CHECK(phase_metric(meta, CompareMetric::kIops) == Approx(10.0));
  CHECK(phase_metric(meta, CompareMetric::kLatencyMean) == Approx(2'000.0));
}

namespace {

// compare_read_phase with counter "mismatches" = `mismatches` and "items_done" = `done`.
PhaseResult counted_read(std::uint64_t mismatches, std::uint64_t done) {
  PhaseResult phase = compare_read_phase(kSecond);
  phase.counter_names = {"items_done", "mismatches"};
  phase.counters = {done, mismatches};
  for (WorkerResult& worker : phase.workers) worker.counters = phase.counters;
  return phase;
}

}  // namespace

TEST_CASE("counters over repetitions: each input's total and its values in run order",
          "[compare][counters]") {
  const std::vector<CompareInput> inputs{
      {"base.json", through_json(repeated_document(
                        compare_environment(), {{counted_read(0, 10)}, {counted_read(0, 10)}}))},
      {"new.json", through_json(repeated_document(compare_environment(),
                                                  {{counted_read(1, 10)}, {counted_read(4, 10)}}))},
      {"plain.json",
       through_json(repeated_document(compare_environment(), {{compare_read_phase(kSecond)}}))}};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.phases.size() == 1);
  // items_done is 20 in both inputs that have it; the input with no counters at all says
  // nothing about it: only the failures counted are listed.
  REQUIRE(c.phases[0].counters.size() == 1);
  const CounterRow& mismatches = c.phases[0].counters[0];
  CHECK(mismatches.name == "mismatches");
  CHECK(mismatches.failure);
  CHECK(mismatches.inputs[0].values == std::vector<std::uint64_t>{0, 0});
  CHECK(mismatches.inputs[1].values == std::vector<std::uint64_t>{1, 4});
  CHECK(mismatches.inputs[1].total == 5);
  CHECK(mismatches.inputs[2].measured);
  CHECK(mismatches.inputs[2].values.empty());
  // The table's padding collapsed: one space between cells.
  const std::string text = std::regex_replace(comparison_text(c), std::regex(" +"), " ");
  CHECK_THAT(text, Contains(" mismatches 0 (n=2: 0, 0) 5 (n=2: 1, 4) n/a failures, worse in #1\n"));
  // Above the baseline's 0 in new.json: worse, and the gate's reason whatever PCT.
  CHECK(mismatches.worse == std::vector<std::size_t>{1});
  const std::vector<CounterRegression> failed = counter_regressions(c);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].phase == 0);
  CHECK(failed[0].counter == 0);
  CHECK(failed[0].input == 1);
  CHECK_THAT(text, !Contains("items_done"));
  const nlohmann::json j = nlohmann::json::parse(comparison_to_json(c));
  const nlohmann::json& row = j.at("phases").at(0).at("counters").at(0);
  CHECK(row.at("inputs").at(1).at("values") == nlohmann::json::array({1, 4}));
  CHECK(row.at("inputs").at(1).at("total") == 5);
  CHECK(row.at("inputs").at(2).at("n") == 0);
  CHECK(row.at("inputs").at(2).at("total").is_null());
  CHECK(row.at("worse") == nlohmann::json::array({1}));
}

TEST_CASE("a failure counter is worse above the baseline's per-result mean",
          "[compare][counters]") {
  const auto runs = [](const std::vector<std::uint64_t>& mismatches) {
    std::vector<std::vector<PhaseResult>> repetitions;
    for (const std::uint64_t m : mismatches) repetitions.push_back({counted_read(m, 10)});
    return through_json(repeated_document(compare_environment(), repetitions));
  };
  const auto worse_in = [&runs](const std::vector<std::uint64_t>& base,
                                const std::vector<std::vector<std::uint64_t>>& others) {
    std::vector<CompareInput> inputs{{"base.json", runs(base)}};
    for (const auto& other : others) inputs.push_back({"other.json", runs(other)});
    const Comparison c = compare_results(inputs);
    REQUIRE(c.phases.size() == 1);
    REQUIRE(c.phases[0].counters.size() == 1);
    CHECK(c.phases[0].counters[0].name == "mismatches");
    std::vector<std::size_t> gate;
    for (const CounterRegression& r : counter_regressions(c)) gate.push_back(r.input);
    CHECK(gate == c.phases[0].counters[0].worse);
    // The metrics are alike: no PCT finds a regression in them.
    CHECK(regressions(c, 0.0).empty());
    return c.phases[0].counters[0].worse;
  };
  // 3 in one result against 1 in each of three: a smaller total (3 = 3) but a higher mean (3 > 1).
  CHECK(worse_in({1, 1, 1}, {{3}}) == std::vector<std::size_t>{1});
  CHECK(worse_in({1, 1, 1}, {{2, 1, 0}}).empty());  // total 3 = 3, mean 1 = 1: not worse
  CHECK(worse_in({2}, {{1, 1, 1}}).empty());        // total 3 > 2 but mean 1 < 2: better
  // Over three inputs each is judged against the baseline alone.
  CHECK(worse_in({0}, {{0}, {1}, {0}}) == std::vector<std::size_t>{2});
  CHECK(worse_in({0}, {{4}, {0}, {1}}) == std::vector<std::size_t>{1, 3});
}

TEST_CASE("a failure counter the baseline does not count is worse where above 0",
          "[compare][counters]") {
  // The baseline's read counts items_done only (an older result without the data check).
  PhaseResult unchecked = compare_read_phase(kSecond);
  unchecked.counter_names = {"items_done"};
  unchecked.counters = {10};
  for (WorkerResult& worker : unchecked.workers) worker.counters = unchecked.counters;
  const auto input = [](const char* name, const PhaseResult& phase) {
    return CompareInput{name, through_json(repeated_document(compare_environment(), {{phase}}))};
  };
  const std::vector<CompareInput> inputs{input("old.json", unchecked),
                                         input("bad.json", counted_read(2, 10)),
                                         input("good.json", counted_read(0, 10))};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.phases.size() == 1);
  REQUIRE(c.phases[0].counters.size() == 1);
  const CounterRow& row = c.phases[0].counters[0];
  CHECK(row.name == "mismatches");
  CHECK(row.inputs[0].measured);
  CHECK(row.inputs[0].values.empty());
  CHECK(row.worse == std::vector<std::size_t>{1});
  REQUIRE(counter_regressions(c).size() == 1);
  CHECK(counter_regressions(c)[0].input == 1);
}

TEST_CASE("counters are compared by their per-result means, not their sums",
          "[compare][counters]") {
  // Two repetitions against three, each alike: totals 20 and 30, means 10 and 10.
  const auto runs = [](std::size_t count, std::uint64_t done) {
    std::vector<std::vector<PhaseResult>> repetitions;
    for (std::size_t r = 0; r < count; ++r) repetitions.push_back({counted_read(0, done)});
    return through_json(repeated_document(compare_environment(), repetitions));
  };
  const std::vector<CompareInput> same{{"two.json", runs(2, 10)}, {"three.json", runs(3, 10)}};
  const Comparison alike = compare_results(same);
  REQUIRE(alike.phases.size() == 1);
  CHECK(alike.phases[0].counters.empty());
  // A per-result mean that differs is listed, with each input's total and values.
  const std::vector<CompareInput> other{{"two.json", runs(2, 10)}, {"three.json", runs(3, 11)}};
  const Comparison differ = compare_results(other);
  REQUIRE(differ.phases.size() == 1);
  REQUIRE(differ.phases[0].counters.size() == 1);
  const CounterRow& done = differ.phases[0].counters[0];
  CHECK(done.name == "items_done");
  CHECK_FALSE(done.failure);
  CHECK(done.inputs[0].total == 20);
  CHECK(done.inputs[0].mean() == 10.0);
  CHECK(done.inputs[1].total == 33);
  CHECK(done.inputs[1].values == std::vector<std::uint64_t>{11, 11, 11});
  CHECK(done.inputs[1].mean() == 11.0);
}

TEST_CASE("a counter only some inputs have is listed among inputs whose phase has counters",
          "[compare][counters]") {
  // The imported input (no counters at all) says nothing; the one with other counters lacks
  // items_done.
  PhaseResult other = compare_read_phase(kSecond);
  other.counter_names = {"mismatches"};
  other.counters = {0};
  for (WorkerResult& worker : other.workers) worker.counters = other.counters;
  const auto input = [](const char* name, const PhaseResult& phase) {
    return CompareInput{name, through_json(repeated_document(compare_environment(), {{phase}}))};
  };
  const std::vector<CompareInput> imported{input("plain.json", compare_read_phase(kSecond)),
                                           input("base.json", counted_read(0, 10))};
  const Comparison quiet = compare_results(imported);
  REQUIRE(quiet.phases.size() == 1);
  CHECK(quiet.phases[0].counters.empty());
  const std::vector<CompareInput> differ{input("plain.json", compare_read_phase(kSecond)),
                                         input("base.json", counted_read(0, 10)),
                                         input("other.json", other)};
  const Comparison c = compare_results(differ);
  REQUIRE(c.phases.size() == 1);
  REQUIRE(c.phases[0].counters.size() == 1);
  const CounterRow& done = c.phases[0].counters[0];
  CHECK(done.name == "items_done");
  CHECK(done.inputs[0].values.empty());
  CHECK(done.inputs[1].values == std::vector<std::uint64_t>{10});
  CHECK(done.inputs[2].measured);
  CHECK(done.inputs[2].values.empty());
}

TEST_CASE("counter_counts_failures names the failure counts, counter_is_duration the times",
          "[compare][counters]") {
  for (const char* name : {"mismatches", "corrupt_blocks", "mismatch.NTCreateX", "missing_handle",
                           "short_read.ReadX", "short_write.WriteX", "deltree_errors"}) {
    INFO(name);
    CHECK(counter_counts_failures(name));
    CHECK_FALSE(counter_is_duration(name));
  }
  // The work and time counters the workloads emit.
  for (const char* name : {"matched", "done", "items_done", "lines", "verified_blocks",
                           "stonewall_ns", "items_at_stonewall", "no_file_picks", "woken_by_wakeup",
                           "ops_bs_4096", "loadfile_passes", "bytes_to_last_tick"}) {
    INFO(name);
    CHECK_FALSE(counter_counts_failures(name));
  }
  CHECK(counter_is_duration("stonewall_ns"));
  for (const char* name : {"items_at_stonewall", "bytes_to_last_tick", "done", "ns"}) {
    INFO(name);
    CHECK_FALSE(counter_is_duration(name));
  }
}

namespace {

// A read phase of `ops` ops with mdtest's stonewall counters and "mismatches".
PhaseResult stonewalled_read(std::uint64_t ops, std::uint64_t at_stonewall,
                             std::uint64_t stonewall_ns, std::uint64_t mismatches) {
  PhaseResult phase = compare_phase("read", kSecond, ops, 4096, 1000);
  phase.counter_names = {"items_done", "items_at_stonewall", "stonewall_ns", "mismatches"};
  phase.counters = {ops, at_stonewall, stonewall_ns, mismatches};
  for (WorkerResult& worker : phase.workers) worker.counters = phase.counters;
  return phase;
}

CompareInput document_input(const char* name, const std::vector<PhaseResult>& runs) {
  std::vector<std::vector<PhaseResult>> repetitions;
  for (const PhaseResult& run : runs) repetitions.push_back({run});
  return {name, through_json(repeated_document(compare_environment(), repetitions))};
}

}  // namespace

TEST_CASE("work counters of a time-limited phase and durations are not listed for differing",
          "[compare][counters]") {
  // Ran to the stonewall: 1000 and 1100 ops, the work counters follow them, times differ.
  const std::vector<CompareInput> limited{
      document_input("base.json", {stonewalled_read(1000, 900, 500'000, 0)}),
      document_input("new.json", {stonewalled_read(1100, 990, 600'000, 0)})};
  const Comparison quiet = compare_results(limited);
  REQUIRE(quiet.phases.size() == 1);
  CHECK(quiet.phases[0].counters.empty());
  // The same, but a failure counted: only that is listed.
  const std::vector<CompareInput> failed{
      document_input("base.json", {stonewalled_read(1000, 900, 500'000, 0)}),
      document_input("new.json", {stonewalled_read(1100, 990, 600'000, 2)})};
  const Comparison f = compare_results(failed);
  REQUIRE(f.phases.size() == 1);
  REQUIRE(f.phases[0].counters.size() == 1);
  CHECK(f.phases[0].counters[0].name == "mismatches");
  CHECK(f.phases[0].counters[0].inputs[1].total == 2);
  // The same ops per result: the work counter that differs is listed, the time is not.
  const std::vector<CompareInput> same_ops{
      document_input("base.json", {stonewalled_read(1000, 900, 500'000, 0),
                                   stonewalled_read(1000, 900, 700'000, 0)}),
      document_input("new.json", {stonewalled_read(1000, 800, 100'000, 0)})};
  const Comparison s = compare_results(same_ops);
  REQUIRE(s.phases.size() == 1);
  REQUIRE(s.phases[0].counters.size() == 1);
  const CounterRow& at = s.phases[0].counters[0];
  CHECK(at.name == "items_at_stonewall");
  CHECK_FALSE(at.duration);
  CHECK(at.inputs[0].total == 1800);
  CHECK(at.inputs[1].total == 800);
}

TEST_CASE("a duration counter only some inputs have is shown as its per-result mean",
          "[compare][counters]") {
  PhaseResult without = compare_phase("read", kSecond, 1000, 4096, 1000);
  without.counter_names = {"items_done"};
  without.counters = {1000};
  for (WorkerResult& worker : without.workers) worker.counters = without.counters;
  const std::vector<CompareInput> inputs{
      document_input("base.json",
                     {stonewalled_read(1000, 1000, 100, 0), stonewalled_read(1000, 1000, 300, 0)}),
      document_input("new.json", {without})};
  const Comparison c = compare_results(inputs);
  REQUIRE(c.phases.size() == 1);
  REQUIRE(c.phases[0].counters.size() == 3);
  const CounterRow& time = c.phases[0].counters[1];
  CHECK(time.name == "stonewall_ns");
  CHECK(time.duration);
  CHECK(time.inputs[0].mean() == 200.0);
  const std::string text = std::regex_replace(comparison_text(c), std::regex(" +"), " ");
  CHECK_THAT(text, Contains(" stonewall_ns 200 (n=2: 100, 300) n/a ns (mean)\n"));
  const nlohmann::json j = nlohmann::json::parse(comparison_to_json(c));
  const nlohmann::json& row = j.at("phases").at(0).at("counters").at(1);
  CHECK(row.at("duration") == true);
  CHECK(row.at("inputs").at(0).at("mean") == 200.0);
  CHECK(row.at("inputs").at(0).at("total") == 400);
  CHECK(row.at("inputs").at(1).at("mean").is_null());
}
