// Every phase's time series (PhaseResult::time_series): its measured points add up to the
// phase's totals exactly, an op counts in the interval it completed in, warm-up points are
// marked, the cap merges points without losing ops, and it survives the JSON round trip.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/series_recorder.hpp"
#include "tests/support/fake_workload.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace std::chrono_literals;

namespace {

struct Sums {
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
};

// Sums of the measured points, in total and for worker `worker` (SIZE_MAX: all).
Sums measured_sums(const TimeSeries& series, std::size_t worker = SIZE_MAX) {
  Sums s;
  for (const SeriesPoint& p : series.points) {
    if (p.warmup) continue;
    if (worker == SIZE_MAX) {
      s.bytes += p.bytes;
      s.ops += p.ops;
      continue;
    }
    for (const SeriesWorkerPoint& w : p.workers) {
      if (w.index != worker) continue;
      s.bytes += w.bytes;
      s.ops += w.ops;
    }
  }
  return s;
}

// Points follow each other without gaps or overlaps, and each is the sum of its workers.
void check_shape(const TimeSeries& series) {
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    const SeriesPoint& p = series.points[i];
    if (i + 1 < series.points.size())
      CHECK(series.points[i + 1].start_ns == p.start_ns + p.duration_ns);
    std::uint64_t bytes = 0, ops = 0, errors = 0, max = 0;
    for (const SeriesWorkerPoint& w : p.workers) {
      bytes += w.bytes;
      ops += w.ops;
      errors += w.errors;
      max = std::max(max, w.latency_ns.max);
    }
    CHECK(bytes == p.bytes);
    CHECK(ops == p.ops);
    CHECK(errors == p.errors);
    CHECK(max == p.latency_ns.max);
  }
}

void check_exact(const PhaseResult& phase) {
  check_shape(phase.time_series);
  const Sums all = measured_sums(phase.time_series);
  CHECK(all.bytes == phase.total_bytes());
  CHECK(all.ops == phase.total_ops());
  for (const WorkerResult& worker : phase.workers) {
    const Sums mine = measured_sums(phase.time_series, worker.index);
    CHECK(mine.bytes == worker.total_bytes());
    CHECK(mine.ops == worker.total_ops());
  }
}

RunResult run_step(Registry& registry, Step step) {
  test::CapturingReporter reporter;
  return Runner(registry, {}).run(std::vector<Step>{step}, reporter);
}

// One worker: kFastOps ops of 2 ms, one op of 250 ms, kFastOps more.
constexpr std::uint64_t kFastOps = 60;
constexpr auto kSlowOp = 250ms;

class SlowOpWorkload final : public Workload {
 public:
  explicit SlowOpWorkload(WorkerMode mode) : mode_(mode) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override {
    return {PhaseSpec{.name = "planted", .op_names = {"op"}, .workers = 1, .mode = mode_}};
  }
  std::unique_ptr<PhaseWorker> make_worker(std::size_t, WorkerContext&) override {
    return std::make_unique<Worker>();
  }

 private:
  struct Worker final : PhaseWorker {
    void run(WorkerContext& ctx) override {
      OpTimer timer;
      for (std::uint64_t i = 0; i < 2 * kFastOps + 1; ++i) {
        std::this_thread::sleep_for(i == kFastOps ? std::chrono::nanoseconds(kSlowOp)
                                                  : std::chrono::nanoseconds(2ms));
        timer.lap(ctx, 0, 512);
      }
    }
  };
  WorkerMode mode_;
};

}  // namespace

