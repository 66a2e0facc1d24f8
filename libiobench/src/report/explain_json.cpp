#include "report/explain_json.hpp"

#include <fmt/format.h>

#include <iobench/result_json.hpp>

#include "util/json_pointer.hpp"

namespace iobench::detail {
namespace {

using Json = nlohmann::ordered_json;
using explain::BlockDevice;
using explain::CgroupIoLimit;
using explain::DeviceDelta;
using explain::PhaseExplanation;
using explain::StorageChain;

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json chain_json(const StorageChain& c) {
  Json devices = Json::array();
  for (const BlockDevice& d : c.devices) {
    devices.push_back({{"name", d.name},
                       {"device", d.device},
                       {"role", d.role},
                       {"model", d.model},
                       {"rotational", d.rotational ? Json(*d.rotational) : Json(nullptr)},
                       {"logical_block_size_bytes", d.logical_block_size},
                       {"physical_block_size_bytes", d.physical_block_size},
                       {"scheduler", d.scheduler},
                       {"nr_requests", d.nr_requests},
                       {"write_cache", d.write_cache},
                       {"backing_file", d.backing_file}});
  }
  Json limits = Json::array();
  for (const CgroupIoLimit& l : c.limits) {
    limits.push_back({{"cgroup", l.cgroup},
                      {"source", l.source},
                      {"device", l.device},
                      {"read_bytes_per_s", l.read_bytes_per_s},
                      {"write_bytes_per_s", l.write_bytes_per_s},
                      {"read_iops", l.read_iops},
                      {"write_iops", l.write_iops}});
  }
  Json out = {{"path", c.path},
              {"mount_point", c.mount_point},
              {"fs_type", c.fs_type},
              {"mount_options", c.mount_options},
              {"source", c.source},
              {"no_block_device", c.no_block_device},
              {"devices", std::move(devices)},
              {"cgroup_limits", std::move(limits)}};
  // overlayfs only (absent elsewhere, as in results written before).
  if (!c.overlay.empty()) {
    Json layers = Json::array();
    for (const explain::OverlayLayer& l : c.overlay) {
      layers.push_back({{"role", l.role},
                        {"dir", l.dir},
                        {"mount_point", l.mount_point},
                        {"fs_type", l.fs_type},
                        {"device", l.device}});
    }
    out["overlay"] = std::move(layers);
  }
  return out;
}

// The counters of a DeviceDelta, by key, in the order written.
template <class Fn>
void each_counter(DeviceDelta& d, Fn&& fn) {
  fn("reads", d.reads);
  fn("reads_merged", d.reads_merged);
  fn("read_bytes", d.read_bytes);
  fn("read_time_ms", d.read_time_ms);
  fn("writes", d.writes);
  fn("writes_merged", d.writes_merged);
  fn("write_bytes", d.write_bytes);
  fn("write_time_ms", d.write_time_ms);
  fn("discards", d.discards);
  fn("discards_merged", d.discards_merged);
  fn("discard_bytes", d.discard_bytes);
  fn("discard_time_ms", d.discard_time_ms);
  fn("flushes", d.flushes);
  fn("flush_time_ms", d.flush_time_ms);
  fn("io_time_ms", d.io_time_ms);
  fn("weighted_io_time_ms", d.weighted_io_time_ms);
  fn("in_flight_end", d.in_flight_end);
}
template <class Fn>
void each_ratio(DeviceDelta& d, Fn&& fn) {
  fn("util_percent", d.util_percent);
  fn("avg_queue_size", d.avg_queue_size);
  fn("r_await_ms", d.r_await_ms);
  fn("w_await_ms", d.w_await_ms);
}

// PSI stall figures by key.
template <class E, class Fn>
void each_stall(E& e, Fn&& fn) {
  fn("io_some", e.io_some_us);
  fn("io_full", e.io_full_us);
  fn("memory_some", e.memory_some_us);
  fn("memory_full", e.memory_full_us);
  fn("cpu_some", e.cpu_some_us);
}

// Reading: every key must be there with its type; errors name the pointer.
struct In {
  const Json& j;
  std::string pointer;

