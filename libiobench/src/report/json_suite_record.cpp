// The "suite" record of a result document (json_fields.hpp's suite_record), read back.
#include <fmt/format.h>

#include <iobench/result_json.hpp>

#include "report/json_fields.hpp"

namespace iobench::detail::json_read {
namespace {

MetricSamples metric(const std::string& name, const Field& f) {
  MetricSamples m;
  m.metric = name;
  each(member(f, "values"), [&](const Field& v) { m.values.push_back(number(v)); });
  m.stats.count = size_of(member(f, "count"));
  m.stats.mean = number(f, "mean");
  m.stats.stddev = number(f, "stddev");
  m.stats.min = number(f, "min");
  m.stats.max = number(f, "max");
  m.stats.cv_percent = number(f, "cv_percent");
  m.stats.ci95_low = number(f, "ci95_low");
  m.stats.ci95_high = number(f, "ci95_high");
  m.stats.ci95_half = m.stats.ci95_high - m.stats.mean;
  m.stats.high_variation = boolean(f, "high_variation");
  return m;
}

SweepRow sweep_row(const Field& f) {
  SweepRow r;
  r.phase = text(f, "phase");
  r.point = text(f, "point");
  r.samples = size_of(member(f, "samples"));
  r.workers = size_of(member(f, "workers"));
  r.throughput_bytes_per_s = number(f, "throughput_bytes_per_s");
  r.ops_per_s = number(f, "ops_per_s");
  r.per_worker_bytes_per_s = number(f, "per_worker_bytes_per_s");
  r.max_latency_ns = number(f, "max_latency_ns");
  r.p99_latency_ns = number(f, "p99_latency_ns");
  r.cpu_percent = number(f, "cpu_percent");
  r.fairness = number(f, "fairness");
  r.peak = boolean(f, "peak");
  return r;
}

StepSummary step_summary(const Field& f, std::size_t results) {
  StepSummary s;
  s.name = text(f, "name");
  s.workload = text(f, "workload");
  const Field repeat = member(f, "repeat");
  if (u64(repeat) == 0 || u64(repeat) > std::numeric_limits<unsigned>::max()) {
    fail(repeat.pointer, "must be 1 or more");
  }
  s.repeat = static_cast<unsigned>(u64(repeat));
  const Field sweep = member(f, "sweep");
  if (!sweep.value.is_null()) {
    s.sweep = SweepSpec{.param = text(sweep, "param"), .values = strings(member(sweep, "values"))};
  }
  each(member(f, "points"), [&](const Field& p) {
    PointSummary point;
    point.point = text(p, "point");
    each(member(p, "result_indices"), [&](const Field& i) {
      const std::size_t index = size_of(i);
      if (index >= results) fail(i.pointer, fmt::format("there is no step {}", index));
      point.result_indices.push_back(index);
    });
    each(member(p, "repetitions"), [&](const Field& r) {
      PhaseRepetitions phase{.phase = text(r, "phase"), .metrics = {}};
      each_member(member(r, "metrics"), [&](const std::string& name, const Field& m) {
        phase.metrics.push_back(metric(name, m));
      });
      point.repetitions.push_back(std::move(phase));
    });
    s.points.push_back(std::move(point));
  });
  each(member(f, "sweep_table"), [&](const Field& r) { s.sweep_rows.push_back(sweep_row(r)); });
  return s;
}
}  // namespace

SuiteRecord suite_record(const Field& f, std::size_t results) {
  SuiteRecord s;
  s.name = text(f, "name");
  s.source = text(f, "source");
  s.complete = boolean(f, "complete");
  s.planned_runs = size_of(member(f, "planned_runs"));
  const Field completed = member(f, "completed_runs");
  if (size_of(completed) != results) {
    fail(completed.pointer,
         fmt::format("{} runs, but the document has {} steps", size_of(completed), results));
  }
  each(member(f, "steps"),
       [&](const Field& step) { s.summary.push_back(step_summary(step, results)); });
  return s;
}

}  // namespace iobench::detail::json_read