TEST_CASE("a disk run at --interval 100ms: measured points add up to the phase totals exactly",
          "[core][time_series]") {
  test::TempDir a("ts_disk_a");
  test::TempDir b("ts_disk_b");
  // 2048 writes of 4 KiB per worker: points of 100 ms (as many as the run takes).
  const test::CliResult r =
      test::run_cli({"run", "disk", "-d", a.path().string(), "-d", b.path().string(), "size=8m",
                     "bs=4k", "--interval", "100ms", "-f", "json", "-q"});
  REQUIRE(r.exit_code == 0);
  const ResultDocument doc = parse_result_json(r.out);
  REQUIRE(doc.run.steps.size() == 1);
  const PhaseResult& phase = doc.run.steps[0].phases.at(0);
  CHECK(phase.total_ops() == 2 * 2048 + 2);  // and one fsync per worker
  CHECK(phase.total_bytes() == 2 * 8 * 1024 * 1024);
  const TimeSeries& series = phase.time_series;
  CHECK(series.requested_interval_ns == 100'000'000);
  CHECK(series.interval_ns == 100'000'000);
  CHECK(series.merged_intervals == 1);
  CHECK(!series.points.empty());
  for (const SeriesPoint& p : series.points) {
    CHECK_FALSE(p.warmup);
    CHECK(p.workers.size() == 2);
  }
  check_exact(phase);
  // The JSON figures themselves add up too (the shape the HTML report reads).
  const auto j = nlohmann::json::parse(r.out);
  const auto& points = j["steps"][0]["phases"][0]["time_series"]["points"];
  std::uint64_t ops = 0;
  for (const auto& p : points) ops += p["ops"].get<std::uint64_t>();
  CHECK(ops == j["steps"][0]["phases"][0]["ops"].get<std::uint64_t>());
}

TEST_CASE("a planted slow op is the max and p99.9 of the interval it completed in",
          "[core][time_series]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    Registry registry;
    register_builtins(registry);
    registry.add_workload(
        WorkloadInfo{.name = "slowop",
                     .summary = "one slow op",
                     .params = {},
                     .factory = [mode](const WorkloadSetup&) -> std::unique_ptr<Workload> {
                       return std::make_unique<SlowOpWorkload>(mode);
                     }});
    test::TempDir dir("ts_slow");
    const RunResult run =
        run_step(registry, Step{.workload = "slowop", .targets = {dir.path()}, .interval = 100ms});
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    REQUIRE(phase.total_ops() == 2 * kFastOps + 1);
    check_exact(phase);
    const std::uint64_t slowest = phase.ops[0].latency.max();
    CHECK(slowest >= static_cast<std::uint64_t>(std::chrono::nanoseconds(kSlowOp).count()));
    // The single worker's ops complete in order: the slow one is op kFastOps + 1, so its point
    // is the one where the running op count reaches it.
    std::uint64_t before = 0;
    std::size_t at = 0;
    const auto& points = phase.time_series.points;
    while (at < points.size() && before + points[at].ops < kFastOps + 1) before += points[at++].ops;
    REQUIRE(at < points.size());
    const SeriesPoint& slow = points[at];
    CHECK(slow.latency_ns.max == slowest);
    CHECK(slow.workers.at(0).latency_ns.max == slowest);
    // Fewer than 1000 ops in the point: p99.9 is its top op, within the histogram's 1/32.
    CHECK(slow.latency_ns.p99_9 <= slowest);
    CHECK(slow.latency_ns.p99_9 >= slowest - slowest / 32);
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i != at) CHECK(points[i].latency_ns.max < slowest);
    }
  }
}