  In at(std::string_view key) const {
    if (!j.is_object()) fail(pointer, "must be an object");
    const auto it = j.find(key);
    if (it == j.end()) fail(pointer, fmt::format("the key \"{}\" is missing", key));
    return In{*it, json_pointer_child(pointer, key)};
  }
  In at(std::size_t i) const { return In{j[i], json_pointer_child(pointer, i)}; }
  [[noreturn]] static void fail(const std::string& p, const std::string& what) {
    throw ResultFormatError(p, what);
  }
  std::uint64_t u64() const {
    if (!j.is_number_unsigned()) fail(pointer, "must be a whole number of 0 or more");
    return j.get<std::uint64_t>();
  }
  std::int64_t i64() const {
    if (!j.is_number_integer()) fail(pointer, "must be a whole number");
    return j.get<std::int64_t>();
  }
  double number() const {
    if (!j.is_number()) fail(pointer, "must be a number");
    return j.get<double>();
  }
  std::optional<double> optional_number() const {
    if (j.is_null()) return std::nullopt;
    return number();
  }
  bool boolean() const {
    if (!j.is_boolean()) fail(pointer, "must be true or false");
    return j.get<bool>();
  }
  std::string text() const {
    if (!j.is_string()) fail(pointer, "must be a string");
    return j.get<std::string>();
  }
  std::size_t size(bool object = false) const {
    if (object ? !j.is_object() : !j.is_array()) {
      fail(pointer, object ? "must be an object" : "must be an array");
    }
    return j.size();
  }
};

StorageChain chain_from(const In& c) {
  StorageChain out;
  out.path = c.at("path").text();
  out.mount_point = c.at("mount_point").text();
  out.fs_type = c.at("fs_type").text();
  out.mount_options = c.at("mount_options").text();
  out.source = c.at("source").text();
  out.no_block_device = c.at("no_block_device").text();
  const In devices = c.at("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const In d = devices.at(i);
    BlockDevice b;
    b.name = d.at("name").text();
    b.device = d.at("device").text();
    b.role = d.at("role").text();
    b.model = d.at("model").text();
    if (const In r = d.at("rotational"); !r.j.is_null()) b.rotational = r.boolean();
    b.logical_block_size = d.at("logical_block_size_bytes").u64();
    b.physical_block_size = d.at("physical_block_size_bytes").u64();
    b.scheduler = d.at("scheduler").text();
    b.nr_requests = d.at("nr_requests").u64();
    b.write_cache = d.at("write_cache").text();
    b.backing_file = d.at("backing_file").text();
    out.devices.push_back(std::move(b));
  }
  if (c.j.contains("overlay")) {
    const In layers = c.at("overlay");
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const In l = layers.at(i);
      out.overlay.push_back({.role = l.at("role").text(),
                             .dir = l.at("dir").text(),
                             .mount_point = l.at("mount_point").text(),
                             .fs_type = l.at("fs_type").text(),
                             .device = l.at("device").text()});
    }
  }
  const In limits = c.at("cgroup_limits");
  for (std::size_t i = 0; i < limits.size(); ++i) {
    const In l = limits.at(i);
    out.limits.push_back({.cgroup = l.at("cgroup").text(),
                          .source = l.at("source").text(),
                          .device = l.at("device").text(),
                          .read_bytes_per_s = l.at("read_bytes_per_s").u64(),
                          .write_bytes_per_s = l.at("write_bytes_per_s").u64(),
                          .read_iops = l.at("read_iops").u64(),
                          .write_iops = l.at("write_iops").u64()});
  }
  return out;
}

}  // namespace

Json explain_to_json(const PhaseExplanation& e) {
  Json j;
  j["interval_ns"] = e.interval_ns;
  Json storage = Json::array();
  for (const StorageChain& c : e.chains) storage.push_back(chain_json(c));
  j["storage"] = std::move(storage);
  Json devices = Json::array();
  for (DeviceDelta d : e.devices) {
    Json dj;
    dj["name"] = d.name;
    dj["targets"] = d.targets;
    if (!d.valid) dj["valid"] = false;  // only when a count went back (absent means valid)
    each_counter(d, [&](const char* key, std::uint64_t& v) { dj[key] = v; });
    each_ratio(d, [&](const char* key, double& v) { dj[key] = v; });
    devices.push_back(std::move(dj));
  }
  j["devices"] = std::move(devices);
  Json vmstat = Json::object();
  for (const auto& [key, value] : e.vmstat_delta) vmstat[key] = value;
  j["vmstat_delta"] = std::move(vmstat);
  if (e.meminfo_start.valid && e.meminfo_end.valid) {
    j["meminfo"] = {{"dirty_start_bytes", e.meminfo_start.dirty_bytes},
                    {"dirty_end_bytes", e.meminfo_end.dirty_bytes},
                    {"writeback_start_bytes", e.meminfo_start.writeback_bytes},
                    {"writeback_end_bytes", e.meminfo_end.writeback_bytes},
                    {"mem_total_bytes", e.meminfo_end.mem_total_bytes}};
  }
  Json stalls = Json::object();
  each_stall(e, [&](const char* key, const std::optional<std::uint64_t>& v) {
    if (v) stalls[key] = *v;
  });
  j["pressure_stall_us"] = std::move(stalls);
  j["application"] = {{"read_bytes", e.application.read_bytes},
                      {"write_bytes", e.application.write_bytes},
                      {"workers", e.application.workers},
                      {"workers_cpu_percent", e.application.workers_cpu_percent},
                      {"largest_file_bytes", e.application.largest_file_bytes}};
  j["derived"] = {{"device_read_bytes", e.device_read_bytes},
                  {"device_write_bytes", e.device_write_bytes},
                  {"read_amplification", optional_number(e.read_amplification)},
                  {"write_amplification", optional_number(e.write_amplification)},
                  {"page_cache_read_percent", optional_number(e.page_cache_read_percent)},
                  {"shared_device", e.shared_device},
                  {"dirty_threshold_bytes", e.dirty_threshold_bytes},
                  {"device_backed_read_bytes", e.device_backed_read_bytes},
                  {"device_backed_write_bytes", e.device_backed_write_bytes}};
  if (!e.derived_note.empty()) j["derived"]["note"] = e.derived_note;
  Json findings = Json::array();
  for (const explain::Finding& f : e.findings)
    findings.push_back({{"name", f.name}, {"text", f.text}});
  j["findings"] = std::move(findings);
  return j;
}

