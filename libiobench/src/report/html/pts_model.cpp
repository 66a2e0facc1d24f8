// The HTML report's model of SNIA PTS steps (workload `pts`, their pts.* attributes, see
// plugins/disk/pts_workload.cpp) and of any phase's steady-state outcome (steady_state=): what
// report_pts.js draws as SVG.
//
// steady = {unit, criterion, steady, rounds: [[round, value]], first, last, mean, slope,
//           bands: [{name, low, high}], data_excursion_percent, fit_excursion_percent
//           [, dropped]}
//          (first/last: the judged window's rounds; the best-fit line runs through
//          (mid-window, mean) with `slope` per round; null figures where no window filled. A
//          phase's steady_state= outcome: rounds are every sample kept, numbered from 1 at the
//          first sample taken; dropped: how many older ones the result did not keep)
// pts    = {test, tracked, steady, matrix: null | {mixes, block_sizes, block_size_names,
//           metrics: [{name, unit, values: [[per block size] per mix]}]},
//           wsat: null | {round_minutes, rows: [[round, minutes, IOPS, GB written, fills]]},
//           dirth: null | {curves: [{threads, points: [[IOPS, ART ms, QD]]}],
//                          points: [{name, threads, queue_depth, oio, iops, art_ms,
//                                    bins: [[from us, to us, ops]]}]}}
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "report/html/report_model.hpp"