TEST_CASE("warm-up points are kept and marked: measured points still add up exactly",
          "[core][time_series][warmup]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    test::FakeConfig config;
    config.behaviour = test::FakeBehaviour::kUntilStopped;
    config.op_sleep = 1ms;
    config.phases[0].workers = 3;
    config.phases[0].mode = mode;
    Registry registry;
    register_builtins(registry);
    test::register_fake(registry, config);
    test::TempDir dir("ts_warm");
    const RunResult run = run_step(registry, Step{.workload = "fake",
                                                  .targets = {dir.path()},
                                                  .time_limit = 300ms,
                                                  .warmup = 250ms,
                                                  .interval = 100ms});
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    REQUIRE(phase.status == Status::kOk);
    check_exact(phase);
    const auto& points = phase.time_series.points;
    REQUIRE(!points.empty());
    CHECK(points.front().warmup);
    CHECK(points.front().start_ns == 0);
    std::uint64_t warm_ops = 0;
    std::uint64_t warm_ns = 0;
    bool measuring = false;
    for (const SeriesPoint& p : points) {
      if (!p.warmup) measuring = true;
      CHECK(p.warmup == !measuring);  // warm-up first, then only measured points
      if (p.warmup) {
        warm_ops += p.ops;
        warm_ns += p.duration_ns;
      }
    }
    CHECK(measuring);
    CHECK(warm_ops > 0);
    CHECK(warm_ns >= 250'000'000);  // the warm-up's points span it (3 of 100 ms, the last longer)
  }
}

TEST_CASE("worker processes' series add up exactly like threads'", "[core][time_series]") {
  test::FakeConfig config;
  config.ops = 20000;
  config.phases[0].workers = 3;
  config.phases[0].mode = WorkerMode::kProcesses;
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  test::TempDir dir("ts_proc");
  const RunResult run =
      run_step(registry, Step{.workload = "fake", .targets = {dir.path()}, .interval = 100ms});
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.total_ops() == 3 * 20000);
  check_exact(phase);
  CHECK(measured_sums(phase.time_series).bytes == 3 * 20000 * 4096ULL);
}

TEST_CASE("past the cap adjacent intervals merge pairwise without losing an op",
          "[core][time_series]") {
  constexpr std::uint64_t kInterval = 100'000'000;
  constexpr std::uint64_t kIntervals = 10'000;  // > 3600: merged twice, to 2500 points
  detail::SeriesRecorder recorder(kInterval, 2);
  recorder.begin_group(0, 2, 0);
  std::uint64_t expected_ops[2] = {0, 0};
  for (std::uint64_t i = 0; i < kIntervals; ++i) {
    for (std::size_t w = 0; w < 2; ++w) {
      IntervalStats s;
      s.index = i;
      s.ops = 1 + (i + w) % 7;
      s.bytes = s.ops * 512;
      for (std::uint64_t k = 0; k < s.ops; ++k) s.latency.record(1000 + i);
      expected_ops[w] += s.ops;
      recorder.add(w, s);
    }
  }
  recorder.end_group(0, kIntervals * kInterval);
  const TimeSeries series = recorder.build();
  CHECK(series.merged_intervals == 4);
  CHECK(series.interval_ns == 4 * kInterval);
  CHECK(series.requested_interval_ns == kInterval);
  REQUIRE(series.points.size() == kIntervals / 4);
  check_shape(series);
  Sums w0 = measured_sums(series, 0), w1 = measured_sums(series, 1);
  CHECK(w0.ops == expected_ops[0]);
  CHECK(w1.ops == expected_ops[1]);
  CHECK(w0.bytes == expected_ops[0] * 512);
  CHECK(measured_sums(series).ops == expected_ops[0] + expected_ops[1]);
  // Point k holds intervals 4k..4k+3: its largest latency is interval 4k+3's, exactly.
  CHECK(series.points[10].latency_ns.max == 1000 + 43);
  CHECK(series.points[10].start_ns == 40 * kInterval);
  CHECK(series.points.back().duration_ns == 4 * kInterval);
}

namespace {

// One worker, 10 ops of 4 KiB (latency 1000 + interval ns) in each of intervals 0..`last` of a
// part `length_ns` long.
TimeSeries one_part(std::uint64_t interval, std::uint64_t last, std::uint64_t length_ns) {
  detail::SeriesRecorder recorder(interval, 1);
  recorder.begin_group(0, 1, 0);
  for (std::uint64_t i = 0; i <= last; ++i) {
    IntervalStats s;
    s.index = i;
    s.ops = 10;
    s.bytes = 10 * 4096;
    for (std::uint64_t k = 0; k < s.ops; ++k) s.latency.record(1000 + i);
    recorder.add(0, s);
  }
  recorder.end_group(0, length_ns);
  return recorder.build();
}

}  // namespace

