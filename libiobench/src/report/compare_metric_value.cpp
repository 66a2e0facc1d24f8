// The value of one compare metric in one phase: iobench's own figures or, for a phase imported
// from a classic tool's output, the figure that tool reported.
#include <cmath>
#include <iobench/compare.hpp>
#include <optional>

namespace iobench {

namespace {

// The op kinds that move data merged (all kinds when none does): what IOPS and latency describe.
OpResult data_ops(const PhaseResult& phase) {
  OpResult data;
  bool any = false;
  for (const OpResult& op : phase.ops) {
    if (op.bytes == 0) continue;
    data.merge(op);
    any = true;
  }
  return any ? data : phase.all_ops();
}

}  // namespace

const char* to_string(Unavailable why) noexcept {
  return why == Unavailable::kTooFast ? "too fast to measure (+++++)" : "not reported";
}

std::optional<double> phase_metric_value(const PhaseResult& phase, CompareMetric metric,
                                         Unavailable* why) {
  if (!phase.reported) return phase_metric(phase, metric);
  const ReportedFigures& f = *phase.reported;
  const std::optional<ReportedFigure>* figure = nullptr;
  switch (metric) {
    case CompareMetric::kThroughput:
      figure = &f.throughput_bytes_per_s;
      break;
    case CompareMetric::kIops:
      figure = &f.iops;
      break;
    case CompareMetric::kLatencyMean:
      figure = &f.latency_mean_ns;
      break;
    case CompareMetric::kLatencyP50:
      figure = &f.latency_p50_ns;
      break;
    case CompareMetric::kLatencyP99:
      figure = &f.latency_p99_ns;
      break;
    case CompareMetric::kLatencyP99_9:
      figure = &f.latency_p99_9_ns;
      break;
    case CompareMetric::kLatencyMax:
      figure = &f.latency_max_ns;
      break;
    case CompareMetric::kCpu:
      figure = &f.cpu_percent;
      break;
  }
  if (figure == nullptr || !*figure || (*figure)->too_fast || !std::isfinite((*figure)->value)) {
    if (why != nullptr) {
      *why = figure != nullptr && *figure && (*figure)->too_fast ? Unavailable::kTooFast
                                                                 : Unavailable::kNotReported;
    }
    return std::nullopt;
  }
  return (*figure)->value;
}

double phase_metric(const PhaseResult& phase, CompareMetric metric) {
  switch (metric) {
    case CompareMetric::kThroughput:
      return phase.throughput_bytes_per_s();
    case CompareMetric::kIops:
      return ops_per_s(data_ops(phase).ops, phase.wall_ns);
    case CompareMetric::kCpu:
      return cpu_percent(phase.process_cpu.user_ns + phase.process_cpu.system_ns, phase.wall_ns);
    default:
      break;
  }
  if (phase.wall_ns == 0) return 0;
  const OpResult data = data_ops(phase);
  const CompactLatencyHistogram& latency = data.latency;
  switch (metric) {
    case CompareMetric::kLatencyMean:
      return latency.mean();
    case CompareMetric::kLatencyP50:
      return static_cast<double>(latency.percentile(50.0));
    case CompareMetric::kLatencyP99:
      return static_cast<double>(latency.percentile(99.0));
    case CompareMetric::kLatencyP99_9:
      return static_cast<double>(latency.percentile(99.9));
    case CompareMetric::kLatencyMax:
      return static_cast<double>(latency.max());
    default:
      return 0;
  }
}

const char* to_string(ChangeDirection direction) noexcept {
  switch (direction) {
    case ChangeDirection::kBetter:
      return "better";
    case ChangeDirection::kWorse:
      return "worse";
    case ChangeDirection::kUnchanged:
      return "unchanged";
  }
  return "unchanged";
}

const char* to_string(Noise noise) noexcept {
  switch (noise) {
    case Noise::kSignificant:
      return "significant";
    case Noise::kWithinNoise:
      return "within noise";
    case Noise::kNoEstimate:
      return "n=1: no noise estimate";
  }
  return "n=1: no noise estimate";
}

}  // namespace iobench
