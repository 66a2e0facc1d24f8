#include "plugins/disk/disk_formatter.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iobench/units.hpp>
#include <ostream>
#include <set>

#include "plugins/disk/disk_curve.hpp"

namespace iobench::plugins::disk {
namespace {

double seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }
double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(kMiB); }
std::uint64_t usec(double ns) { return static_cast<std::uint64_t>(ns / 1000.0 + 0.5); }

const char* verb_for(Status status) {
  switch (status) {
    case Status::kOk:
      return "Completed";
    case Status::kInterrupted:
      return "Interrupted";
    case Status::kFailed:
      return "Failed";
    case Status::kSkipped:
      return "Skipped";
    case Status::kNoMeasurement:
      return "Measured nothing";
  }
  return "Completed";
}

std::string attribute_text(const StepResult& step, const std::string& key) {
  if (const AttributeValue* value = step.attribute(key)) {
    if (const auto* text = std::get_if<std::string>(value)) return *text;
  }
  return {};
}

}  // namespace

std::string format_count(std::uint64_t count) {
  if (count >= kMiB && count % kMiB == 0) return fmt::format("{}m", count / kMiB);
  if (count >= kKiB && count % kKiB == 0) return fmt::format("{}k", count / kKiB);
  return fmt::format("{}", count);
}

std::string format_size(std::uint64_t bytes, bool short_units) {
  struct Unit {
    std::uint64_t size;
    const char* long_name;
    const char* short_name;
  };
  static constexpr Unit kUnits[] = {
      {kTiB, "TB", "T"}, {kGiB, "GB", "G"}, {kMiB, "MB", "M"}, {kKiB, "KB", "k"}};
  for (const Unit& unit : kUnits) {
    if (bytes < unit.size) continue;
    const char* name = short_units ? unit.short_name : unit.long_name;
    if (bytes % unit.size == 0) return fmt::format("{}{}", bytes / unit.size, name);
    return fmt::format("{:.1f}{}", static_cast<double>(bytes) / static_cast<double>(unit.size),
                       name);
  }
  return fmt::format("{}{}", bytes, short_units ? "" : "B");
}

namespace {

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1e3; }

void print_latency_line(std::ostream& out, const char* label, const CompactLatencyHistogram& h) {
  fmt::print(out,
             "{} (usec): min {:.1f}, mean {:.1f}, p50 {:.1f}, p99 {:.1f}, p99.9 {:.1f}, max "
             "{:.1f}\n",
             label, us(h.min()), h.mean() / 1e3, us(h.percentile(50)), us(h.percentile(99)),
             us(h.percentile(99.9)), us(h.max()));
}

}  // namespace

