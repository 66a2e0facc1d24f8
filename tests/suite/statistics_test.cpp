#include <catch2/catch.hpp>
#include <cmath>
#include <iobench/statistics.hpp>
#include <vector>

using iobench::jain_fairness;
using iobench::student_t_975;
using iobench::summarize_sample;

TEST_CASE("student t quantiles match the table and interpolate in 1 over df", "[suite]") {
  CHECK(student_t_975(0) == 0.0);
  CHECK(student_t_975(1) == 12.706);
  CHECK(student_t_975(2) == 4.303);
  CHECK(student_t_975(9) == 2.262);
  CHECK(student_t_975(30) == 2.042);
  CHECK(student_t_975(40) == Approx(2.021));
  CHECK(student_t_975(60) == Approx(2.000));
  CHECK(student_t_975(120) == Approx(1.980));
  // df 35: 1/35 lies 3/7 of the way from 1/40 to 1/30: 2.021 + 3/7 * 0.021 = 2.030.
  CHECK(student_t_975(35) == Approx(2.030).epsilon(1e-9));
  // df 1000: 2.021..1.960 tail, 1/1000 is 0.12 of 1/120: 1.960 + 0.12 * 0.020 = 1.9624.
  CHECK(student_t_975(1000) == Approx(1.9624).epsilon(1e-9));
  // Monotonic decreasing towards 1.960.
  for (std::size_t df = 1; df < 500; ++df) CHECK(student_t_975(df + 1) <= student_t_975(df));
}

TEST_CASE("sample summary against hand-computed values", "[suite]") {
  // {10, 12, 14}: mean 12, squares 4+0+4 = 8, s^2 = 8/2 = 4, s = 2, CV 16.67 %,
  // half-width 4.303 * 2 / sqrt(3) = 4.9686764.
  const std::vector<double> three{10, 12, 14};
  const auto s = summarize_sample(three);
  CHECK(s.count == 3);
  CHECK(s.mean == 12);
  CHECK(s.stddev == Approx(2.0));
  CHECK(s.min == 10);
  CHECK(s.max == 14);
  CHECK(s.cv_percent == Approx(100.0 / 6.0));
  CHECK(s.ci95_half == Approx(4.303 * 2 / std::sqrt(3.0)));
  CHECK(s.ci95_low == Approx(12 - 4.9686764).epsilon(1e-7));
  CHECK(s.ci95_high == Approx(12 + 4.9686764).epsilon(1e-7));
  CHECK(s.high_variation);

  // {100, 102}: s = sqrt(2), half-width 12.706 * sqrt(2) / sqrt(2) = 12.706; CV 1.40 %.
  const std::vector<double> two{102, 100};
  const auto t = summarize_sample(two);
  CHECK(t.mean == 101);
  CHECK(t.stddev == Approx(std::sqrt(2.0)));
  CHECK(t.ci95_half == Approx(12.706));
  CHECK(t.cv_percent == Approx(std::sqrt(2.0) / 101 * 100));
  CHECK_FALSE(t.high_variation);

  const std::vector<double> one{5};
  const auto u = summarize_sample(one);
  CHECK(u.mean == 5);
  CHECK(u.stddev == 0);
  CHECK(u.ci95_low == 5);
  CHECK(u.ci95_high == 5);
  CHECK(summarize_sample(std::vector<double>{}).count == 0);
}

TEST_CASE("jain fairness index", "[suite]") {
  CHECK(jain_fairness(std::vector<double>{3, 3, 3, 3}) == Approx(1.0));
  CHECK(jain_fairness(std::vector<double>{1, 0, 0, 0}) == Approx(0.25));
  // (1+2+3)^2 / (3 * (1+4+9)) = 36 / 42.
  CHECK(jain_fairness(std::vector<double>{1, 2, 3}) == Approx(36.0 / 42.0));
  CHECK(jain_fairness(std::vector<double>{}) == 1.0);
  CHECK(jain_fairness(std::vector<double>{0, 0}) == 1.0);
}

