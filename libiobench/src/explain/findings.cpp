// The findings: named rules over a phase's figures, each a sentence that names its evidence.
// Thresholds are deliberately coarse (a finding must be obvious from the figures it quotes) and
// nothing fires on less than 1 MiB of application I/O, where other processes' I/O dominates.
#include <fmt/format.h>

#include <algorithm>
#include <iobench/explain.hpp>
#include <iobench/format.hpp>

namespace iobench::explain {

namespace {

constexpr std::uint64_t kMinBytes = std::uint64_t{1} << 20;

std::string mib_per_s(double bytes_per_s) {
  return fmt::format("{:.2f} MiB/s", bytes_per_s / 1048576.0);
}

const DeviceDelta* delta_of(const PhaseExplanation& e, const std::string& name) {
  for (const DeviceDelta& d : e.devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

bool any_block_device(const PhaseExplanation& e) {
  return std::any_of(e.chains.begin(), e.chains.end(),
                     [](const StorageChain& c) { return !c.devices.empty(); });
}

void storage_findings(PhaseExplanation& e, std::vector<Finding>& out) {
  for (const StorageChain& c : e.chains) {
    if (!c.no_block_device.empty()) {
      out.push_back({"no_block_device", fmt::format("{} is on {}", c.path, c.no_block_device)});
    }
  }
  if (e.shared_device) {
    std::string names;
    for (const DeviceDelta& d : e.devices) {
      if (d.targets.size() < 2) continue;
      names += (names.empty() ? "" : ", ") + d.name;
    }
    out.push_back(
        {"shared_device", fmt::format("several targets share {}: its figures are for them together",
                                      names.empty() ? "a device" : names)});
  }
}

void read_findings(PhaseExplanation& e, std::vector<Finding>& out) {
  const std::uint64_t app = e.device_backed_read_bytes;
  if (app < kMinBytes || !e.page_cache_read_percent) return;
  const double share = *e.page_cache_read_percent;
  if (share >= 90) {
    // The issue's wording: "the file (256 MiB) fits in RAM: 99.8 % of reads came from the page
    // cache, the device read 0.3 MiB", with RAM's size beside it.
    std::string fits;
    const std::uint64_t files = e.application.largest_file_bytes;
    if (files != 0 && e.meminfo_end.mem_total_bytes != 0 && files < e.meminfo_end.mem_total_bytes) {
      const bool several = e.application.workers > 1;
      fits = fmt::format("the file{} ({}) fit{} in RAM ({}): ", several ? "s" : "",
                         format_bytes(files), several ? "" : "s",
                         format_bytes(e.meminfo_end.mem_total_bytes));
    }
    out.push_back({"page_cache_reads",
                   fmt::format("{}{:.1f} % of reads came from the page cache, the device read {} "
                               "of the application's {}",
                               fits, share, format_bytes(e.device_read_bytes), format_bytes(app))});
  } else if (share <= 10) {
    out.push_back({"device_reads",
                   fmt::format("reads came from the device: the application read {}, the device "
                               "read {} ({:.1f} % from the page cache)",
                               format_bytes(app), format_bytes(e.device_read_bytes), share)});
  }
}

// Whether dirty + writeback pages reached 90 % of vmstat's dirty threshold at the phase's end.
bool dirty_at_limit(const PhaseExplanation& e) {
  return e.dirty_threshold_bytes != 0 && e.meminfo_end.valid &&
         e.meminfo_end.dirty_bytes + e.meminfo_end.writeback_bytes >=
             e.dirty_threshold_bytes / 10 * 9;
}

// Bands of device / application write bytes: < 0.5 absorbed by the page cache, 0.5-0.99 partly
// written back, 0.99-1.01 reached the device, > 1.01 amplified. At the dirty limit the page cache
// absorbed what it could and writers ran at the device's pace: dirty_throttled says that instead
// of writes_absorbed_by_page_cache.
void write_findings(PhaseExplanation& e, std::vector<Finding>& out) {
  const std::uint64_t app = e.device_backed_write_bytes;
  if (app < kMinBytes || !e.write_amplification) return;
  const double amp = *e.write_amplification;
  const bool throttled = dirty_at_limit(e);
  if (amp < 0.5 && !throttled) {
    std::string dirty;
    if (e.meminfo_start.valid && e.meminfo_end.valid) {
      dirty = fmt::format("; Dirty went from {} to {} (Writeback {} at the end)",
                          format_bytes(e.meminfo_start.dirty_bytes),
                          format_bytes(e.meminfo_end.dirty_bytes),
                          format_bytes(e.meminfo_end.writeback_bytes));
    }
    out.push_back({"writes_absorbed_by_page_cache",
                   fmt::format("writes were absorbed by the page cache: the application wrote "
                               "{}, the device wrote {}{}",
                               format_bytes(app), format_bytes(e.device_write_bytes), dirty)});
  } else if (amp >= 0.5 && amp < 0.99) {
    out.push_back({"writes_partly_reached_device",
                   fmt::format("part of the writes was written back during the phase: the device "
                               "wrote {} of the application's {} (x{:.3f}), the rest stayed dirty "
                               "in the page cache",
                               format_bytes(e.device_write_bytes), format_bytes(app), amp)});
  } else if (amp >= 0.99 && amp <= 1.01) {
    out.push_back({"writes_reached_device",
                   fmt::format("the device wrote what the application wrote: {} for {} (x{:.3f})",
                               format_bytes(e.device_write_bytes), format_bytes(app), amp)});
  } else if (amp > 1.01) {
    out.push_back({"write_amplification",
                   fmt::format("the device wrote x{:.2f} the application's bytes: {} for {} "
                               "(journal, metadata, read-modify-write or other processes)",
                               amp, format_bytes(e.device_write_bytes), format_bytes(app))});
  }
  if (throttled) {
    out.push_back({"dirty_throttled",
                   fmt::format("dirty pages reached the dirty limit: {} dirty + {} under writeback "
                               "of a {} threshold, so writers were throttled to the device's pace "
                               "(the application wrote {}, the device wrote {})",
                               format_bytes(e.meminfo_end.dirty_bytes),
                               format_bytes(e.meminfo_end.writeback_bytes),
                               format_bytes(e.dirty_threshold_bytes), format_bytes(app),
                               format_bytes(e.device_write_bytes))});
  }
}

// The file systems' own devices (first of each chain): the ones the targets' I/O lands on.
bool filesystem_device(const PhaseExplanation& e, const std::string& name) {
  return std::any_of(e.chains.begin(), e.chains.end(), [&](const StorageChain& c) {
    return !c.devices.empty() && c.devices.front().name == name;
  });
}

void device_findings(PhaseExplanation& e, std::vector<Finding>& out) {
  // Saturation only of the file systems' devices, over >= 1 s and >= 1 MiB of application I/O:
  // a short phase's util is one flush, and little I/O leaves the device to other processes.
  const bool enough = e.interval_ns >= 1'000'000'000ULL &&
                      e.application.read_bytes + e.application.write_bytes >= kMinBytes;
  for (const DeviceDelta& d : e.devices) {
    if (enough && d.valid && d.util_percent >= 95 && filesystem_device(e, d.name)) {
      out.push_back(
          {"device_saturated",
           fmt::format("device saturated: {} util {:.0f} %, queue {:.1f}, r_await {:.2f} "
                       "ms, w_await {:.2f} ms",
                       d.name, d.util_percent, d.avg_queue_size, d.r_await_ms, d.w_await_ms)});
    }
  }
  // One cgroup_throttled per (cgroup, device, direction): targets on one device share a limit.
  std::vector<std::string> seen;
  const auto first = [&](const CgroupIoLimit& limit, const char* direction) {
    std::string key = limit.cgroup + '\n' + limit.device + '\n' + direction;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return false;
    seen.push_back(std::move(key));
    return true;
  };
  const double seconds = static_cast<double>(e.interval_ns) / 1e9;
  for (const StorageChain& c : e.chains) {
    for (const CgroupIoLimit& limit : c.limits) {
      const BlockDevice* dev = nullptr;
      for (const BlockDevice& b : c.devices) dev = b.device == limit.device ? &b : dev;
      const DeviceDelta* d = dev == nullptr ? nullptr : delta_of(e, dev->name);
      if (d == nullptr || seconds <= 0) continue;
      const double read_rate = static_cast<double>(d->read_bytes) / seconds;
      const double write_rate = static_cast<double>(d->write_bytes) / seconds;
      const auto reached = [](double rate, std::uint64_t cap) {
        return cap != 0 && rate >= 0.7 * static_cast<double>(cap);
      };
      const char* kind = limit.source == "io.max" ? "io.max" : "blkio throttling";
      if (reached(write_rate, limit.write_bytes_per_s) && first(limit, "write")) {
        out.push_back({"cgroup_throttled",
                       fmt::format("the limit came from {} on this cgroup ({}): writes to {} "
                                   "capped at {}, the device wrote at {}",
                                   kind, limit.cgroup, dev->name,
                                   mib_per_s(static_cast<double>(limit.write_bytes_per_s)),
                                   mib_per_s(write_rate))});
      }
      if (reached(read_rate, limit.read_bytes_per_s) && first(limit, "read")) {
        out.push_back({"cgroup_throttled",
                       fmt::format("the limit came from {} on this cgroup ({}): reads from {} "
                                   "capped at {}, the device read at {}",
                                   kind, limit.cgroup, dev->name,
                                   mib_per_s(static_cast<double>(limit.read_bytes_per_s)),
                                   mib_per_s(read_rate))});
      }
    }
  }
}

void cpu_findings(PhaseExplanation& e, std::vector<Finding>& out) {
  const ApplicationFigures& a = e.application;
  if (a.workers != 0 && a.workers_cpu_percent / static_cast<double>(a.workers) >= 95) {
    out.push_back(
        {"cpu_bound", fmt::format("workers were CPU-bound: {:.0f} % of a core each ({} workers, "
                                  "{:.0f} % in all)",
                                  a.workers_cpu_percent / static_cast<double>(a.workers), a.workers,
                                  a.workers_cpu_percent)});
  }
  if (e.memory_full_us && e.interval_ns != 0 &&
      static_cast<double>(*e.memory_full_us) * 1e3 >= 0.1 * static_cast<double>(e.interval_ns)) {
    out.push_back({"memory_pressure",
                   fmt::format("memory pressure: all tasks stalled on memory for {} ({:.0f} % of "
                               "the phase; PSI full)",
                               format_duration(*e.memory_full_us * 1000),
                               100e3 * static_cast<double>(*e.memory_full_us) /
                                   static_cast<double>(e.interval_ns))});
  }
}

}  // namespace

void add_findings(PhaseExplanation& e) {
  std::vector<Finding> out;
  storage_findings(e, out);
  if (any_block_device(e)) {
    read_findings(e, out);
    write_findings(e, out);
  }
  device_findings(e, out);
  cpu_findings(e, out);
  e.findings = std::move(out);
}

std::string findings_text(const PhaseExplanation& e, std::string_view indent) {
  std::string text;
  for (const Finding& f : e.findings)
    text += fmt::format("{}explain: {}: {}\n", indent, f.name, f.text);
  return text;
}

}  // namespace iobench::explain