void format_disk_text(const StepResult& step, std::ostream& out) {
  if (!step.engine.empty() && step.engine != "psync") {
    const AttributeValue* depth = step.attribute("iodepth");
    fmt::print(out, "engine {}, iodepth {}\n", step.engine,
               depth != nullptr && std::holds_alternative<std::int64_t>(*depth)
                   ? std::get<std::int64_t>(*depth)
                   : 1);
  }
  // Destructive runs say which device they overwrote (the identity matched) and how it was
  // purged.
  for (const auto& [key, value] : step.attributes) {
    const auto* text = std::get_if<std::string>(&value);
    if (text == nullptr) continue;
    if (key.starts_with("destructive.")) {
      fmt::print(out, "destructive: {} ({})\n", attribute_text(step, "file." + key.substr(12)),
                 *text);
    } else if (key.starts_with("purge.")) {
      fmt::print(out, "purge of {}: {}\n", attribute_text(step, "file." + key.substr(6)), *text);
    } else if (key == "precondition") {
      fmt::print(out, "precondition: {}\n", *text);
    }
  }
  for (const PhaseResult& phase : step.phases) {
    if (phase.op_names.empty()) continue;
    if (phase.status == Status::kNoMeasurement) {
      const std::string_view doing = phase.name == "write"            ? "writing"
                                     : phase.name.starts_with("read") ? "reading"
                                     : phase.name == "verify"         ? "verifying"
                                     : phase.name == "trim"           ? "trimming"
                                                                      : "mixed reading and writing";
      fmt::print(out, "{} {}: {}\n", verb_for(phase.status), doing, phase.message);
      continue;
    }
    // The data op kinds: "read", "write" and/or "trim" (a mixed phase has two or three);
    // "fsync" is reported on its own line.
    for (std::size_t k = 0; k < phase.op_names.size(); ++k) {
      const std::string& kind = phase.op_names[k];
      if (kind != "read" && kind != "write" && kind != "trim") continue;
      const OpResult& io = phase.ops[k];
      if (phase.op_names.size() > 2 && io.ops == 0) continue;  // a mixed phase without this kind
      const bool write = kind == "write";
      const char* const doing = write ? "writing" : kind == "trim" ? "trimming" : "reading";
      if (io.ops == 0 && phase.status != Status::kOk) {
        // Nothing completed: no figures to print as if measured, only why.
        fmt::print(out, "{} {}{}: no {} completed{}{}\n", verb_for(phase.status),
                   phase.name == "verify" ? "verifying by " : "", doing, kind,
                   phase.message.empty() ? "" : ": ", phase.message);
        continue;
      }
      const std::uint64_t block_size = io.ops != 0 ? io.bytes / io.ops : 0;
      // Devices are the targets the workers ran on (numjobs puts several workers on one).
      std::set<std::size_t> devices;
      for (const WorkerResult& worker : phase.workers) devices.insert(worker.target_index);
      fmt::print(out,
                 "{} {}{} {} mbytes across {} devices using {} blocks of {} in {:.6f} seconds "
                 "({:.2f} Mbytes/sec), {}usec mean\n",
                 verb_for(phase.status), phase.name == "verify" ? "verifying by " : "", doing,
                 static_cast<std::uint64_t>(mib(io.bytes) + 0.5), devices.size(), io.ops,
                 block_size, seconds(phase.wall_ns),
                 phase.throughput_bytes_per_s(k) / static_cast<double>(kMiB),
                 usec(io.latency.mean()));
      for (const WorkerResult& worker : phase.workers) {
        const OpResult& wio = worker.ops[k];
        // numjobs/nrfiles: each worker's own file(s); otherwise its target's file.
        std::string file = attribute_text(step, fmt::format("worker_file.{}", worker.index));
        if (file.empty()) file = attribute_text(step, fmt::format("file.{}", worker.target_index));
        fmt::print(out, "#{} ({}) {} in {:.6f}s using {} {}s of {} ({:.2f}MB/sec), {}usec\n",
                   worker.index, file, format_size(wio.bytes, false), seconds(worker.elapsed_ns),
                   format_count(wio.ops), kind, format_size(block_size, true),
                   worker.elapsed_ns ? mib(wio.bytes) / seconds(worker.elapsed_ns) : 0.0,
                   usec(wio.latency.mean()));
      }
      std::string label = fmt::format("latency per {}{}", kind,
                                      phase.pacing.paced ? " from its intended issue time" : "");
      if (io.latency.count() != io.ops) {
        // latency_sample: the figures come from the timed ops only.
        const AttributeValue* every = step.attribute("latency_sample");
        label += fmt::format(" (sampled{}: {} of {} {}s timed)",
                             every != nullptr && std::holds_alternative<std::int64_t>(*every)
                                 ? fmt::format(" 1 in {}", std::get<std::int64_t>(*every))
                                 : "",
                             io.latency.count(), io.ops, kind);
      }
      print_latency_line(out, label.c_str(), io.latency);
      if (k < phase.latency_parts.size()) {
        const OpLatencyPartsResult& parts = phase.latency_parts[k];
        if (phase.latency_parts_kind.submission_completion) {
          print_latency_line(out, "  submission (slat)", parts.submission);
          print_latency_line(out, "  completion (clat)", parts.completion);
        }
        if (phase.latency_parts_kind.service) {
          print_latency_line(out, "  service (issue to completion)", parts.service);
        }
      }
      if (io.errors > 0) fmt::print(out, "{} {}s failed (EAGAIN)\n", io.errors, kind);
    }
    const std::size_t fsync_index = phase.op_index("fsync");
    if (fsync_index < phase.ops.size() && phase.ops[fsync_index].ops > 0) {
      const OpResult& sync = phase.ops[fsync_index];
      fmt::print(out, "fsync before close (usec): mean {:.1f}, max {:.1f}, {} calls\n",
                 sync.latency.mean() / 1e3, static_cast<double>(sync.latency.max()) / 1e3,
                 sync.ops);
    }
    if (phase.pacing.paced) {
      fmt::print(out,
                 "open loop: {} ops issued over {} ms behind schedule, max lag {:.3f} ms, {} "
                 "ops due but never issued\n",
                 phase.pacing.late_ops, PacingStats::kLateThresholdNs / 1'000'000,
                 static_cast<double>(phase.pacing.max_lag_ns) / 1e6, phase.pacing.backlog_ops);
    }
    const double wall = static_cast<double>(phase.wall_ns);
    fmt::print(out,
               "cpu: usr {:.1f}%, sys {:.1f}% of one CPU (process); system busy {:.1f}% of all "
               "CPUs\n",
               wall > 0 ? 100.0 * static_cast<double>(phase.process_cpu.user_ns) / wall : 0.0,
               wall > 0 ? 100.0 * static_cast<double>(phase.process_cpu.system_ns) / wall : 0.0,
               phase.system_busy_percent);
  }
  fmt::print(out,
             "(mbytes, Mbytes, MB and GB above are binary: MiB = 2^20, GiB = 2^30 bytes; "
             "k and m counts are 2^10 and 2^20)\n");
  format_curve_text(step, out);
  for (const std::string& warning : step.warnings) fmt::print(out, "WARNING: {}\n", warning);
}

}  // namespace iobench::plugins::disk
