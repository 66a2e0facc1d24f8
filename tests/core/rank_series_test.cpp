// Time series over ranks: the aggregate of ranks' series, each sent as rank text, equals the
// series one runner would have recorded with all the ranks' workers (sums, merged-histogram
// percentiles, workers renumbered), also when the ranks' resolutions differ; a rank with fewer
// points leaves its ranks' points out of the later ones. Per-op series (op_points) merge op by op
// and point by point, exactly, through gaps, fewer points and coarser resolutions.
#include <algorithm>
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

namespace {

// Per-op series (PhaseSpec::per_op_series) over ranks: one worker per rank doing two op kinds,
// "read" (4 KiB each) and "write" (512 B each).
constexpr std::size_t kSplitKinds = 2;

// Whether rank `rank` completed no op in interval `i` (a gap: its point has no op_points): rank 0
// in interval 3, rank 1 in interval 1, both in interval 4.
bool split_gap(int rank, std::uint64_t i) {
  return i == 4 || (rank == 0 && i == 3) || (rank == 1 && i == 1);
}

// The latency of every op of kind `k` that rank `rank` completed in interval `i`, ns.
std::uint64_t split_latency(int rank, std::uint64_t i, std::size_t k) {
  return 1000 + 100 * k + 10 * i + static_cast<std::uint64_t>(rank);
}

// Rank `rank`'s ops of kind `k` in interval `i`: counts that differ by rank, interval and kind,
// so that a share added to another rank's, point's or kind's shows.
iobench::SeriesOpPoint split_share(int rank, std::uint64_t i, std::size_t k) {
  if (split_gap(rank, i)) return {};
  const auto r = static_cast<std::uint64_t>(rank);
  const std::uint64_t ops = 1 + i + 3 * k + 10 * r;
  return {.ops = ops,
          .bytes = ops * (k == 0 ? 4096 : 512),
          .errors = k == 1 ? (i + r) % 2 : 0,
          .latency_samples = ops,
          .latency_sum_ns = ops * split_latency(rank, i, k)};
}

// Rank `rank`'s series of `intervals` intervals split by op kind, kept in at most `cap` points.
TimeSeries split_series(int rank, std::uint64_t intervals, std::size_t cap) {
  SeriesRecorder recorder(kSeriesInterval, 1, cap);
  recorder.begin_group(0, 1, 0);
  for (std::uint64_t i = 0; i < intervals; ++i) {
    if (split_gap(rank, i)) continue;  // a worker reports no interval without ops
    IntervalStats s;
    s.index = i;
    std::vector<iobench::SeriesOpPoint> shares;
    for (std::size_t k = 0; k < kSplitKinds; ++k) {
      const iobench::SeriesOpPoint share = split_share(rank, i, k);
      shares.push_back(share);
      s.ops += share.ops;
      s.bytes += share.bytes;
      s.errors += share.errors;
      for (std::uint64_t n = 0; n < share.ops; ++n) s.latency.record(split_latency(rank, i, k));
    }
    recorder.add(0, s, shares);
  }
  recorder.end_group(0, intervals * kSeriesInterval);
  return recorder.build();
}

// A rank whose one phase did split_series(rank, intervals, cap), with the per-op totals of its
// ops; through its text, as rank_with().
RankStep split_rank(int rank, std::uint64_t intervals, std::size_t cap) {
  RankStep r;
  r.rank = rank;
  r.step.name = "mix";
  r.step.workload = "mix";
  r.step.targets = {"/t"};
  PhaseResult phase;
  phase.name = "run";
  phase.op_names = {"read", "write"};
  phase.ops.resize(kSplitKinds);
  for (std::uint64_t i = 0; i < intervals; ++i) {
    for (std::size_t k = 0; k < kSplitKinds; ++k) {
      const iobench::SeriesOpPoint share = split_share(rank, i, k);
      for (std::uint64_t n = 0; n < share.ops; ++n) {
        phase.ops[k].record(share.bytes / share.ops, split_latency(rank, i, k));
      }
      phase.ops[k].errors += share.errors;
    }
  }
  phase.workers.resize(1);
  phase.workers[0].ops = phase.ops;
  phase.wall_ns = intervals * kSeriesInterval;
  phase.time_series = split_series(rank, intervals, cap);
  r.step.phases.push_back(std::move(phase));
  r.windows.push_back({.start_ns = 1'000'000,
                       .end_ns = 1'000'000 + static_cast<std::int64_t>(r.step.phases[0].wall_ns),
                       .first_end_ns = 1'000'000});
  return iobench::from_rank_text(iobench::to_rank_text(r));
}

// `got`, the merge of ranks 0, 1... of split_rank() with intervals_of[rank] intervals each, at
// `factor` intervals per point: point j's op_points are, op by op, the sum of every rank's
// shares in intervals [j * factor, (j + 1) * factor) that it has, none where all are gaps; and
// they add up to the point's ops, bytes and errors.
void check_split(const TimeSeries& got, const std::vector<std::uint64_t>& intervals_of,
                 std::uint64_t factor) {
  std::uint64_t longest = 0;
  for (const std::uint64_t n : intervals_of) longest = std::max(longest, n);
  CHECK(got.merged_intervals == factor);
  REQUIRE(got.points.size() == (longest + factor - 1) / factor);
  for (std::size_t j = 0; j < got.points.size(); ++j) {
    INFO("point " << j);
    const SeriesPoint& point = got.points[j];
    std::vector<iobench::SeriesOpPoint> want(kSplitKinds);
    bool any = false;
    for (std::size_t r = 0; r < intervals_of.size(); ++r) {
      const int rank = static_cast<int>(r);
      for (std::uint64_t i = j * factor; i < std::min((j + 1) * factor, intervals_of[r]); ++i) {
        any = any || !split_gap(rank, i);
        for (std::size_t k = 0; k < kSplitKinds; ++k) want[k].add(split_share(rank, i, k));
      }
    }
    if (!any) {
      CHECK(point.op_points.empty());
      CHECK(point.ops == 0);
      continue;
    }
    REQUIRE(point.op_points.size() == kSplitKinds);
    iobench::SeriesOpPoint all;
    for (std::size_t k = 0; k < kSplitKinds; ++k) {
      INFO("op " << k);
      const iobench::SeriesOpPoint& op = point.op_points[k];
      CHECK(op.ops == want[k].ops);
      CHECK(op.bytes == want[k].bytes);
      CHECK(op.errors == want[k].errors);
      CHECK(op.latency_samples == want[k].latency_samples);
      CHECK(op.latency_sum_ns == want[k].latency_sum_ns);
      all.add(op);
    }
    CHECK(all.ops == point.ops);
    CHECK(all.bytes == point.bytes);
    CHECK(all.errors == point.errors);
  }
}

}  // namespace

