// Statistics over repeated runs and over sweep points: sample summaries with Student's t
// confidence intervals, Jain's fairness index, AIM-style sweep rows.
#include <algorithm>
#include <array>
#include <cmath>
#include <iobench/statistics.hpp>

namespace iobench {
namespace {

// t(0.975, df) for df 1..30.
constexpr std::array<double, 30> kT975{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                       2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                       2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                       2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

struct TablePoint {
  double df;  // 0 stands for infinity
  double t;
};
constexpr std::array<TablePoint, 5> kT975Tail{
    {{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {0, 1.960}}};

double inverse(double df) { return df == 0 ? 0.0 : 1.0 / df; }

double phase_p99(const PhaseResult& phase) {
  return static_cast<double>(phase.all_ops().latency.percentile(99.0));
}

const PhaseResult* find_phase(const StepResult& step, const std::string& name) {
  for (const PhaseResult& phase : step.phases) {
    if (phase.name == name) return &phase;
  }
  return nullptr;
}

// Phase names in first-seen order over the ok results.
std::vector<std::string> phase_names(std::span<const StepResult* const> results) {
  std::vector<std::string> names;
  for (const StepResult* step : results) {
    if (step == nullptr || step->status != Status::kOk) continue;
    for (const PhaseResult& phase : step->phases) {
      if (std::find(names.begin(), names.end(), phase.name) == names.end()) {
        names.push_back(phase.name);
      }
    }
  }
  return names;
}

// The AIM columns of one phase of one result.
SweepRow row_of(const PhaseResult& phase) {
  SweepRow row;
  row.workers = phase.workers.size();
  const std::uint64_t bytes = phase.total_bytes();
  row.throughput_bytes_per_s = phase.throughput_bytes_per_s();
  row.ops_per_s = ops_per_s(phase.total_ops(), phase.wall_ns);
  row.per_worker_bytes_per_s =
      row.workers == 0 ? 0.0 : row.throughput_bytes_per_s / static_cast<double>(row.workers);
  const OpResult all = phase.all_ops();
  row.max_latency_ns = static_cast<double>(all.latency.max());
  row.p99_latency_ns = static_cast<double>(all.latency.percentile(99.0));
  row.cpu_percent =
      cpu_percent(phase.process_cpu.user_ns + phase.process_cpu.system_ns, phase.wall_ns);
  std::vector<double> shares;
  for (const WorkerResult& worker : phase.workers) {
    shares.push_back(bytes > 0 ? throughput_bytes_per_s(worker.total_bytes(), worker.elapsed_ns)
                               : ops_per_s(worker.total_ops(), worker.elapsed_ns));
  }
  row.fairness = jain_fairness(shares);
  return row;
}

}  // namespace

double student_t_975(std::size_t degrees_of_freedom) noexcept {
  if (degrees_of_freedom == 0) return 0.0;
  if (degrees_of_freedom <= kT975.size()) return kT975[degrees_of_freedom - 1];
  const double x = 1.0 / static_cast<double>(degrees_of_freedom);
  for (std::size_t i = 0; i + 1 < kT975Tail.size(); ++i) {
    const double x_hi = inverse(kT975Tail[i].df);  // larger 1/df: the smaller df
    const double x_lo = inverse(kT975Tail[i + 1].df);
    if (x <= x_hi && x >= x_lo) {
      const double f = (x - x_lo) / (x_hi - x_lo);
      return kT975Tail[i + 1].t + f * (kT975Tail[i].t - kT975Tail[i + 1].t);
    }
  }
  return kT975Tail.back().t;
}

SampleStats summarize_sample(std::span<const double> values) noexcept {
  SampleStats s;
  s.count = values.size();
  if (values.empty()) return s;
  double sum = 0;
  s.min = values.front();
  s.max = values.front();
  for (const double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  const double n = static_cast<double>(s.count);
  s.mean = sum / n;
  if (s.count >= 2) {
    double squares = 0;
    for (const double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / (n - 1));
    s.ci95_half = student_t_975(s.count - 1) * s.stddev / std::sqrt(n);
  }
  s.cv_percent = s.mean != 0 ? s.stddev / std::fabs(s.mean) * 100.0 : 0.0;
  s.ci95_low = s.mean - s.ci95_half;
  s.ci95_high = s.mean + s.ci95_half;
  s.high_variation = s.cv_percent > kHighVariationCvPercent;
  return s;
}

double jain_fairness(std::span<const double> values) noexcept {
  double sum = 0;
  double squares = 0;
  for (const double v : values) {
    sum += v;
    squares += v * v;
  }
  if (values.empty() || squares == 0) return 1.0;
  return sum * sum / (static_cast<double>(values.size()) * squares);
}

std::vector<PhaseRepetitions> repetition_statistics(
    std::span<const StepResult* const> repetitions) {
  std::vector<PhaseRepetitions> out;
  for (const std::string& name : phase_names(repetitions)) {
    PhaseRepetitions phase_stats{.phase = name, .metrics = {}};
    MetricSamples throughput{.metric = "throughput_bytes_per_s", .values = {}, .stats = {}};
    MetricSamples ops{.metric = "ops_per_s", .values = {}, .stats = {}};
    MetricSamples mean{.metric = "latency_mean_ns", .values = {}, .stats = {}};
    MetricSamples p99{.metric = "latency_p99_ns", .values = {}, .stats = {}};
    for (const StepResult* step : repetitions) {
      if (step == nullptr || step->status != Status::kOk) continue;
      const PhaseResult* phase = find_phase(*step, name);
      if (phase == nullptr) continue;
      throughput.values.push_back(phase->throughput_bytes_per_s());
      ops.values.push_back(ops_per_s(phase->total_ops(), phase->wall_ns));
      mean.values.push_back(phase->all_ops().latency.mean());
      p99.values.push_back(phase_p99(*phase));
    }
    for (MetricSamples* m : {&throughput, &ops, &mean, &p99}) {
      m->stats = summarize_sample(m->values);
      phase_stats.metrics.push_back(std::move(*m));
    }
    out.push_back(std::move(phase_stats));
  }
  return out;
}

std::vector<SweepRow> sweep_rows(std::span<const std::string> points,
                                 std::span<const std::vector<const StepResult*>> results) {
  std::vector<const StepResult*> all;
  for (const auto& point_results : results)
    all.insert(all.end(), point_results.begin(), point_results.end());
  std::vector<SweepRow> rows;
  for (const std::string& name : phase_names(all)) {
    const std::size_t first = rows.size();
    for (std::size_t i = 0; i < points.size(); ++i) {
      SweepRow mean_row{.phase = name, .point = points[i]};
      mean_row.fairness = 0;
      if (i < results.size()) {
        for (const StepResult* step : results[i]) {
          if (step == nullptr || step->status != Status::kOk) continue;
          const PhaseResult* phase = find_phase(*step, name);
          if (phase == nullptr) continue;
          const SweepRow r = row_of(*phase);
          ++mean_row.samples;
          mean_row.workers = r.workers;
          mean_row.throughput_bytes_per_s += r.throughput_bytes_per_s;
          mean_row.ops_per_s += r.ops_per_s;
          mean_row.per_worker_bytes_per_s += r.per_worker_bytes_per_s;
          mean_row.max_latency_ns += r.max_latency_ns;
          mean_row.p99_latency_ns += r.p99_latency_ns;
          mean_row.cpu_percent += r.cpu_percent;
          mean_row.fairness += r.fairness;
        }
      }
      if (mean_row.samples > 0) {
        const double n = static_cast<double>(mean_row.samples);
        for (double* v : {&mean_row.throughput_bytes_per_s, &mean_row.ops_per_s,
                          &mean_row.per_worker_bytes_per_s, &mean_row.max_latency_ns,
                          &mean_row.p99_latency_ns, &mean_row.cpu_percent, &mean_row.fairness}) {
          *v /= n;
        }
      }
      rows.push_back(std::move(mean_row));
    }
    // Peak: the highest throughput (ops/s when the phase moves no bytes), first one on ties.
    bool by_bytes = false;
    for (std::size_t i = first; i < rows.size(); ++i) {
      by_bytes = by_bytes || rows[i].throughput_bytes_per_s > 0;
    }
    std::size_t peak = rows.size();
    double best = -1;
    for (std::size_t i = first; i < rows.size(); ++i) {
      if (rows[i].samples == 0) continue;
      const double v = by_bytes ? rows[i].throughput_bytes_per_s : rows[i].ops_per_s;
      if (v > best) {
        best = v;
        peak = i;
      }
    }
    if (peak < rows.size()) rows[peak].peak = true;
  }
  return rows;
}

}  // namespace iobench