TEST_CASE("a part's last sliver folds into the point before it: its rate is over the real length",
          "[core][time_series]") {
  constexpr std::uint64_t kInterval = 100'000'000;
  SECTION("3 s plus 0.1 ms: 30 points, the last 100.1 ms long with the sliver's ops") {
    const TimeSeries series = one_part(kInterval, 30, 3'000'100'000);
    REQUIRE(series.points.size() == 30);
    check_shape(series);
    const SeriesPoint& last = series.points.back();
    CHECK(last.start_ns == 29 * kInterval);
    CHECK(last.duration_ns == 100'100'000);
    CHECK(last.ops == 20);
    CHECK(last.bytes == 20 * 4096);
    CHECK(last.latency_ns.max == 1030);
    CHECK(last.ops_per_s() == Approx(20 / 0.1001));
    CHECK(measured_sums(series).ops == 31 * 10);
  }
  SECTION("ops completed past the part's end fold in too (no point of 0 ns)") {
    const TimeSeries series = one_part(kInterval, 3, 3 * kInterval);
    REQUIRE(series.points.size() == 3);
    CHECK(series.points.back().duration_ns == kInterval);
    CHECK(series.points.back().ops == 20);
  }
  SECTION("a remainder of half an interval or more stays a point of its own") {
    const TimeSeries series = one_part(kInterval, 30, 3'050'000'000);
    REQUIRE(series.points.size() == 31);
    CHECK(series.points.back().duration_ns == 50'000'000);
    CHECK(series.points.back().ops == 10);
    CHECK(series.points.back().ops_per_s() == Approx(200.0));
  }
  SECTION("a part shorter than half an interval keeps its one point") {
    const TimeSeries series = one_part(kInterval, 0, 1'000'000);
    REQUIRE(series.points.size() == 1);
    CHECK(series.points[0].duration_ns == 1'000'000);
  }
}

TEST_CASE("many workers keep fewer points: the cells, not the points, are capped",
          "[core][time_series]") {
  // 512 workers: 2^18 cells / 512 = 512 points at most; 1500 intervals merge to 375 points.
  constexpr std::size_t kWorkers = 512;
  constexpr std::uint64_t kInterval = 100'000'000;
  constexpr std::uint64_t kIntervals = 1500;
  detail::SeriesRecorder recorder(kInterval, kWorkers);
  recorder.begin_group(0, kWorkers, 0);
  std::uint64_t ops = 0;
  for (std::uint64_t i = 0; i < kIntervals; ++i) {
    for (std::size_t w = 0; w < kWorkers; ++w) {
      IntervalStats s;
      s.index = i;
      s.ops = 1 + w % 3;
      s.bytes = s.ops * 4096;
      s.latency.record(2000);
      ops += s.ops;
      recorder.add(w, s);
    }
  }
  recorder.end_group(0, kIntervals * kInterval);
  const TimeSeries series = recorder.build();
  CHECK(series.points.size() <= kSeriesCellCap / kWorkers);
  CHECK(series.merged_intervals == 4);
  CHECK(series.points.size() == kIntervals / 4);
  CHECK(measured_sums(series).ops == ops);
  check_shape(series);
  // A few workers keep the point cap itself.
  CHECK(kSeriesCellCap / 72 >= kSeriesPointCap);
}

// A serial phase has a part per worker (tiotest serial_write with up to 4096 threads): more
// parts than the cap must neither merge forever (the factor overflowed to 0 and divided by it)
// nor lose an op.
TEST_CASE("a serial phase with more parts than the cap keeps one point per part",
          "[core][time_series]") {
  constexpr std::size_t kWorkers = 40;
  constexpr std::size_t kCap = 16;
  constexpr std::uint64_t kInterval = 100'000'000;
  detail::SeriesRecorder recorder(kInterval, kWorkers, kCap);
  std::uint64_t ops = 0;
  for (std::size_t w = 0; w < kWorkers; ++w) {
    recorder.begin_group(w, 1, 0);
    for (std::uint64_t i = 0; i < 3; ++i) {
      IntervalStats s;
      s.index = i;
      s.ops = 2;
      s.bytes = 2 * 4096;
      s.latency.record(5000);
      s.latency.record(7000);
      recorder.add(w, s);
      ops += s.ops;
    }
    recorder.end_group(0, 3 * kInterval);
  }
  const TimeSeries series = recorder.build();
  CHECK(series.merged_intervals <= 4);  // enough to fit each part in one point, no more
  CHECK(series.points.size() == kWorkers);
  check_shape(series);
  CHECK(measured_sums(series).ops == ops);
}

TEST_CASE("a long idle phase still keeps at most the cap of points", "[core][time_series]") {
  detail::SeriesRecorder recorder(100'000'000, 1);
  recorder.begin_group(0, 1, 0);
  IntervalStats s;
  s.index = 0;
  s.ops = 1;
  s.latency.record(5);
  recorder.add(0, s);
  recorder.end_group(0, 10ULL * 3600 * 1'000'000'000);  // 10 h at 100 ms: 360000 intervals
  const TimeSeries series = recorder.build();
  CHECK(series.points.size() <= kSeriesPointCap);
  CHECK(series.points.size() > kSeriesPointCap / 2);
  CHECK(measured_sums(series).ops == 1);
  check_shape(series);
}

TEST_CASE("the time series survives the JSON round trip and documents without it still read",
          "[core][time_series][json]") {
  test::FakeConfig config;
  config.ops = 3000;
  Registry registry;
  register_builtins(registry);
  test::register_fake(registry, config);
  test::TempDir dir("ts_json");
  ResultDocument doc;
  doc.run =
      run_step(registry,
               Step{.workload = "fake", .targets = {dir.path()}, .warmup = 0ms, .interval = 100ms});
  const PhaseResult& phase = doc.run.steps.at(0).phases.at(0);
  REQUIRE(!phase.time_series.points.empty());
  const std::string text = to_json(doc);
  const ResultDocument back = parse_result_json(text);
  CHECK(to_json(back) == text);
  const TimeSeries& a = phase.time_series;
  const TimeSeries& b = back.run.steps.at(0).phases.at(0).time_series;
  CHECK(b.requested_interval_ns == a.requested_interval_ns);
  CHECK(b.interval_ns == a.interval_ns);
  CHECK(b.merged_intervals == a.merged_intervals);
  REQUIRE(b.points.size() == a.points.size());
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    CHECK(b.points[i].start_ns == a.points[i].start_ns);
    CHECK(b.points[i].ops == a.points[i].ops);
    CHECK(b.points[i].latency_ns.p99_9 == a.points[i].latency_ns.p99_9);
    CHECK(b.points[i].latency_ns.mean == a.points[i].latency_ns.mean);
    REQUIRE(b.points[i].workers.size() == a.points[i].workers.size());
    CHECK(b.points[i].workers[1].bytes == a.points[i].workers[1].bytes);
  }
  // Without the key (files written before it existed): an empty series.
  auto j = nlohmann::ordered_json::parse(text);
  j["steps"][0]["phases"][0].erase("time_series");
  const ResultDocument old = parse_result_json(j.dump());
  CHECK(old.run.steps.at(0).phases.at(0).time_series.points.empty());
  CHECK(old.run.steps.at(0).phases.at(0).total_ops() == phase.total_ops());
}

TEST_CASE("an --interval out of range and a bad --time-series-csv are refused before the run",
          "[core][time_series][cli]") {
  test::TempDir dir("ts_cli");
  for (const char* bad : {"50ms", "61s"}) {
    const test::CliResult r =
        test::run_cli({"run", "disk", "-d", dir.path().string(), "size=64k", "--interval", bad});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--interval ") + bad) &&
                          Catch::Contains("100ms to 60s"));
  }
  const test::CliResult r = test::run_cli({"run", "disk", "-d", dir.path().string(), "size=64k",
                                           "--time-series-csv", "/nonexistent/dir/s.csv"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/dir/s.csv"));
  CHECK(dir.entries().empty());
}

TEST_CASE("the time-series CSV has a row per point and worker plus an all row in plain decimals",
          "[core][time_series][cli]") {
  test::TempDir dir("ts_csv");
  test::TempDir out("ts_csv_out");
  const std::filesystem::path csv = out.path() / "series.csv";
  const test::CliResult r =
      test::run_cli({"run", "disk", "-d", dir.path().string(), "size=4m", "bs=4k", "--interval",
                     "100ms", "-f", "json", "-q", "--time-series-csv", csv.string()});
  REQUIRE(r.exit_code == 0);
  const ResultDocument doc = parse_result_json(r.out);
  const PhaseResult& phase = doc.run.steps.at(0).phases.at(0);
  const auto rows = test::parse_csv(test::read_file(csv));
  REQUIRE(rows.size() == 1 + 2 * phase.time_series.points.size());
  CHECK(rows[0].at(0) == "step");
  CHECK(rows[0].at(2) == "sweep_point");
  CHECK(rows[0].at(9) == "worker");
  std::uint64_t ops = 0, bytes = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i].at(4) == phase.name);
    CHECK((rows[i].at(9) == "all" || rows[i].at(9) == "0"));
    // Rates with 3 decimals, the mean latency with 1, every other number an integer.
    // The application's columns (the devices' after them have their own test, explain).
    REQUIRE(rows[i].size() >= 20);
    for (std::size_t c = 5; c < 20; ++c) {
      if (c == 9) continue;
      const std::string& cell = rows[i].at(c);
      const std::size_t dot = cell.find('.');
      const std::size_t decimals = c == 13 || c == 14 ? 3 : c == 15 ? 1 : 0;
      CHECK(cell.find_first_not_of("0123456789.") == std::string::npos);
      CHECK((decimals == 0 ? dot == std::string::npos : cell.size() - dot - 1 == decimals));
    }
    if (rows[i].at(9) != "all") continue;
    bytes += std::stoull(rows[i].at(10));
    ops += std::stoull(rows[i].at(11));
  }
  CHECK(ops == phase.total_ops());
  CHECK(bytes == phase.total_bytes());
}