PhaseExplanation explain_from_json(const Json& json, const std::string& pointer) {
  const In j{json, pointer};
  PhaseExplanation e;
  e.interval_ns = j.at("interval_ns").u64();
  const In storage = j.at("storage");
  for (std::size_t i = 0; i < storage.size(); ++i) e.chains.push_back(chain_from(storage.at(i)));
  const In devices = j.at("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const In d = devices.at(i);
    DeviceDelta out;
    out.name = d.at("name").text();
    if (d.j.contains("valid")) out.valid = d.at("valid").boolean();
    const In targets = d.at("targets");
    for (std::size_t t = 0; t < targets.size(); ++t) {
      out.targets.push_back(static_cast<std::size_t>(targets.at(t).u64()));
    }
    each_counter(out, [&](const char* key, std::uint64_t& v) { v = d.at(key).u64(); });
    each_ratio(out, [&](const char* key, double& v) { v = d.at(key).number(); });
    e.devices.push_back(std::move(out));
  }
  const In vmstat = j.at("vmstat_delta");
  vmstat.size(true);
  for (auto it = vmstat.j.begin(); it != vmstat.j.end(); ++it) {
    e.vmstat_delta.emplace_back(it.key(),
                                In{it.value(), json_pointer_child(vmstat.pointer, it.key())}.i64());
  }
  if (j.j.contains("meminfo")) {
    const In m = j.at("meminfo");
    e.meminfo_start = {.valid = true,
                       .dirty_bytes = m.at("dirty_start_bytes").u64(),
                       .writeback_bytes = m.at("writeback_start_bytes").u64(),
                       .mem_total_bytes = m.at("mem_total_bytes").u64()};
    e.meminfo_end = e.meminfo_start;
    e.meminfo_end.dirty_bytes = m.at("dirty_end_bytes").u64();
    e.meminfo_end.writeback_bytes = m.at("writeback_end_bytes").u64();
  }
  const In stalls = j.at("pressure_stall_us");
  stalls.size(true);
  each_stall(e, [&](const char* key, std::optional<std::uint64_t>& v) {
    if (stalls.j.contains(key)) v = stalls.at(key).u64();
  });
  const In app = j.at("application");
  e.application.read_bytes = app.at("read_bytes").u64();
  e.application.write_bytes = app.at("write_bytes").u64();
  e.application.workers = static_cast<std::size_t>(app.at("workers").u64());
  e.application.workers_cpu_percent = app.at("workers_cpu_percent").number();
  e.application.largest_file_bytes = app.at("largest_file_bytes").u64();
  const In derived = j.at("derived");
  e.device_read_bytes = derived.at("device_read_bytes").u64();
  e.device_write_bytes = derived.at("device_write_bytes").u64();
  e.read_amplification = derived.at("read_amplification").optional_number();
  e.write_amplification = derived.at("write_amplification").optional_number();
  e.page_cache_read_percent = derived.at("page_cache_read_percent").optional_number();
  e.shared_device = derived.at("shared_device").boolean();
  e.dirty_threshold_bytes = derived.at("dirty_threshold_bytes").u64();
  // Absent in results written before these keys: the denominators were the application's bytes.
  e.device_backed_read_bytes = derived.j.contains("device_backed_read_bytes")
                                   ? derived.at("device_backed_read_bytes").u64()
                                   : e.application.read_bytes;
  e.device_backed_write_bytes = derived.j.contains("device_backed_write_bytes")
                                    ? derived.at("device_backed_write_bytes").u64()
                                    : e.application.write_bytes;
  if (derived.j.contains("note")) e.derived_note = derived.at("note").text();
  const In findings = j.at("findings");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const In f = findings.at(i);
    e.findings.push_back({f.at("name").text(), f.at("text").text()});
  }
  return e;
}

}  // namespace iobench::detail
