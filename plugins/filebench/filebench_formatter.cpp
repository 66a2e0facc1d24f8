#include "plugins/filebench/filebench_formatter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <iobench/latency_histogram.hpp>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "plugins/filebench/filebench_workload.hpp"

namespace iobench::plugins::filebench {

namespace {

std::string attribute(const StepResult& step, const char* key) {
  for (const auto& [name, value] : step.attributes) {
    if (name == key && std::holds_alternative<std::string>(value))
      return std::get<std::string>(value);
  }
  return {};
}

std::int64_t int_attribute(const StepResult& step, const char* key) {
  for (const auto& [name, value] : step.attributes) {
    if (name == key && std::holds_alternative<std::int64_t>(value))
      return std::get<std::int64_t>(value);
  }
  return 0;
}

// filebench's lathist: 64 buckets of nanoseconds, bucket i holding the latencies d with
// 2^(i-1) <= d < 2^i (bucket 0: d = 0), the last one everything above. iobench's buckets never
// straddle a power of two, so the counts are exact.
std::string lathist_line(const CompactLatencyHistogram& h) {
  std::array<std::uint64_t, kLathistBuckets> counts{};
  for (const auto& b : h.buckets()) {
    const auto i =
        static_cast<std::size_t>(std::bit_width(LatencyHistogram::bucket_lower(b.index)));
    counts[std::min(i, kLathistBuckets - 1)] += b.count;
  }
  std::string out = "\t[ ";
  for (const std::uint64_t c : counts) out += fmt::format("{} ", c);
  return out + "]";
}

bool listed(const std::string& list, const std::string& name) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    if (list.compare(start, end - start, name) == 0 && end > start) return true;
    start = end + 1;
  }
  return false;
}

// Which flowops the IO Summary counts, and which of them read or write (step attributes).
struct FlowopKinds {
  std::string reads, writes, others;
};

// filebench's IO Summary line: `latency_ns` is the summed latency of the counted flowops, which
// filebench 1.5-alpha3 divides by the reads and writes (see format_filebench_text()).
std::string io_summary(std::uint64_t ops, std::uint64_t rd, std::uint64_t wr, std::uint64_t bytes,
                       double latency_ns, double seconds) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const auto per_s = [seconds](double v) { return seconds > 0 ? v / seconds : 0.0; };
  return fmt::format(
      "IO Summary: {:5d} ops {:5.3f} ops/s {:.0f}/{:.0f} rd/wr {:5.1f}mb/s "
      "{:5.3f}ms/op\n",
      ops, per_s(static_cast<double>(ops)), per_s(static_cast<double>(rd)),
      per_s(static_cast<double>(wr)), per_s(static_cast<double>(bytes) / kMiB),
      rd + wr ? latency_ns / static_cast<double>(rd + wr) / 1e6 : 0.0);
}

// One psrun snapshot from a series' per-op sums over `seconds`: a flowop line per op name (no
// [min - max]: the series keeps no per-op extremes) and the IO Summary.
void snapshot_lines(const PhaseResult& phase, const std::vector<SeriesOpPoint>& sums,
                    double seconds, const FlowopKinds& kinds, std::ostream& out) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const auto per_s = [seconds](double v) { return seconds > 0 ? v / seconds : 0.0; };
  out << "Per-Operation Breakdown\n";
  std::uint64_t ops = 0, bytes = 0, rd = 0, wr = 0;
  double latency_ns = 0;
  for (std::size_t i = 0; i < phase.op_names.size(); ++i) {
    const SeriesOpPoint op = i < sums.size() ? sums[i] : SeriesOpPoint{};
    const std::string& name = phase.op_names[i];
    const double mean_ms = op.latency_samples ? static_cast<double>(op.latency_sum_ns) /
                                                    static_cast<double>(op.latency_samples) / 1e6
                                              : 0.0;
    out << fmt::format("{:<20} {}ops {:8.0f}ops/s {:5.1f}mb/s {:8.3f}ms/op\n", name, op.ops,
                       per_s(static_cast<double>(op.ops)),
                       per_s(static_cast<double>(op.bytes) / kMiB), mean_ms);
    if (listed(kinds.others, name)) continue;
    ops += op.ops;
    bytes += op.bytes;
    latency_ns += static_cast<double>(op.latency_sum_ns);
    if (listed(kinds.reads, name)) rd += op.ops;
    if (listed(kinds.writes, name)) wr += op.ops;
  }
  out << io_summary(ops, rd, wr, bytes, latency_ns, seconds);
}