namespace iobench::detail::html {
namespace {

std::string text_of(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return {};
  if (const auto* text = std::get_if<std::string>(value)) return *text;
  if (const auto* whole = std::get_if<std::int64_t>(value)) return std::to_string(*whole);
  return fmt::format("{}", std::get<double>(*value));
}

double number_of(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return 0;
  if (const auto* whole = std::get_if<std::int64_t>(value)) return static_cast<double>(*whole);
  if (const auto* real = std::get_if<double>(value)) return *real;
  return 0;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (!text.empty()) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

std::string block_size_name(std::uint64_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{}KiB", bytes / 1024);
  return fmt::format("{:g}KiB", static_cast<double>(bytes) / 1024.0);
}

// The bands a window is judged against: PTS's (data excursion within 20 % of the mean, the
// best-fit line's within 10 %, drawn centred on the mean) or fio's deviation limit.
Json bands(const SteadyStateCriterion& criterion, double mean) {
  Json out = Json::array();
  if (criterion.rule == SteadyStateRule::kPts) {
    out.push_back({{"name", "data excursion limit: 20 % of the mean (90-110 %)"},
                   {"low", mean * 0.9},
                   {"high", mean * 1.1}});
    out.push_back({{"name", "best-fit excursion limit: 10 % of the mean (95-105 %)"},
                   {"low", mean * 0.95},
                   {"high", mean * 1.05}});
  } else if (criterion.rule == SteadyStateRule::kDeviation) {
    const double limit = criterion.limit_percent ? mean * criterion.limit / 100 : criterion.limit;
    out.push_back({{"name", fmt::format("deviation limit: {}", to_string(criterion))},
                   {"low", mean - limit},
                   {"high", mean + limit}});
  }
  return out;
}

// The steady-state chart of `rounds` ([[round, value]]) judged over rounds first..last.
Json steady_chart(Json rounds, const std::string& unit, const SteadyStateCriterion& criterion,
                  bool steady, std::size_t first, std::size_t last,
                  const std::optional<SteadyStateFigures>& figures, double scale) {
  Json j;
  j["unit"] = unit;
  j["criterion"] = to_string(criterion);
  j["steady"] = steady;
  j["rounds"] = std::move(rounds);
  j["first"] = figures ? Json(first) : Json(nullptr);
  j["last"] = figures ? Json(last) : Json(nullptr);
  j["mean"] = figures ? Json(figures->window_mean * scale) : Json(nullptr);
  j["slope"] = figures ? Json(figures->slope * scale) : Json(nullptr);
  j["bands"] = figures ? bands(criterion, figures->window_mean * scale) : Json::array();
  j["data_excursion_percent"] = figures ? Json(figures->data_excursion_percent) : Json(nullptr);
  j["fit_excursion_percent"] = figures ? Json(figures->fit_excursion_percent) : Json(nullptr);
  return j;
}

Json matrix_model(const StepResult& step, const std::string& test) {
  struct Metric {
    const char* name;
    const char* field;
    const char* unit;
    double scale;
  };
  std::vector<Metric> metrics;
  if (test == "iops") metrics = {{"IOPS", "iops", "IOPS", 1.0}};
  if (test == "throughput") {
    metrics = {{"throughput", "throughput_bytes_per_s", "MB/s (10^6 bytes/s)", 1e-6}};
  }
  if (test == "latency") {
    metrics = {{"mean latency", "mean_latency_ns", "ms", 1e-6},
               {"p99 latency", "p99_latency_ns", "ms", 1e-6},
               {"max latency", "max_latency_ns", "ms", 1e-6}};
  }
  if (metrics.empty()) return nullptr;
  const std::vector<std::string> mixes = split(text_of(step, "pts.mixes"), ',');
  const std::vector<std::string> sizes = split(text_of(step, "pts.block_sizes"), ',');
  Json j;
  j["mixes"] = mixes;
  Json size_bytes = Json::array();
  Json size_names = Json::array();
  for (const std::string& size : sizes) {
    size_bytes.push_back(std::stoull(size));
    size_names.push_back(block_size_name(std::stoull(size)));
  }
  j["block_sizes"] = std::move(size_bytes);
  j["block_size_names"] = std::move(size_names);
  Json out = Json::array();
  for (const Metric& metric : metrics) {
    Json values = Json::array();
    for (const std::string& mix : mixes) {
      Json row = Json::array();
      for (const std::string& size : sizes) {
        row.push_back(number_of(step, fmt::format("pts.cell.{}.{}.{}", mix, size, metric.field)) *
                      metric.scale);
      }
      values.push_back(std::move(row));
    }
    out.push_back({{"name", metric.name}, {"unit", metric.unit}, {"values", std::move(values)}});
  }
  j["metrics"] = std::move(out);
  return j;
}

Json wsat_model(const StepResult& step, std::size_t rounds) {
  const double minutes = number_of(step, "pts.round_time_ns") / 60e9;
  const double capacity = number_of(step, "pts.condition.capacity_bytes");
  Json rows = Json::array();
  for (std::size_t round = 1; round <= rounds; ++round) {
    const double written = number_of(step, fmt::format("pts.round.{}.written_bytes", round));
    rows.push_back({round, static_cast<double>(round) * minutes,
                    number_of(step, fmt::format("pts.round.{}.tracked", round)), written / 1e9,
                    capacity > 0 ? written / capacity : 0.0});
  }
  return {{"round_minutes", minutes}, {"rows", std::move(rows)}};
}

Json dirth_model(const StepResult& step) {
  Json curves = Json::array();
  const std::vector<std::string> depths = split(text_of(step, "pts.depths"), ',');
  for (const std::string& threads : split(text_of(step, "pts.threads"), ',')) {
    Json points = Json::array();
    for (const std::string& depth : depths) {
      const std::string key = fmt::format("pts.cell.TC{}.QD{}.", threads, depth);
      points.push_back({number_of(step, key + "iops"),
                        number_of(step, key + "mean_latency_ns") * 1e-6, std::stoul(depth)});
    }
    curves.push_back({{"threads", std::stoul(threads)}, {"points", std::move(points)}});
  }
  Json points = Json::array();
  for (const char* name : {"max_iops", "min_latency"}) {
    const std::string key = fmt::format("pts.dirth.{}.", name);
    Json bins = Json::array();
    for (const std::string& bin : split(text_of(step, key + "histogram"), ',')) {
      const std::size_t colon = bin.find(':');
      const double lower = std::stod(bin.substr(0, colon));
      bins.push_back(
          {lower / 1000, (lower == 0 ? 1 : 2 * lower) / 1000, std::stoull(bin.substr(colon + 1))});
    }
    points.push_back({{"name", name},
                      {"threads", number_of(step, key + "threads")},
                      {"queue_depth", number_of(step, key + "queue_depth")},
                      {"oio", number_of(step, key + "oio")},
                      {"iops", number_of(step, key + "iops")},
                      {"art_ms", number_of(step, key + "mean_latency_ns") * 1e-6},
                      {"bins", std::move(bins)}});
  }
  return {{"curves", std::move(curves)}, {"points", std::move(points)}};
}

}  // namespace

Json pts_model(const StepResult& step) {
  const std::string test = text_of(step, "pts.test");
  if (step.workload != "pts" || test.empty()) return nullptr;
  const auto rounds = static_cast<std::size_t>(number_of(step, "pts.rounds"));
  // The tracked value in the unit people read: IOPS, MB/s (throughput), ms (latency).
  const double scale = test == "throughput" || test == "latency" ? 1e-6 : 1.0;
  const std::string unit = test == "throughput" ? "MB/s" : test == "latency" ? "ms" : "IOPS";
  Json series = Json::array();
  for (std::size_t round = 1; round <= rounds; ++round) {
    series.push_back({round, number_of(step, fmt::format("pts.round.{}.tracked", round)) * scale});
  }
  std::optional<SteadyStateFigures> figures;
  if (step.attribute("pts.window.mean") != nullptr) {
    figures = SteadyStateFigures{.steady = text_of(step, "pts.steady") == "yes",
                                 .window_mean = number_of(step, "pts.window.mean"),
                                 .slope = number_of(step, "pts.window.slope_per_round")};
    figures->data_excursion_percent = number_of(step, "pts.window.data_excursion_percent");
    figures->fit_excursion_percent = number_of(step, "pts.window.fit_excursion_percent");
  }
  Json j;
  j["test"] = test;
  j["tracked"] = text_of(step, "pts.tracked");
  j["steady"] = steady_chart(
      std::move(series), unit, SteadyStateCriterion{.rule = SteadyStateRule::kPts},
      text_of(step, "pts.steady") == "yes",
      static_cast<std::size_t>(number_of(step, "pts.window.first_round")),
      static_cast<std::size_t>(number_of(step, "pts.window.last_round")), figures, scale);
  j["matrix"] = matrix_model(step, test);
  j["wsat"] = test == "wsat" ? wsat_model(step, rounds) : Json(nullptr);
  j["dirth"] = test == "dirth" ? dirth_model(step) : Json(nullptr);
  return j;
}

Json steady_state_model(const PhaseResult& phase) {
  if (!phase.steady_state) return nullptr;
  const SteadyStateResult& steady = *phase.steady_state;
  // Every sample kept (the series; a result file written before it has the judged window only),
  // numbered from the first sample taken: the judged window is the last window.size() of them.
  const std::vector<double>& samples = steady.series.empty() ? steady.window : steady.series;
  const std::size_t first_kept = steady.samples - std::min(steady.samples, samples.size()) + 1;
  const std::size_t first = steady.samples - std::min(steady.samples, steady.window.size()) + 1;
  Json rounds = Json::array();
  for (std::size_t i = 0; i < samples.size(); ++i) rounds.push_back({first_kept + i, samples[i]});
  const SteadyStateMetric metric = steady.config.criterion.metric;
  const std::string unit = metric == SteadyStateMetric::kIops         ? "IOPS"
                           : metric == SteadyStateMetric::kThroughput ? "bytes/s"
                                                                      : "ns";
  Json j = steady_chart(std::move(rounds), unit, steady.config.criterion, steady.steady, first,
                        first + steady.window.size() - 1, steady.figures, 1.0);
  j["dropped"] = steady.series_dropped;
  return j;
}

}  // namespace iobench::detail::html
