#include "live_csv.hpp"

#include <fmt/format.h>

namespace iobench::cli {
namespace {

std::string quoted(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string decimal(const std::optional<double>& value) {
  return value ? fmt::format("{:.3f}", *value) : std::string();
}

std::string micros(const std::optional<SeriesLatency>& latency,
                   std::uint64_t SeriesLatency::*member) {
  if (!latency) return {};
  return fmt::format("{:.3f}", static_cast<double>((*latency).*member) / 1e3);
}

std::string seconds(const std::optional<std::uint64_t>& ns) {
  return ns ? fmt::format("{:.3f}", static_cast<double>(*ns) / 1e9) : std::string();
}

std::string row(const LiveFrame& frame, const LiveRow& r) {
  const std::optional<double> mib_per_s =
      r.bytes_per_s ? std::optional(*r.bytes_per_s / (1024.0 * 1024.0)) : std::nullopt;
  return fmt::format(
      "{:.3f},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", frame.time_s, frame.step_index + 1,
      quoted(frame.step_name), frame.repetition + 1, quoted(frame.phase_name), r.worker, r.state,
      r.bytes, r.ops, decimal(mib_per_s), decimal(r.ops_per_s),
      micros(r.latency_ns, &SeriesLatency::p50), micros(r.latency_ns, &SeriesLatency::p99),
      micros(r.latency_ns, &SeriesLatency::p99_9), seconds(frame.phase_left_ns),
      seconds(frame.eta_ns));
}

}  // namespace

std::string live_csv_header() {
  return "time_s,step,step_name,repetition,phase,worker,state,bytes,ops,throughput_MiB_per_s,"
         "iops,latency_p50_us,latency_p99_us,latency_p99_9_us,phase_left_s,eta_s\n";
}

std::string live_csv_lines(const LiveFrame& frame) {
  std::string out;
  for (const LiveRow& r : frame.workers) out += row(frame, r);
  out += row(frame, frame.total);
  return out;
}

}  // namespace iobench::cli
