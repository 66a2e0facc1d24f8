#include "csv_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iobench/format.hpp>
#include <iobench/metrics.hpp>
#include <iobench/time_series.hpp>
#include <ostream>

namespace iobench::cli {

std::vector<std::string> family_csv_workloads(const SuitePlan& plan, const Registry& registry) {
  std::vector<std::string> names;
  for (const PlannedRun& run : plan.runs) {
    const std::string& workload = run.step.workload;
    if (registry.formatter(workload, "csv") == nullptr) continue;
    if (std::find(names.begin(), names.end(), workload) == names.end()) names.push_back(workload);
  }
  return names;
}

CsvOutputs::CsvOutputs(const SuitePlan& plan, const Registry& registry, const std::string& output,
                       std::ostream& stdout_stream, std::ostream& generic_file,
                       ReporterSet& reporters) {
  const std::vector<std::string> families = family_csv_workloads(plan, registry);
  if (!output.empty()) {
    reporters.add(make_csv_reporter(generic_file, registry));
    for (const std::string& workload : families) {
      std::ostringstream& text = family_text_[family_csv_path(output, workload)];
      reporters.add(make_family_csv_reporter(text, registry, workload));
    }
    return;
  }
  const bool one_workload = std::all_of(plan.runs.begin(), plan.runs.end(), [&](const auto& run) {
    return run.step.workload == plan.runs.front().step.workload;
  });
  if (one_workload && families.size() == 1) {
    reporters.add(make_family_csv_reporter(stdout_stream, registry, families.front()));
    return;
  }
  reporters.add(make_csv_reporter(stdout_stream, registry));
  left_out_ = families;
}

namespace {

// The device columns' names after a device's "dev_<name>_" prefix, in order.
constexpr const char* kDeviceFields[] = {"read_bytes", "write_bytes", "util_percent",
                                         "aqu_sz",     "r_await_ms",  "w_await_ms"};

// Every device of the run's series points, each once, in order of first appearance.
std::vector<std::string> series_device_names(const RunResult& run) {
  std::vector<std::string> names;
  for (const StepResult& step : run.steps) {
    for (const PhaseResult& phase : step.phases) {
      for (const SeriesPoint& p : phase.time_series.points) {
        for (const SeriesDevicePoint& d : p.devices) {
          if (std::find(names.begin(), names.end(), d.name) == names.end()) names.push_back(d.name);
        }
      }
    }
  }
  return names;
}

// A point's device fields (with their leading commas) in the order of `names`: the figures of
// the devices the point has (iostat's over the device's sampled_ns), empty for the others.
// `workers_row`: all empty, the figures are the whole point's.
std::string device_fields(const std::vector<std::string>& names, const SeriesPoint& p,
                          bool workers_row) {
  std::string out;
  for (const std::string& name : names) {
    const auto d = std::find_if(p.devices.begin(), p.devices.end(),
                                [&](const SeriesDevicePoint& x) { return x.name == name; });
    if (workers_row || d == p.devices.end()) {
      out += ",,,,,,";
      continue;
    }
    out += fmt::format(",{},{},{:.2f},{:.3f},{:.3f},{:.3f}", d->read_bytes, d->write_bytes,
                       d->util_percent(), d->avg_queue_size(), d->r_await_ms(), d->w_await_ms());
  }
  return out;
}

}  // namespace

void write_time_series_csv(const SuitePlan& plan, const RunResult& run, std::ostream& out) {
  const std::vector<std::string> devices = series_device_names(run);
  out << "step,suite_step,sweep_point,repetition,phase,point,start_ns,duration_ns,warmup,worker,"
         "bytes,ops,errors,throughput_bytes_per_s,iops,lat_mean_ns,lat_max_ns,lat_p50_ns,"
         "lat_p99_ns,lat_p99_9_ns";
  for (const std::string& name : devices) {
    for (const char* field : kDeviceFields)
      out << ',' << csv_field(fmt::format("dev_{}_{}", name, field));
  }
  out << '\n';
  for (std::size_t s = 0; s < run.steps.size(); ++s) {
    const StepResult& step = run.steps[s];
    const PlannedRun* planned = s < plan.runs.size() ? &plan.runs[s] : nullptr;
    const std::string suite_step =
        planned != nullptr && planned->suite_step < plan.suite.steps.size()
            ? plan.suite.steps[planned->suite_step].name
            : step.name;
    const std::string step_columns = fmt::format(
        "{},{},{},{}", csv_field(step.name), csv_field(suite_step),
        planned != nullptr ? planned->point : 0, planned != nullptr ? planned->repetition : 0);
    for (const PhaseResult& phase : step.phases) {
      const auto& points = phase.time_series.points;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const SeriesPoint& p = points[i];
        const auto row = [&](const std::string& worker, std::uint64_t bytes, std::uint64_t ops,
                             std::uint64_t errors, const SeriesLatency& l) {
          // Plain decimals, never an exponent: rates to 3 places, the mean to 1, the rest integers.
          out << fmt::format("{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.1f},{},{},{},{}{}\n",
                             step_columns, csv_field(phase.name), i, p.start_ns, p.duration_ns,
                             p.warmup ? 1 : 0, worker, bytes, ops, errors,
                             throughput_bytes_per_s(bytes, p.duration_ns),
                             ops_per_s(ops, p.duration_ns), l.mean, l.max, l.p50, l.p99, l.p99_9,
                             device_fields(devices, p, worker != "all"));
        };
        for (const SeriesWorkerPoint& w : p.workers) {
          row(std::to_string(w.index), w.bytes, w.ops, w.errors, w.latency_ns);
        }
        row("all", p.bytes, p.ops, p.errors, p.latency_ns);
      }
    }
  }
}

std::vector<std::filesystem::path> CsvOutputs::family_paths() const {
  std::vector<std::filesystem::path> paths;
  for (const auto& [path, text] : family_text_) paths.push_back(path);
  return paths;
}

std::vector<std::string> CsvOutputs::family_texts() const {
  std::vector<std::string> texts;
  for (const auto& entry : family_text_) texts.push_back(entry.second.str());
  return texts;
}

}  // namespace iobench::cli
