// Sweeps and repetitions of the HTML report, from the suite record's per-step summary
// (model = ... sweeps: [sweep], repetitions: [repetition]; see report_model.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/statistics.hpp>
#include <iobench/units.hpp>
#include <numeric>
#include <optional>

#include "report/html/model_parts.hpp"
#include "report/html/report_model.hpp"

namespace iobench::detail::html {
namespace {

const MetricSamples* find_metric(const PointSummary& point, const std::string& phase,
                                 std::string_view metric) {
  for (const PhaseRepetitions& reps : point.repetitions) {
    if (reps.phase != phase) continue;
    for (const MetricSamples& m : reps.metrics) {
      if (m.metric == metric) return &m;
    }
  }
  return nullptr;
}

// [low, mean, high] of a point: the 95 % CI of the repetitions where there are 2 or more.
Json band(double mean, const MetricSamples* samples, double scale) {
  if (samples != nullptr && samples->stats.count >= 2) {
    return Json::array({samples->stats.ci95_low / scale, samples->stats.mean / scale,
                        samples->stats.ci95_high / scale});
  }
  return Json::array({mean / scale, mean / scale, mean / scale});
}

Json stats_json(const MetricSamples& m, double scale) {
  Json values = Json::array();
  for (const double v : m.values) values.push_back(v / scale);
  return {{"metric", m.metric},
          {"values", std::move(values)},
          {"n", m.stats.count},
          {"mean", m.stats.mean / scale},
          {"stddev", m.stats.stddev / scale},
          {"ci95_low", m.stats.ci95_low / scale},
          {"ci95_high", m.stats.ci95_high / scale},
          {"cv_percent", m.stats.cv_percent},
          {"high_variation", m.stats.high_variation}};
}

}  // namespace

Json sweep_json(const StepSummary& summary) {
  const SweepSpec& sweep = *summary.sweep;
  // x: the values as numbers where all are sizes or counts ("4", "64k"), else their positions.
  std::vector<double> xs;
  bool numeric = true;
  for (const std::string& value : sweep.values) {
    try {
      xs.push_back(static_cast<double>(parse_size(value, sweep.param)));
    } catch (const ConfigError&) {
      numeric = false;
      break;
    }
  }
  if (!numeric) {
    xs.clear();
    for (std::size_t i = 0; i < sweep.values.size(); ++i) xs.push_back(static_cast<double>(i + 1));
  }
  Json j;
  j["step"] = summary.name;
  j["workload"] = summary.workload;
  j["param"] = sweep.param;
  j["values"] = sweep.values;
  j["numeric"] = numeric;
  j["repeat"] = summary.repeat;
  Json phases = Json::array();
  std::vector<std::string> names;
  for (const SweepRow& row : summary.sweep_rows) {
    if (std::find(names.begin(), names.end(), row.phase) == names.end()) {
      names.push_back(row.phase);
    }
  }
  for (const std::string& name : names) {
    std::vector<const SweepRow*> rows;
    for (const SweepRow& row : summary.sweep_rows) {
      if (row.phase == name) rows.push_back(&row);
    }
    const bool by_bytes = std::any_of(
        rows.begin(), rows.end(), [](const SweepRow* r) { return r->throughput_bytes_per_s > 0; });
    const char* rate_label = by_bytes ? "throughput (MiB/s)" : "IOPS (ops/s)";
    struct Point {
      double x;
      Json row;
      const SweepRow* source;
    };
    std::vector<Point> points;
    for (const SweepRow* row : rows) {
      const auto at = std::find(sweep.values.begin(), sweep.values.end(), row->point);
      const std::size_t i = static_cast<std::size_t>(at - sweep.values.begin());
      if (i >= xs.size()) continue;
      const PointSummary* point = i < summary.points.size() ? &summary.points[i] : nullptr;
      Json r = Json::array({xs[i]});
      if (row->samples == 0) {
        r.push_back(nullptr);
        r.push_back(nullptr);
      } else {
        const MetricSamples* rate_samples =
            point != nullptr
                ? find_metric(*point, name, by_bytes ? "throughput_bytes_per_s" : "ops_per_s")
                : nullptr;
        const MetricSamples* p99_samples =
            point != nullptr ? find_metric(*point, name, "latency_p99_ns") : nullptr;
        r.push_back(by_bytes ? band(row->throughput_bytes_per_s, rate_samples, kMiB)
                             : band(row->ops_per_s, rate_samples, 1.0));
        r.push_back(band(row->p99_latency_ns, p99_samples, 1000.0));
      }
      points.push_back(Point{xs[i], std::move(r), row});
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const Point& a, const Point& b) { return a.x < b.x; });
    Json chart_rows = Json::array();
    Json table = Json::array();
    Json peak = nullptr;
    for (const Point& point : points) {
      chart_rows.push_back(point.row);
      const SweepRow& row = *point.source;
      table.push_back({{"point", row.point},
                       {"samples", row.samples},
                       {"workers", row.workers},
                       {"throughput_mib_s", row.throughput_bytes_per_s / kMiB},
                       {"ops_per_s", row.ops_per_s},
                       {"p99_us", row.p99_latency_ns / 1000.0},
                       {"cpu_percent", row.cpu_percent},
                       {"fairness", row.fairness},
                       {"peak", row.peak}});
      if (row.peak) peak = {{"x", point.x}, {"point", row.point}};
    }
    phases.push_back({{"phase", name},
                      {"labels", {sweep.param, rate_label, "p99 latency (us)"}},
                      {"rows", std::move(chart_rows)},
                      {"peak", std::move(peak)},
                      {"table", std::move(table)}});
  }
  j["phases"] = std::move(phases);
  return j;
}

Json repetitions_json(const StepSummary& summary) {
  Json out = Json::array();
  for (const PointSummary& point : summary.points) {
    for (const PhaseRepetitions& phase : point.repetitions) {
      Json metrics = Json::array();
      const MetricSamples* rate = nullptr;
      double rate_scale = 1;
      const char* rate_label = "";
      for (const MetricSamples& m : phase.metrics) {
        const bool bytes = m.metric.ends_with("bytes_per_s");
        const bool latency = m.metric.ends_with("_ns");
        const double scale = bytes ? kMiB : latency ? 1000.0 : 1.0;
        Json s = stats_json(m, scale);
        s["unit"] = bytes ? "MiB/s" : latency ? "us" : "ops/s";
        metrics.push_back(std::move(s));
        if (bytes && m.stats.mean > 0) {
          rate = &m;
          rate_scale = kMiB;
          rate_label = "throughput (MiB/s)";
        } else if (m.metric == "ops_per_s" && rate == nullptr) {
          rate = &m;
          rate_scale = 1;
          rate_label = "IOPS (ops/s)";
        }
      }
      Json rows = Json::array();
      if (rate != nullptr) {
        for (std::size_t k = 0; k < rate->values.size(); ++k) {
          const double v = rate->values[k] / rate_scale;
          rows.push_back(Json::array(
              {static_cast<double>(k + 1), Json::array({v, v, v}),
               Json::array({rate->stats.ci95_low / rate_scale, rate->stats.mean / rate_scale,
                            rate->stats.ci95_high / rate_scale})}));
        }
      }
      out.push_back(
          {{"step", summary.name},
           {"point", point.point.empty() ? Json(nullptr) : Json(point.point)},
           {"phase", phase.phase},
           {"metrics", std::move(metrics)},
           {"chart",
            {{"labels", {"repetition", rate_label, "mean, 95% CI"}}, {"rows", std::move(rows)}}}});
    }
  }
  return out;
}

}  // namespace iobench::detail::html