namespace {

// Two op kinds (PhaseSpec::per_op_series): each worker does kPerOpRounds rounds of an op 0 of
// 4 KiB, an op 1 of 512 bytes and, every 10th round, a failed op 1, a 50 us nap after each
// round so that the ops span several 100 ms intervals. With a warm-up it runs while keep_going().
constexpr std::uint64_t kPerOpRounds = 3000;

class TwoOpWorkload final : public Workload {
 public:
  TwoOpWorkload(WorkerMode mode, bool per_op, bool until_stopped)
      : mode_(mode), per_op_(per_op), until_stopped_(until_stopped) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override {
    PhaseSpec spec{.name = "two", .op_names = {"big", "small"}, .workers = 2, .mode = mode_};
    spec.per_op_series = per_op_;
    return {spec};
  }
  std::unique_ptr<PhaseWorker> make_worker(std::size_t, WorkerContext&) override {
    return std::make_unique<Worker>(until_stopped_);
  }

 private:
  struct Worker final : PhaseWorker {
    explicit Worker(bool loop_until_stopped) : until_stopped(loop_until_stopped) {}
    void run(WorkerContext& ctx) override {
      OpTimer timer;
      for (std::uint64_t i = 0; until_stopped ? ctx.keep_going() : i < kPerOpRounds; ++i) {
        timer.lap(ctx, 0, 4096);
        timer.lap(ctx, 1, 512);
        if (i % 10 == 0) ctx.record_error(1);
        std::this_thread::sleep_for(50us);
        timer.restart();
      }
    }
    bool until_stopped;
  };
  WorkerMode mode_;
  bool per_op_;
  bool until_stopped_;
};

// Per op kind, the measured points' op_points summed.
std::vector<SeriesOpPoint> op_sums(const TimeSeries& series) {
  std::vector<SeriesOpPoint> sums;
  for (const SeriesPoint& p : series.points) {
    if (p.warmup) {
      CHECK(p.op_points.empty());
      continue;
    }
    if (sums.size() < p.op_points.size()) sums.resize(p.op_points.size());
    for (std::size_t k = 0; k < p.op_points.size(); ++k) sums[k].add(p.op_points[k]);
  }
  return sums;
}

// Each measured point's op_points add up to its ops, bytes and errors, and over the points to
// the phase's per-op totals exactly.
void check_op_points(const PhaseResult& phase) {
  std::size_t split = 0;
  for (const SeriesPoint& p : phase.time_series.points) {
    if (p.warmup || p.op_points.empty()) continue;
    ++split;
    SeriesOpPoint all;
    for (const SeriesOpPoint& op : p.op_points) all.add(op);
    CHECK(all.ops == p.ops);
    CHECK(all.bytes == p.bytes);
    CHECK(all.errors == p.errors);
  }
  CHECK(split >= 2);
  const std::vector<SeriesOpPoint> sums = op_sums(phase.time_series);
  REQUIRE(sums.size() == phase.ops.size());
  for (std::size_t k = 0; k < sums.size(); ++k) {
    INFO("op " << k);
    CHECK(sums[k].ops == phase.ops[k].ops);
    CHECK(sums[k].bytes == phase.ops[k].bytes);
    CHECK(sums[k].errors == phase.ops[k].errors);
    CHECK(sums[k].latency_samples == phase.ops[k].latency.count());
    CHECK(sums[k].latency_sum_ns == phase.ops[k].latency.sum());
  }
}

RunResult run_two_ops(WorkerMode mode, bool per_op, std::chrono::milliseconds warmup = 0ms) {
  Registry registry;
  register_builtins(registry);
  const bool until_stopped = warmup > 0ms;
  registry.add_workload(
      WorkloadInfo{.name = "two_ops",
                   .summary = "test double",
                   .params = {},
                   .factory = [=](const WorkloadSetup&) -> std::unique_ptr<Workload> {
                     return std::make_unique<TwoOpWorkload>(mode, per_op, until_stopped);
                   }});
  test::TempDir dir("ts_ops");
  Step step{.workload = "two_ops", .targets = {dir.path()}, .interval = 100ms};
  if (until_stopped) {
    step.warmup = warmup;
    step.time_limit = 600ms;
  }
  return run_step(registry, step);
}

}  // namespace

