// The time-series charts of the HTML report (report_model.hpp's time_series_charts): read from
// the raw "time_series" JSON, which the result reader does not keep.
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

// More workers than this: the time-series charts show the line of all workers only (a legend of 64
// lines helps nobody); the worker bars still show every worker.
constexpr std::size_t kMaxWorkerSeries = 16;

const nlohmann::json& member(const nlohmann::json& object, const char* key,
                             const std::string& pointer) {
  if (!object.is_object()) throw ResultFormatError(pointer, "expected an object");
  const auto it = object.find(key);
  if (it == object.end()) throw ResultFormatError(pointer + "/" + key, "missing");
  return *it;
}

double number(const nlohmann::json& object, const char* key, const std::string& pointer) {
  const nlohmann::json& value = member(object, key, pointer);
  if (!value.is_number()) throw ResultFormatError(pointer + "/" + key, "expected a number");
  return value.get<double>();
}

// A latency figure of a point (ns -> us), null when absent or null (an interval without ops).
Json latency_us(const nlohmann::json& point, const char* key, const std::string& pointer) {
  const auto lat = point.find("latency_ns");
  if (lat == point.end() || lat->is_null()) return nullptr;
  if (!lat->is_object()) throw ResultFormatError(pointer + "/latency_ns", "expected an object");
  const auto value = lat->find(key);
  if (value == lat->end() || value->is_null()) return nullptr;
  if (!value->is_number()) {
    throw ResultFormatError(pointer + "/latency_ns/" + key, "expected a number");
  }
  return value->get<double>() / 1000.0;
}

}  // namespace

Json time_series_charts(const nlohmann::json& series, const std::string& pointer) {
  const nlohmann::json& points = member(series, "points", pointer);
  if (!points.is_array()) throw ResultFormatError(pointer + "/points", "expected an array");
  // Worker columns: every index any point names.
  std::size_t worker_count = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    const std::string at = fmt::format("{}/points/{}", pointer, k);
    const auto workers = points[k].is_object() ? points[k].find("workers") : points[k].end();
    if (!points[k].is_object()) throw ResultFormatError(at, "expected an object");
    if (workers == points[k].end()) continue;
    if (!workers->is_array()) throw ResultFormatError(at + "/workers", "expected an array");
    for (std::size_t w = 0; w < workers->size(); ++w) {
      const double index = number((*workers)[w], "index", fmt::format("{}/workers/{}", at, w));
      if (index < 0 || index > 1e6 || index != std::floor(index)) {
        throw ResultFormatError(fmt::format("{}/workers/{}/index", at, w),
                                "expected a worker index");
      }
      worker_count = std::max(worker_count, static_cast<std::size_t>(index) + 1);
    }
  }
  const bool per_worker = worker_count > 1 && worker_count <= kMaxWorkerSeries;
  Json labels_tput = Json::array({"time (s)", "all MiB/s"});
  Json labels_iops = Json::array({"time (s)", "all IOPS"});
  if (per_worker) {
    for (std::size_t w = 0; w < worker_count; ++w) {
      labels_tput.push_back(fmt::format("worker {}", w));
      labels_iops.push_back(fmt::format("worker {}", w));
    }
  }
  labels_tput.push_back("p99 latency (us)");
  labels_iops.push_back("p99 latency (us)");

  Json tput_rows = Json::array();
  Json iops_rows = Json::array();
  Json warmup = Json::array();
  for (std::size_t k = 0; k < points.size(); ++k) {
    const nlohmann::json& point = points[k];
    const std::string at = fmt::format("{}/points/{}", pointer, k);
    const double start_s = number(point, "start_ns", at) / 1e9;
    const double duration_s = number(point, "duration_ns", at) / 1e9;
    const double bytes = number(point, "bytes", at);
    const double ops = number(point, "ops", at);
    const nlohmann::json& is_warmup = member(point, "warmup", at);
    if (!is_warmup.is_boolean()) throw ResultFormatError(at + "/warmup", "expected true or false");
    if (is_warmup.get<bool>()) {
      if (!warmup.empty() && warmup.back()[1].get<double>() >= start_s - 1e-12) {
        warmup.back()[1] = start_s + duration_s;
      } else {
        warmup.push_back(Json::array({start_s, start_s + duration_s}));
      }
    }
    Json tput = Json::array({start_s, rate(bytes, duration_s, kMiB)});
    Json iops = Json::array({start_s, rate(ops, duration_s, 1.0)});
    if (per_worker) {
      std::vector<Json> w_tput(worker_count, nullptr);
      std::vector<Json> w_iops(worker_count, nullptr);
      const auto workers = point.find("workers");
      if (workers != point.end()) {
        for (std::size_t w = 0; w < workers->size(); ++w) {
          const nlohmann::json& worker = (*workers)[w];
          const std::string wat = fmt::format("{}/workers/{}", at, w);
          const auto index = static_cast<std::size_t>(number(worker, "index", wat));
          w_tput[index] = rate(number(worker, "bytes", wat), duration_s, kMiB);
          w_iops[index] = rate(number(worker, "ops", wat), duration_s, 1.0);
        }
      }
      for (std::size_t w = 0; w < worker_count; ++w) {
        tput.push_back(w_tput[w]);
        iops.push_back(w_iops[w]);
      }
    }
    const Json p99 = ops > 0 ? latency_us(point, "p99", at) : Json(nullptr);
    tput.push_back(p99);
    iops.push_back(p99);
    tput_rows.push_back(std::move(tput));
    iops_rows.push_back(std::move(iops));
  }
  Json j;
  j["interval_ns"] = number(series, "interval_ns", pointer);
  const auto merged_intervals = series.find("merged_intervals");
  j["merged_intervals"] = merged_intervals != series.end() && merged_intervals->is_number()
                              ? Json(merged_intervals->get<double>())
                              : Json(1);
  j["points"] = points.size();
  j["workers"] = worker_count;
  j["per_worker"] = per_worker;
  j["warmup"] = std::move(warmup);
  j["throughput"] = {{"labels", std::move(labels_tput)}, {"rows", std::move(tput_rows)}};
  j["iops"] = {{"labels", std::move(labels_iops)}, {"rows", std::move(iops_rows)}};
  return j;
}

}  // namespace iobench::detail::html