// psrun's snapshots: one per period of the run's time series, its measured points grouped by
// their start from the first measured point's (a warm-up does not shorten period 1), each
// covering the run so far or, with `reset`, that period alone. With the series split by op
// (PhaseSpec::per_op_series) each is filebench's whole snapshot; a series without the split (a
// result written before it) gives one aggregate line per period. A period no point started in
// is marked, never printed as measured; a series coarser than the period is said once.
void psrun_lines(const PhaseResult& phase, std::uint64_t period_s, bool reset,
                 const FlowopKinds& kinds, std::ostream& out) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const TimeSeries& series = phase.time_series;
  const auto first = std::find_if(series.points.begin(), series.points.end(),
                                  [](const SeriesPoint& p) { return !p.warmup; });
  if (first == series.points.end()) {
    out << "Periods: none (the run's time series has no measured point)\n";
    return;
  }
  // Per flowop where the series was split by op (PhaseSpec::per_op_series; results written
  // before it have no split): a measured point with none is an interval where no op completed.
  const bool per_op = std::any_of(first, series.points.end(), [](const SeriesPoint& p) {
    return !p.warmup && !p.op_points.empty();
  });
  std::uint64_t period_ns = period_s * 1'000'000'000ULL;
  if (series.interval_ns > period_ns) {
    // Whole periods per line, as few as hold one point of the series.
    const std::uint64_t n = (series.interval_ns + period_ns - 1) / period_ns;
    out << fmt::format(
        "Periods: the time series interval ({:.3f} s) is longer than psrun's {} s period; each "
        "Period line covers {} s (give a smaller --interval for {} s periods)\n",
        static_cast<double>(series.interval_ns) / 1e9, period_s, n * period_s, period_s);
    period_ns *= n;
  }
  struct Sum {
    std::uint64_t ops = 0, bytes = 0, ns = 0;
    double latency_ns = 0;
    std::vector<SeriesOpPoint> op_points;
    bool measured = false;
    void add(const Sum& other) {
      ops += other.ops;
      bytes += other.bytes;
      ns += other.ns;
      latency_ns += other.latency_ns;
      if (op_points.size() < other.op_points.size()) op_points.resize(other.op_points.size());
      for (std::size_t k = 0; k < other.op_points.size(); ++k) op_points[k].add(other.op_points[k]);
    }
  };
  std::vector<Sum> periods;
  for (auto it = first; it != series.points.end(); ++it) {
    const SeriesPoint& p = *it;
    if (p.warmup) continue;
    const auto k = static_cast<std::size_t>((p.start_ns - first->start_ns) / period_ns);
    if (periods.size() <= k) periods.resize(k + 1);
    Sum point{.ops = p.ops,
              .bytes = p.bytes,
              .ns = p.duration_ns,
              .latency_ns = p.latency_ns.mean * static_cast<double>(p.ops),
              .op_points = p.op_points,
              .measured = true};
    periods[k].add(point);
    periods[k].measured = true;
  }
  Sum shown;
  for (std::size_t k = 0; k < periods.size(); ++k) {
    if (!periods[k].measured) {
      out << fmt::format("Period {}: not measured (no time series point starts in it)\n", k + 1);
      continue;
    }
    if (reset) shown = Sum{};
    shown.add(periods[k]);
    const double seconds = static_cast<double>(shown.ns) / 1e9;
    if (per_op) {
      out << fmt::format("Period {} ({} s):\n", k + 1,
                         static_cast<std::uint64_t>(std::lround(seconds)));
      snapshot_lines(phase, shown.op_points, seconds, kinds, out);
      continue;
    }
    const auto per_s = [seconds](double v) { return seconds > 0 ? v / seconds : 0.0; };
    out << fmt::format("Period {} ({} s): {:5d} ops {:5.3f} ops/s {:5.1f}mb/s {:5.3f}ms/op\n",
                       k + 1, static_cast<std::uint64_t>(std::lround(seconds)), shown.ops,
                       per_s(static_cast<double>(shown.ops)),
                       per_s(static_cast<double>(shown.bytes) / kMiB),
                       shown.ops ? shown.latency_ns / static_cast<double>(shown.ops) / 1e6 : 0.0);
  }
}

}  // namespace

void format_filebench_text(const StepResult& step, std::ostream& out) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const std::string reads = attribute(step, kReadFlowopsAttr);
  const std::string writes = attribute(step, kWriteFlowopsAttr);
  const std::string others = attribute(step, kOtherFlowopsAttr);
  const bool lathist = int_attribute(step, kLathistAttr) == 1;
  const auto psrun_period = static_cast<std::uint64_t>(int_attribute(step, kPsrunPeriodAttr));
  for (const PhaseResult& phase : step.phases) {
    if (psrun_period > 0) {
      psrun_lines(phase, psrun_period, int_attribute(step, kPsrunResetAttr) == 1,
                  FlowopKinds{reads, writes, others}, out);
    }
    const double seconds = static_cast<double>(phase.wall_ns) / 1e9;
    const auto per_s = [&](double v) { return seconds > 0 ? v / seconds : 0.0; };
    out << "Per-Operation Breakdown\n";
    std::uint64_t ops = 0;
    std::uint64_t bytes = 0;
    std::uint64_t rd = 0;
    std::uint64_t wr = 0;
    double latency_ns = 0;
    for (std::size_t i = 0; i < phase.ops.size() && i < phase.op_names.size(); ++i) {
      const OpResult& op = phase.ops[i];
      const std::string& name = phase.op_names[i];
      const double mean_ms = op.latency.count() ? op.latency.mean() / 1e6 : 0.0;
      out << fmt::format(
          "{:<20} {}ops {:8.0f}ops/s {:5.1f}mb/s {:8.3f}ms/op [{:.3f}ms - {:5.3f}ms]{}\n", name,
          op.ops, per_s(static_cast<double>(op.ops)), per_s(static_cast<double>(op.bytes) / kMiB),
          mean_ms, static_cast<double>(op.latency.min()) / 1e6,
          static_cast<double>(op.latency.max()) / 1e6, lathist ? lathist_line(op.latency) : "");
      if (listed(others, name)) continue;
      ops += op.ops;
      bytes += op.bytes;
      latency_ns += op.latency.mean() * static_cast<double>(op.latency.count());
      if (listed(reads, name)) rd += op.ops;
      if (listed(writes, name)) wr += op.ops;
    }
    out << io_summary(ops, rd, wr, bytes, latency_ns, seconds);
  }
  for (const std::string& w : step.warnings) out << "warning: " << w << '\n';
}

}  // namespace iobench::plugins::filebench
