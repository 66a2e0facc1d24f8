// The HTML report's "explain the number" part of a phase (report_model.hpp's explain_model):
// the findings with their evidence, the devices beside the application on the time series' axis,
// and --explain's latency split by layer.
#include <algorithm>
#include <iobench/explain.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "report/html/model_parts.hpp"
#include "report/html/report_model.hpp"

namespace iobench::detail::html {
namespace {

// The devices over time: throughput beside the application's, and utilisation with queue size.
Json device_charts(const TimeSeries& series) {
  std::vector<std::string> names;
  for (const SeriesPoint& p : series.points) {
    for (const SeriesDevicePoint& d : p.devices) {
      if (std::find(names.begin(), names.end(), d.name) == names.end()) names.push_back(d.name);
    }
  }
  if (names.empty()) return nullptr;
  Json tput_labels = Json::array({"time (s)", "application MiB/s"});
  Json util_labels = Json::array({"time (s)"});
  for (const std::string& name : names) {
    tput_labels.push_back(name + " read MiB/s");
    tput_labels.push_back(name + " write MiB/s");
    util_labels.push_back(name + " util %");
  }
  for (const std::string& name : names) util_labels.push_back(name + " queue size");
  Json tput_rows = Json::array();
  Json util_rows = Json::array();
  for (const SeriesPoint& p : series.points) {
    const double start_s = static_cast<double>(p.start_ns) / 1e9;
    Json tput = Json::array({start_s, rate(static_cast<double>(p.bytes),
                                           static_cast<double>(p.duration_ns) / 1e9, kMiB)});
    Json util = Json::array({start_s});
    Json queue = Json::array();
    for (const std::string& name : names) {
      const auto d = std::find_if(p.devices.begin(), p.devices.end(),
                                  [&](const SeriesDevicePoint& x) { return x.name == name; });
      if (d == p.devices.end() || d->sampled_ns == 0) {
        tput.insert(tput.end(), {nullptr, nullptr});
        util.push_back(nullptr);
        queue.push_back(nullptr);
        continue;
      }
      // Over the time between the device's readings, which iostat's figures are over too.
      const double sampled_s = static_cast<double>(d->sampled_ns) / 1e9;
      tput.push_back(rate(static_cast<double>(d->read_bytes), sampled_s, kMiB));
      tput.push_back(rate(static_cast<double>(d->write_bytes), sampled_s, kMiB));
      util.push_back(d->util_percent());
      queue.push_back(d->avg_queue_size());
    }
    for (Json& q : queue) util.push_back(std::move(q));
    tput_rows.push_back(std::move(tput));
    util_rows.push_back(std::move(util));
  }
  return {{"devices", names.size()},
          {"throughput", {{"labels", std::move(tput_labels)}, {"rows", std::move(tput_rows)}}},
          {"util", {{"labels", std::move(util_labels)}, {"rows", std::move(util_rows)}}}};
}

// One split of --explain's JSON ("all", "p50", "p99"): its mean in us and its layers in %.
Json split_row(const nlohmann::json& call, const char* which) {
  const auto it = call.find(which);
  if (it == call.end() || !it->is_object()) return nullptr;
  const auto u64 = [&](const char* key) {
    const auto v = it->find(key);
    return v != it->end() && v->is_number() ? v->get<double>() : 0.0;
  };
  const double calls = u64("calls");
  const double total = u64("total_ns");
  if (calls <= 0 || total <= 0) return nullptr;
  const auto percent = [&](const char* key) { return 100.0 * u64(key) / total; };
  return {{"split", which == std::string_view("all") ? "mean" : which},
          {"calls", calls},
          {"latency_us", total / calls / 1000.0},
          {"layers",
           {{"fs_kernel", percent("fs_kernel_ns")},
            {"queue", percent("queue_ns")},
            {"device", percent("device_ns")},
            {"off_cpu", percent("off_cpu_ns")}}}};
}

// --explain's "explain_bpf" of the raw phase: per call, the mean, p50 and p99 split by layer.
Json latency_layers(const nlohmann::json& raw) {
  if (!raw.is_object()) return nullptr;
  const auto bpf = raw.find("explain_bpf");
  if (bpf == raw.end() || !bpf->is_object()) return nullptr;
  if (const auto why = bpf->find("unavailable"); why != bpf->end() && why->is_string()) {
    return {{"unavailable", why->get<std::string>()}, {"calls", Json::array()}};
  }
  Json calls = Json::array();
  if (const auto list = bpf->find("calls"); list != bpf->end() && list->is_array()) {
    for (const nlohmann::json& call : *list) {
      if (!call.is_object() || !call.contains("call") || !call["call"].is_string()) continue;
      Json rows = Json::array();
      for (const char* which : {"all", "p50", "p99"}) {
        if (Json row = split_row(call, which); !row.is_null()) rows.push_back(std::move(row));
      }
      if (!rows.empty()) calls.push_back({{"call", call["call"]}, {"rows", std::move(rows)}});
    }
  }
  return {{"unavailable", nullptr}, {"calls", std::move(calls)}};
}

}  // namespace

Json explain_model(const PhaseResult& phase, const nlohmann::json* raw) {
  Json j;
  Json findings = Json::array();
  Json devices = Json::array();
  if (phase.explanation) {
    for (const explain::Finding& f : phase.explanation->findings) {
      findings.push_back({{"name", f.name}, {"evidence", f.text}});
    }
    for (const explain::DeviceDelta& d : phase.explanation->devices) {
      devices.push_back({{"name", d.name},
                         {"read_bytes", d.read_bytes},
                         {"write_bytes", d.write_bytes},
                         {"util_percent", d.util_percent},
                         {"avg_queue_size", d.avg_queue_size},
                         {"r_await_ms", d.r_await_ms},
                         {"w_await_ms", d.w_await_ms}});
    }
  }
  j["findings"] = std::move(findings);
  j["devices"] = std::move(devices);
  j["device_series"] = device_charts(phase.time_series);
  j["latency_layers"] = raw != nullptr ? latency_layers(*raw) : Json(nullptr);
  if (j["findings"].empty() && j["devices"].empty() && j["device_series"].is_null() &&
      j["latency_layers"].is_null()) {
    return nullptr;
  }
  return j;
}

}  // namespace iobench::detail::html