namespace {

// A step result with one phase "write": two workers, each `ops` ops of `bytes` bytes at a
// latency of `latency_ns`, over `wall_ns`.
iobench::StepResult make_result(std::uint64_t wall_ns, std::uint64_t ops0, std::uint64_t ops1,
                                std::uint64_t bytes, std::uint64_t latency_ns) {
  iobench::PhaseResult phase;
  phase.name = "write";
  phase.op_names = {"write"};
  phase.wall_ns = wall_ns;
  phase.process_cpu = {.user_ns = wall_ns / 4, .system_ns = wall_ns / 4};
  phase.ops.resize(1);
  for (const std::uint64_t ops : {ops0, ops1}) {
    iobench::WorkerResult worker;
    worker.index = phase.workers.size();
    worker.elapsed_ns = wall_ns;
    worker.ops.resize(1);
    for (std::uint64_t i = 0; i < ops; ++i) worker.ops[0].record(bytes, latency_ns);
    phase.ops[0].merge(worker.ops[0]);
    phase.workers.push_back(worker);
  }
  iobench::StepResult step;
  step.name = "w";
  step.phases.push_back(phase);
  return step;
}

}  // namespace

TEST_CASE("repetition statistics per phase from step results", "[suite]") {
  // 1 s walls; 100, 120, 140 ops of 1000 bytes: throughput 100000, 120000, 140000 bytes/s.
  const auto a = make_result(1'000'000'000, 50, 50, 1000, 1000);
  const auto b = make_result(1'000'000'000, 60, 60, 1000, 2000);
  const auto c = make_result(1'000'000'000, 70, 70, 1000, 3000);
  auto failed = c;
  failed.status = iobench::Status::kFailed;
  const std::vector<const iobench::StepResult*> reps{&a, &b, &c, &failed};
  const auto stats = iobench::repetition_statistics(reps);
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].phase == "write");
  REQUIRE(stats[0].metrics.size() == 4);
  const auto& throughput = stats[0].metrics[0];
  CHECK(throughput.metric == "throughput_bytes_per_s");
  CHECK(throughput.values == std::vector<double>{100000, 120000, 140000});
  CHECK(throughput.stats.mean == Approx(120000));
  CHECK(throughput.stats.stddev == Approx(20000));
  CHECK(throughput.stats.ci95_half == Approx(4.303 * 20000 / std::sqrt(3.0)));
  CHECK(stats[0].metrics[1].metric == "ops_per_s");
  CHECK(stats[0].metrics[1].stats.mean == Approx(120));
  CHECK(stats[0].metrics[2].metric == "latency_mean_ns");
  CHECK(stats[0].metrics[2].values == std::vector<double>{1000, 2000, 3000});
  CHECK(stats[0].metrics[3].metric == "latency_p99_ns");
  CHECK(stats[0].metrics[3].values[1] == Approx(2000).epsilon(0.004));
}

TEST_CASE("sweep rows have the AIM columns and mark the peak", "[suite]") {
  const auto p1 = make_result(1'000'000'000, 100, 100, 4096, 1000);  // 819200 B/s, fair
  const auto p2 = make_result(1'000'000'000, 300, 100, 4096, 5000);  // 1638400 B/s, unfair
  const auto p4 = make_result(2'000'000'000, 200, 200, 4096, 9000);  // 819200 B/s
  const std::vector<std::string> points{"1", "2", "4"};
  const std::vector<std::vector<const iobench::StepResult*>> results{{&p1}, {&p2}, {&p4}};
  const auto rows = iobench::sweep_rows(points, results);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].point == "1");
  CHECK(rows[0].throughput_bytes_per_s == Approx(819200));
  CHECK(rows[0].ops_per_s == Approx(200));
  CHECK(rows[0].per_worker_bytes_per_s == Approx(409600));
  CHECK(rows[0].fairness == Approx(1.0));
  CHECK(rows[0].cpu_percent == Approx(50.0));
  CHECK(rows[0].max_latency_ns == 1000);
  CHECK_FALSE(rows[0].peak);
  CHECK(rows[1].throughput_bytes_per_s == Approx(1638400));
  // Workers at 300 and 100 ops: (400)^2 / (2 * (90000 + 10000)) = 0.8.
  CHECK(rows[1].fairness == Approx(0.8));
  CHECK(rows[1].peak);
  CHECK(rows[1].max_latency_ns == 5000);
  CHECK(rows[2].throughput_bytes_per_s == Approx(819200));
  CHECK_FALSE(rows[2].peak);
  CHECK(rows[2].samples == 1);
}