TEST_CASE("per-op series: each point splits its ops by kind, adding up to the per-op totals",
          "[core][time_series][per_op]") {
  for (const WorkerMode mode : {WorkerMode::kThreads, WorkerMode::kProcesses}) {
    INFO("processes " << (mode == WorkerMode::kProcesses));
    const RunResult run = run_two_ops(mode, true);
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    REQUIRE(phase.ops.size() == 2);
    CHECK(phase.ops[0].ops == 2 * kPerOpRounds);
    CHECK(phase.ops[1].ops == 2 * kPerOpRounds);
    CHECK(phase.ops[1].errors == 2 * kPerOpRounds / 10);
    check_exact(phase);
    check_op_points(phase);
  }
}

TEST_CASE("per-op series after a warm-up: warm-up points have none, measured ones add up",
          "[core][time_series][per_op]") {
  const RunResult run = run_two_ops(WorkerMode::kThreads, true, 250ms);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(std::any_of(phase.time_series.points.begin(), phase.time_series.points.end(),
                    [](const SeriesPoint& p) { return p.warmup; }));
  check_exact(phase);
  check_op_points(phase);
}

TEST_CASE("without per_op_series no point has op_points", "[core][time_series][per_op]") {
  const RunResult run = run_two_ops(WorkerMode::kThreads, false);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  check_exact(phase);
  for (const SeriesPoint& p : phase.time_series.points) CHECK(p.op_points.empty());
}

