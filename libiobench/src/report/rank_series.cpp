#include "report/rank_series.hpp"

#include <algorithm>

#include "core/series_recorder.hpp"

namespace iobench::detail {
namespace {

// Points of one run: one part (warm-up or measurement) of one group of workers (a serial
// phase runs its workers as groups one after another), in order.
using Run = std::vector<SeriesPoint>;

std::size_t first_worker(const SeriesPoint& point) {
  return point.workers.empty() ? SIZE_MAX : point.workers.front().index;
}

std::vector<Run> runs_of(const std::vector<SeriesPoint>& points) {
  std::vector<Run> runs;
  for (const SeriesPoint& point : points) {
    if (runs.empty() || runs.back().back().warmup != point.warmup ||
        first_worker(runs.back().back()) != first_worker(point)) {
      runs.emplace_back();
    }
    runs.back().push_back(point);
  }
  return runs;
}

double weighted_mean(double mean_a, std::uint64_t ops_a, double mean_b, std::uint64_t ops_b) {
  const std::uint64_t ops = ops_a + ops_b;
  return ops == 0 ? 0.0
                  : (mean_a * static_cast<double>(ops_a) + mean_b * static_cast<double>(ops_b)) /
                        static_cast<double>(ops);
}

// Adds `from`'s ops to `into` (same worker, a later interval).
void add_worker(SeriesWorkerPoint& into, const SeriesWorkerPoint& from) {
  SeriesLatency& l = into.latency_ns;
  const SeriesLatency& f = from.latency_ns;
  l.mean = weighted_mean(l.mean, into.ops, f.mean, from.ops);
  l.max = std::max(l.max, f.max);
  l.p50 = std::max(l.p50, f.p50);
  l.p99 = std::max(l.p99, f.p99);
  l.p99_9 = std::max(l.p99_9, f.p99_9);
  into.bytes += from.bytes;
  into.ops += from.ops;
  into.errors += from.errors;
}

// Adds `from` (another interval or another rank) to `into`'s totals and histogram; the latency
// figures are computed once all are in (finish()).
void add_totals(SeriesPoint& into, const SeriesPoint& from) {
  into.bytes += from.bytes;
  into.ops += from.ops;
  into.errors += from.errors;
  into.latency_ns.max = std::max(into.latency_ns.max, from.latency_ns.max);
  into.histogram.sum_ns += from.histogram.sum_ns;
  into.histogram.buckets = merge_buckets(into.histogram.buckets, from.histogram.buckets);
  // Per-op splits (PhaseSpec::per_op_series) add up op by op.
  if (into.op_points.size() < from.op_points.size()) into.op_points.resize(from.op_points.size());
  for (std::size_t k = 0; k < from.op_points.size(); ++k) into.op_points[k].add(from.op_points[k]);
}

// Adds `from`'s device counts to `into`'s, by device name (`prefix` before `from`'s names).
void add_devices(std::vector<SeriesDevicePoint>& into, const std::vector<SeriesDevicePoint>& from,
                 const std::string& prefix) {
  for (const SeriesDevicePoint& d : from) {
    const std::string name = prefix + d.name;
    const auto same = std::find_if(into.begin(), into.end(),
                                   [&](const SeriesDevicePoint& x) { return x.name == name; });
    if (same != into.end()) {
      same->add(d);
      continue;
    }
    into.push_back(d);
    into.back().name = name;
  }
}

void finish(SeriesPoint& point) {
  point.latency_ns =
      series_figures(point.histogram.sum_ns, point.latency_ns.max, point.histogram.buckets);
}

// `run`'s points merged `factor` at a time from its start.
Run coarsen(const Run& run, std::uint64_t factor) {
  if (factor <= 1) return run;
  Run out;
  for (std::size_t i = 0; i < run.size(); ++i) {
    const SeriesPoint& point = run[i];
    if (i % factor == 0) {
      out.push_back(point);
      continue;
    }
    SeriesPoint& into = out.back();
    into.duration_ns += point.duration_ns;
    add_totals(into, point);
    add_devices(into.devices, point.devices, std::string());
    for (const SeriesWorkerPoint& w : point.workers) {
      const auto same =
          std::find_if(into.workers.begin(), into.workers.end(),
                       [&](const SeriesWorkerPoint& x) { return x.index == w.index; });
      if (same == into.workers.end()) {
        into.workers.push_back(w);
      } else {
        add_worker(*same, w);
      }
    }
  }
  for (SeriesPoint& point : out) finish(point);
  return out;
}

}  // namespace

TimeSeries merge_rank_series(const std::vector<RankSeries>& ranks) {
  TimeSeries out;
  std::uint64_t factor = 1;
  for (const RankSeries& r : ranks) {
    if (r.series->points.empty()) continue;
    if (out.requested_interval_ns == 0) out.requested_interval_ns = r.series->requested_interval_ns;
    factor = std::max(factor, r.series->merged_intervals);
  }
  if (out.requested_interval_ns == 0) return out;  // no rank has a series
  out.merged_intervals = factor;
  out.interval_ns = out.requested_interval_ns * factor;

  std::vector<std::vector<Run>> runs;  // per rank, at the common resolution
  std::size_t run_count = 0;
  for (const RankSeries& r : ranks) {
    std::vector<Run>& mine = runs.emplace_back();
    const std::uint64_t ratio = factor / std::max<std::uint64_t>(r.series->merged_intervals, 1);
    for (const Run& run : runs_of(r.series->points)) mine.push_back(coarsen(run, ratio));
    run_count = std::max(run_count, mine.size());
  }

  std::uint64_t latest_end = 0;
  for (std::size_t j = 0; j < run_count; ++j) {
    std::size_t length = 0;
    for (const std::vector<Run>& mine : runs) {
      if (j < mine.size()) length = std::max(length, mine[j].size());
    }
    for (std::size_t k = 0; k < length; ++k) {
      SeriesPoint merged;
      bool first = true;
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (j >= runs[r].size() || k >= runs[r][j].size()) continue;
        const SeriesPoint& point = runs[r][j][k];
        const std::uint64_t start = point.start_ns + ranks[r].shift_ns;
        latest_end = std::max(latest_end, start + point.duration_ns);
        if (first) {
          merged.start_ns = start;
          merged.warmup = point.warmup;
          first = false;
        }
        merged.start_ns = std::min(merged.start_ns, start);
        add_totals(merged, point);
        for (SeriesWorkerPoint w : point.workers) {
          w.index += ranks[r].worker_offset;
          merged.workers.push_back(w);
        }
        if (ranks[r].devices) add_devices(merged.devices, point.devices, ranks[r].device_prefix);
      }
      finish(merged);
      out.points.push_back(std::move(merged));
    }
  }
  // Adjacent: each point lasts until the next one's start, the last until the latest end.
  for (std::size_t i = 0; i < out.points.size(); ++i) {
    SeriesPoint& point = out.points[i];
    const std::uint64_t end = i + 1 < out.points.size() ? out.points[i + 1].start_ns : latest_end;
    point.duration_ns = end > point.start_ns ? end - point.start_ns : 0;
  }
  return out;
}

}  // namespace iobench::detail
