// Time series over ranks: the aggregate of ranks' series, each sent as rank text, equals the
// series one runner would have recorded with all the ranks' workers (sums, merged-histogram
// percentiles, workers renumbered), also when the ranks' resolutions differ; a rank with fewer
// points leaves its ranks' points out of the later ones.
#include <catch2/catch.hpp>
#include <cstdint>
#include <iobench/rank_results.hpp>
#include <iobench/result.hpp>
#include <string>
#include <vector>

#include "core/series_recorder.hpp"

using iobench::IntervalStats;
using iobench::kSeriesPointCap;
using iobench::PhaseResult;
using iobench::RankStep;
using iobench::SeriesPoint;
using iobench::TimeSeries;
using iobench::detail::SeriesRecorder;

namespace {

constexpr std::uint64_t kSeriesInterval = 100'000'000;  // 100 ms

// Rank `rank`'s interval `i`: a few ops with latencies that differ by rank and interval.
IntervalStats rank_interval(int rank, std::uint64_t i) {
  IntervalStats s;
  s.index = i;
  s.ops = 3 + i + static_cast<std::uint64_t>(rank) * 5;
  s.bytes = s.ops * 4096;
  for (std::uint64_t k = 0; k < s.ops; ++k) {
    s.latency.record(1000 * (i + 1) + 37 * k + 5000 * static_cast<std::uint64_t>(rank));
  }
  return s;
}

// Rank `rank`'s series of `intervals` intervals (one worker), kept in at most `cap` points.
TimeSeries rank_series(int rank, std::uint64_t intervals, std::size_t cap) {
  SeriesRecorder recorder(kSeriesInterval, 1, cap);
  recorder.begin_group(0, 1, 0);
  for (std::uint64_t i = 0; i < intervals; ++i) recorder.add(0, rank_interval(rank, i));
  recorder.end_group(0, intervals * kSeriesInterval);
  return recorder.build();
}

// What one runner records with ranks 0 and 1 as its workers 0 and 1.
TimeSeries both_series(std::uint64_t intervals, std::size_t cap) {
  SeriesRecorder recorder(kSeriesInterval, 2, cap);
  recorder.begin_group(0, 2, 0);
  for (std::uint64_t i = 0; i < intervals; ++i) {
    for (int r = 0; r < 2; ++r) recorder.add(static_cast<std::size_t>(r), rank_interval(r, i));
  }
  recorder.end_group(0, intervals * kSeriesInterval);
  return recorder.build();
}

// A rank whose one phase has `series`, measuring from 1 ms on rank 0's clock; through its text.
RankStep rank_with(int rank, TimeSeries series) {
  RankStep r;
  r.rank = rank;
  r.step.name = "disk";
  r.step.workload = "disk";
  r.step.targets = {"/t"};
  PhaseResult phase;
  phase.name = "read";
  phase.op_names = {"read"};
  phase.ops.resize(1);
  std::uint64_t ops = 0;
  for (const SeriesPoint& point : series.points) ops += point.ops;
  for (std::uint64_t k = 0; k < ops; ++k) phase.ops[0].record(4096, 1000);
  phase.workers.resize(1);
  phase.workers[0].ops = phase.ops;
  phase.wall_ns = series.points.size() * kSeriesInterval;
  phase.time_series = std::move(series);
  r.step.phases.push_back(std::move(phase));
  r.windows.push_back({.start_ns = 1'000'000,
                       .end_ns = 1'000'000 + static_cast<std::int64_t>(r.step.phases[0].wall_ns),
                       .first_end_ns = 1'000'000});
  return iobench::from_rank_text(iobench::to_rank_text(r));
}

TimeSeries aggregate_of(std::vector<RankStep> ranks) {
  return iobench::aggregate_ranks(std::move(ranks)).aggregate.phases.at(0).time_series;
}

void check_point(const SeriesPoint& got, const SeriesPoint& want) {
  CHECK(got.start_ns == want.start_ns);
  CHECK(got.duration_ns == want.duration_ns);
  CHECK(got.bytes == want.bytes);
  CHECK(got.ops == want.ops);
  CHECK(got.latency_ns.mean == want.latency_ns.mean);
  CHECK(got.latency_ns.max == want.latency_ns.max);
  CHECK(got.latency_ns.p50 == want.latency_ns.p50);
  CHECK(got.latency_ns.p99 == want.latency_ns.p99);
  CHECK(got.latency_ns.p99_9 == want.latency_ns.p99_9);
  REQUIRE(got.workers.size() == want.workers.size());
  for (std::size_t w = 0; w < got.workers.size(); ++w) {
    CHECK(got.workers[w].index == want.workers[w].index);
    CHECK(got.workers[w].ops == want.workers[w].ops);
    CHECK(got.workers[w].bytes == want.workers[w].bytes);
    CHECK(got.workers[w].latency_ns.max == want.workers[w].latency_ns.max);
  }
}

}  // namespace