TEST_CASE("merging points past the cap keeps the per-op sums", "[core][time_series][per_op]") {
  constexpr std::uint64_t kInterval = 100'000'000;
  constexpr std::uint64_t kIntervals = 10'000;  // merged twice, to 2500 points
  detail::SeriesRecorder recorder(kInterval, 2);
  recorder.begin_group(0, 2, 0);
  std::vector<SeriesOpPoint> expected(3);
  for (std::uint64_t i = 0; i < kIntervals; ++i) {
    for (std::size_t w = 0; w < 2; ++w) {
      IntervalStats s;
      s.index = i;
      std::vector<SeriesOpPoint> ops(3);
      for (std::size_t k = 0; k < 3; ++k) {
        ops[k] = {.ops = (i + w + k) % 5,
                  .bytes = ((i + w + k) % 5) * 512 * (k + 1),
                  .errors = k == 2 ? std::uint64_t{1} : std::uint64_t{0},
                  .latency_samples = (i + w + k) % 5,
                  .latency_sum_ns = ((i + w + k) % 5) * (1000 + i)};
        s.ops += ops[k].ops;
        s.bytes += ops[k].bytes;
        s.errors += ops[k].errors;
        for (std::uint64_t n = 0; n < ops[k].ops; ++n) s.latency.record(1000 + i);
        expected[k].add(ops[k]);
      }
      recorder.add(w, s, ops);
    }
  }
  recorder.end_group(0, kIntervals * kInterval);
  const TimeSeries series = recorder.build();
  CHECK(series.merged_intervals == 4);
  REQUIRE(series.points.size() == kIntervals / 4);
  CHECK(op_sums(series) == expected);
  // Point 10 holds intervals 40..43 of both workers.
  SeriesOpPoint op1;
  for (std::uint64_t i = 40; i < 44; ++i) {
    for (std::uint64_t w = 0; w < 2; ++w) op1.ops += (i + w + 1) % 5;
  }
  REQUIRE(series.points[10].op_points.size() == 3);
  CHECK(series.points[10].op_points[1].ops == op1.ops);
  for (const SeriesPoint& p : series.points) {
    SeriesOpPoint all;
    for (const SeriesOpPoint& op : p.op_points) all.add(op);
    CHECK(all.ops == p.ops);
    CHECK(all.bytes == p.bytes);
  }
}