TEST_CASE("ranks' per-op series merge op by op, a rank's gap leaving the point to the other",
          "[core][series][per_op]") {
  const RankStep zero = split_rank(0, 6, kSeriesPointCap);
  const RankStep one = split_rank(1, 6, kSeriesPointCap);
  // Each rank's own series: a point per interval, none split in its gaps.
  for (const RankStep* rank : {&zero, &one}) {
    const TimeSeries& own = rank->step.phases.at(0).time_series;
    REQUIRE(own.points.size() == 6);
    for (std::uint64_t i = 0; i < 6; ++i)
      CHECK(own.points[i].op_points.empty() == split_gap(rank->rank, i));
  }
  const iobench::RankedStep ranked = iobench::aggregate_ranks({zero, one});
  const PhaseResult& phase = ranked.aggregate.phases.at(0);
  const TimeSeries& got = phase.time_series;
  check_split(got, {6, 6}, 1);
  // By hand: point 0 holds both ranks' shares (read 1 + 11 ops, write 4 + 14 ops with rank 1's
  // one error); point 3 only rank 1's (rank 0's gap: read 14, write 17); point 4 none.
  REQUIRE(got.points.at(0).op_points.size() == 2);
  CHECK(got.points[0].op_points[0].ops == 12);
  CHECK(got.points[0].op_points[0].bytes == 12 * 4096);
  CHECK(got.points[0].op_points[1].ops == 18);
  CHECK(got.points[0].op_points[1].bytes == 18 * 512);
  CHECK(got.points[0].op_points[1].errors == 1);
  REQUIRE(got.points.at(3).op_points.size() == 2);
  CHECK(got.points[3].op_points[0].ops == 14);
  CHECK(got.points[3].op_points[1].ops == 17);
  CHECK(got.points.at(4).op_points.empty());
  // Over the points, each op kind adds up to the aggregate's totals of that op.
  REQUIRE(phase.ops.size() == kSplitKinds);
  std::vector<iobench::SeriesOpPoint> sums(kSplitKinds);
  for (const SeriesPoint& p : got.points) {
    for (std::size_t k = 0; k < p.op_points.size(); ++k) sums.at(k).add(p.op_points[k]);
  }
  for (std::size_t k = 0; k < kSplitKinds; ++k) {
    INFO("op " << k);
    CHECK(sums[k].ops == phase.ops[k].ops);
    CHECK(sums[k].bytes == phase.ops[k].bytes);
    CHECK(sums[k].errors == phase.ops[k].errors);
    CHECK(sums[k].latency_samples == phase.ops[k].latency.count());
    CHECK(sums[k].latency_sum_ns == phase.ops[k].latency.sum());
  }
  CHECK(sums[0].ops > 0);
  CHECK(sums[1].errors > 0);
}

TEST_CASE("ranks' per-op series with fewer points merge op by op up to the longest",
          "[core][series][per_op]") {
  // Rank 1's series ends after 3 points: points 3 and 4 hold rank 0's shares alone (point 3
  // none: rank 0's gap; point 4 none: a gap of both).
  check_split(aggregate_of({split_rank(0, 5, kSeriesPointCap), split_rank(1, 3, kSeriesPointCap)}),
              {5, 3}, 1);
  // Rank 0's series ends first: points 5 and 6 are rank 1's alone.
  check_split(aggregate_of({split_rank(0, 5, kSeriesPointCap), split_rank(1, 7, kSeriesPointCap)}),
              {5, 7}, 1);
}

TEST_CASE("ranks' per-op series at different resolutions merge op by op at the coarsest",
          "[core][series][per_op]") {
  // Rank 0 kept 4 points of 2 intervals (cap 4), rank 1 all 7 of its intervals: rank 1's are
  // merged in pairs from the start (its last point alone) before the ranks' are added.
  const RankStep coarse = split_rank(0, 8, 4);
  REQUIRE(coarse.step.phases.at(0).time_series.merged_intervals == 2);
  check_split(aggregate_of({coarse, split_rank(1, 7, kSeriesPointCap)}), {8, 7}, 2);
}