TEST_CASE("ranks' time series merge into what one runner records with all their workers",
          "[core][series]") {
  const TimeSeries got = aggregate_of({rank_with(0, rank_series(0, 6, kSeriesPointCap)),
                                       rank_with(1, rank_series(1, 6, kSeriesPointCap))});
  const TimeSeries want = both_series(6, kSeriesPointCap);
  CHECK(got.interval_ns == want.interval_ns);
  CHECK(got.merged_intervals == 1);
  REQUIRE(got.points.size() == want.points.size());
  for (std::size_t i = 0; i < got.points.size(); ++i) {
    INFO("point " << i);
    check_point(got.points[i], want.points[i]);
    // The two ranks' latencies differ by 5 us: a percentile of the union is neither rank's.
    CHECK(got.points[i].workers[0].latency_ns.p50 != got.points[i].workers[1].latency_ns.p50);
  }
}

TEST_CASE("ranks' time series stay at their measurement's start when timed by their ops",
          "[core][series]") {
  // Both ranks measured from 1 ms on rank 0's clock, but their phases are timed by their ops
  // (WorkerContext::time_phase_by_ops()): rank 0's window opens 0.2 ms later at its first op,
  // rank 1's a whole interval and 0.2 ms later. Their series still start together.
  const auto by_ops = [](RankStep rank, std::int64_t first_op_delay_ns) {
    iobench::RankWindow& window = rank.windows.at(0);
    window.measure_start_ns = window.start_ns;
    window.start_ns += first_op_delay_ns;
    window.first_end_ns = window.start_ns;
    window.end_ns += first_op_delay_ns;
    return iobench::from_rank_text(iobench::to_rank_text(rank));  // the 4 figures sent
  };
  const RankStep zero = by_ops(rank_with(0, rank_series(0, 6, kSeriesPointCap)), 200'000);
  const RankStep one = by_ops(rank_with(1, rank_series(1, 6, kSeriesPointCap)),
                              static_cast<std::int64_t>(kSeriesInterval) + 200'000);
  CHECK(one.windows.at(0).measure_start_ns == 1'000'000);
  CHECK(one.windows.at(0).start_ns ==
        1'000'000 + 200'000 + static_cast<std::int64_t>(kSeriesInterval));
  const TimeSeries got = aggregate_of({zero, one});
  const TimeSeries want = both_series(6, kSeriesPointCap);
  REQUIRE(got.points.size() == want.points.size());
  for (std::size_t i = 0; i < got.points.size(); ++i) {
    INFO("point " << i);
    check_point(got.points[i], want.points[i]);
  }
}

TEST_CASE("ranks' time series at different resolutions merge at the coarsest", "[core][series]") {
  // Rank 0 kept 4 points of 2 intervals (cap 4), rank 1 all 8.
  const TimeSeries coarse = rank_series(0, 8, 4);
  REQUIRE(coarse.merged_intervals == 2);
  const TimeSeries got =
      aggregate_of({rank_with(0, coarse), rank_with(1, rank_series(1, 8, kSeriesPointCap))});
  const TimeSeries want = both_series(8, 4);
  REQUIRE(want.merged_intervals == 2);
  CHECK(got.merged_intervals == 2);
  CHECK(got.interval_ns == 2 * kSeriesInterval);
  REQUIRE(got.points.size() == want.points.size());
  for (std::size_t i = 0; i < got.points.size(); ++i) {
    INFO("point " << i);
    check_point(got.points[i], want.points[i]);
  }
}

TEST_CASE("a rank with fewer points leaves the later points to the others", "[core][series]") {
  const TimeSeries got = aggregate_of({rank_with(0, rank_series(0, 5, kSeriesPointCap)),
                                       rank_with(1, rank_series(1, 3, kSeriesPointCap))});
  REQUIRE(got.points.size() == 5);
  const TimeSeries alone = rank_series(0, 5, kSeriesPointCap);
  for (std::size_t i = 3; i < 5; ++i) {
    REQUIRE(got.points[i].workers.size() == 1);
    CHECK(got.points[i].workers[0].index == 0);
    CHECK(got.points[i].ops == alone.points[i].ops);
    CHECK(got.points[i].latency_ns.p99 == alone.points[i].latency_ns.p99);
  }
  CHECK(got.points[2].workers.size() == 2);
  CHECK(got.points[2].workers[1].index == 1);
  // Adjacent to the end: the last point ends at rank 0's end.
  CHECK(got.points[4].start_ns + got.points[4].duration_ns == 5 * kSeriesInterval);
}

TEST_CASE("a serial phase's groups merge group by group, however many points each rank's have",
          "[core][series]") {
  // Two workers run one after the other; rank 0's first group lasts 3 intervals, rank 1's 2.
  const auto serial = [](int rank, std::uint64_t first_group_intervals) {
    SeriesRecorder recorder(kSeriesInterval, 2, kSeriesPointCap);
    for (std::size_t w = 0; w < 2; ++w) {
      const std::uint64_t intervals = w == 0 ? first_group_intervals : 2;
      recorder.begin_group(w, 1, 0);
      for (std::uint64_t i = 0; i < intervals; ++i) recorder.add(w, rank_interval(rank, i));
      recorder.end_group(0, intervals * kSeriesInterval);
    }
    return recorder.build();
  };
  RankStep zero = rank_with(0, serial(0, 3));
  RankStep one = rank_with(1, serial(1, 2));
  zero.step.phases[0].workers.resize(2);
  one.step.phases[0].workers.resize(2);
  const TimeSeries got = aggregate_of({zero, one});
  REQUIRE(got.points.size() == 5);  // 3 of the first group, 2 of the second
  for (std::size_t i = 0; i < 5; ++i) {
    INFO("point " << i);
    const bool first_group = i < 3;
    for (const auto& w : got.points[i].workers) {
      // Rank 0's workers are 0 and 1, rank 1's 2 and 3: worker 0 of either in the first group.
      CHECK((w.index % 2 == 0) == first_group);
    }
    CHECK(got.points[i].workers.size() == (i == 2 ? 1u : 2u));  // rank 1's first group is over
  }
}

namespace {

// `series` with device `name` in every point: 1 MiB written and 100 ms busy per point, plus
// `extra` MiB in point 0.
TimeSeries with_device(TimeSeries series, const std::string& name, std::uint64_t extra = 0) {
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    iobench::SeriesDevicePoint d;
    d.name = name;
    d.sampled_ns = kSeriesInterval;
    d.writes = 256;
    d.write_bytes = (1 + (i == 0 ? extra : 0)) << 20;
    d.io_time_ms = 100;
    series.points[i].devices.push_back(d);
  }
  return series;
}

RankStep on_host(RankStep rank, const std::string& host) {
  rank.environment.hostname = host;
  return rank;
}

}  // namespace

TEST_CASE("a merged time series counts each host's devices once, from its longest-running rank",
          "[core][series]") {
  // Both ranks on one host saw loop0's writes (all the host's): rank 1 runs longer, so its
  // figures stand for the host's; adding rank 0's would count the same writes twice.
  const TimeSeries got = aggregate_of(
      {on_host(rank_with(0, with_device(rank_series(0, 3, kSeriesPointCap), "loop0", 7)), "n"),
       on_host(rank_with(1, with_device(rank_series(1, 4, kSeriesPointCap), "loop0")), "n")});
  REQUIRE(got.points.size() == 4);
  for (const SeriesPoint& point : got.points) {
    REQUIRE(point.devices.size() == 1);
    CHECK(point.devices[0].name == "loop0");
    CHECK(point.devices[0].write_bytes == 1 << 20);  // rank 1's, never 8 MiB (rank 0's first)
    CHECK(point.devices[0].util_percent() == Approx(100.0));
  }
}

TEST_CASE("a merged time series names the devices of several hosts by host", "[core][series]") {
  const TimeSeries got = aggregate_of(
      {on_host(rank_with(0, with_device(rank_series(0, 2, kSeriesPointCap), "vda", 1)), "a"),
       on_host(rank_with(1, with_device(rank_series(1, 2, kSeriesPointCap), "vda")), "b")});
  REQUIRE(got.points.size() == 2);
  REQUIRE(got.points[0].devices.size() == 2);
  CHECK(got.points[0].devices[0].name == "a:vda");
  CHECK(got.points[0].devices[0].write_bytes == 2 << 20);
  CHECK(got.points[0].devices[1].name == "b:vda");
  CHECK(got.points[0].devices[1].write_bytes == 1 << 20);
}

TEST_CASE("a merged time series brought to a coarser resolution sums its devices' counts",
          "[core][series]") {
  // Rank 0 kept 2 points of 2 intervals each (cap 2); rank 1, alone on its host, all 4: its
  // device points are merged in pairs, so each merged point holds 2 MiB over 200 ms.
  const TimeSeries got = aggregate_of(
      {on_host(rank_with(0, rank_series(0, 4, 2)), "a"),
       on_host(rank_with(1, with_device(rank_series(1, 4, kSeriesPointCap), "vdb")), "b")});
  REQUIRE(got.merged_intervals == 2);
  REQUIRE(got.points.size() == 2);
  for (const SeriesPoint& point : got.points) {
    REQUIRE(point.devices.size() == 1);
    CHECK(point.devices[0].name == "b:vdb");
    CHECK(point.devices[0].write_bytes == 2 << 20);
    CHECK(point.devices[0].sampled_ns == 2 * kSeriesInterval);
    CHECK(point.devices[0].util_percent() == Approx(100.0));
  }
}