TEST_CASE("per-op series survive the JSON round trip and documents without them read as empty",
          "[core][time_series][per_op][json]") {
  ResultDocument doc;
  doc.run = run_two_ops(WorkerMode::kThreads, true);
  const PhaseResult& phase = doc.run.steps.at(0).phases.at(0);
  const std::string text = to_json(doc);
  const ResultDocument back = parse_result_json(text);
  CHECK(to_json(back) == text);
  const TimeSeries& b = back.run.steps.at(0).phases.at(0).time_series;
  REQUIRE(b.points.size() == phase.time_series.points.size());
  for (std::size_t i = 0; i < b.points.size(); ++i)
    CHECK(b.points[i].op_points == phase.time_series.points[i].op_points);
  check_op_points(back.run.steps.at(0).phases.at(0));
  // A document without the key (written before it existed): no op_points, the rest unchanged.
  auto j = nlohmann::ordered_json::parse(text);
  for (auto& point : j["steps"][0]["phases"][0]["time_series"]["points"]) point.erase("op_points");
  const ResultDocument old = parse_result_json(j.dump());
  for (const SeriesPoint& p : old.run.steps.at(0).phases.at(0).time_series.points)
    CHECK(p.op_points.empty());
  CHECK(old.run.steps.at(0).phases.at(0).total_ops() == phase.total_ops());
}
