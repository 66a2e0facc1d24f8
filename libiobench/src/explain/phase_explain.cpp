// Snapshots of the kernel's counters and a phase's deltas and derived figures (explain.hpp).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <iobench/explain.hpp>

#include "explain/derive.hpp"
#include "explain/read_file.hpp"

namespace iobench::explain {

namespace {

constexpr std::uint64_t kSectorBytes = 512;  // diskstats counts 512-byte sectors on every device

std::uint64_t monotonic_now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// A counter's growth; 0 if it went back (a device re-created between the snapshots).
std::uint64_t grew(std::uint64_t start, std::uint64_t end) {
  return end >= start ? end - start : 0;
}

// diskstats' ms fields (rd/wr/dc/fl ticks, io_ticks, time_in_queue) are printed as 32-bit
// unsigned values and wrap at 2^32 ms (~49.7 days); sysstat takes their difference modulo 2^32.
std::uint64_t grew_ms32(std::uint64_t start, std::uint64_t end) {
  return static_cast<std::uint32_t>(static_cast<std::uint32_t>(end) -
                                    static_cast<std::uint32_t>(start));
}

// Whether one of the 64-bit counts (ops, merges, sectors) went back: the device was re-created
// between the snapshots, so none of its differences mean anything.
bool went_back(const DiskCounters& a, const DiskCounters& b) {
  return b.reads_completed < a.reads_completed || b.reads_merged < a.reads_merged ||
         b.sectors_read < a.sectors_read || b.writes_completed < a.writes_completed ||
         b.writes_merged < a.writes_merged || b.sectors_written < a.sectors_written ||
         b.discards_completed < a.discards_completed || b.discards_merged < a.discards_merged ||
         b.sectors_discarded < a.sectors_discarded || b.flushes_completed < a.flushes_completed;
}

// Sums of counter families: pgsteal/pgscan by reclaimer (kswapd, direct, khugepaged; newer
// kernels also split them by anon/file, which would count twice), and the workingset refaults
// (one counter before 5.9, anon and file after).
std::uint64_t family_sum(const std::map<std::string, std::uint64_t>& vmstat,
                         std::string_view family) {
  std::uint64_t sum = 0;
  for (const auto& [key, value] : vmstat) {
    if (!key.starts_with(family)) continue;
    if (family == "workingset_refault" || key.ends_with("_kswapd") || key.ends_with("_direct") ||
        key.ends_with("_khugepaged")) {
      sum += value;
    }
  }
  return sum;
}

constexpr std::array<std::string_view, 9> kKept = {
    "pgpgin",     "pgpgout", "pgfault", "pgmajfault",        "nr_dirtied",
    "nr_written", "pgsteal", "pgscan",  "workingset_refault"};

std::optional<std::uint64_t> stall(const Pressure& a, const Pressure& b, bool full) {
  if (!a.valid || !b.valid) return std::nullopt;
  if (full) {
    if (!a.has_full || !b.has_full) return std::nullopt;
    return grew(a.full_total_us, b.full_total_us);
  }
  return grew(a.some_total_us, b.some_total_us);
}

DeviceDelta device_delta(const DiskCounters& a, const DiskCounters& b, std::uint64_t interval_ns) {
  DeviceDelta d;
  d.name = b.name;
  d.in_flight_end = b.in_flight;
  if (went_back(a, b)) {
    d.valid = false;  // all differences left 0, nothing derived from them
    return d;
  }
  d.reads = b.reads_completed - a.reads_completed;
  d.reads_merged = b.reads_merged - a.reads_merged;
  d.read_bytes = (b.sectors_read - a.sectors_read) * kSectorBytes;
  d.read_time_ms = grew_ms32(a.read_time_ms, b.read_time_ms);
  d.writes = b.writes_completed - a.writes_completed;
  d.writes_merged = b.writes_merged - a.writes_merged;
  d.write_bytes = (b.sectors_written - a.sectors_written) * kSectorBytes;
  d.write_time_ms = grew_ms32(a.write_time_ms, b.write_time_ms);
  d.discards = b.discards_completed - a.discards_completed;
  d.discards_merged = b.discards_merged - a.discards_merged;
  d.discard_bytes = (b.sectors_discarded - a.sectors_discarded) * kSectorBytes;
  d.discard_time_ms = grew_ms32(a.discard_time_ms, b.discard_time_ms);
  d.flushes = b.flushes_completed - a.flushes_completed;
  d.flush_time_ms = grew_ms32(a.flush_time_ms, b.flush_time_ms);
  d.io_time_ms = grew_ms32(a.io_time_ms, b.io_time_ms);
  d.weighted_io_time_ms = grew_ms32(a.weighted_io_time_ms, b.weighted_io_time_ms);
  // iostat: %util = io_ticks / interval, aqu-sz = rq_ticks / interval, r_await = rd_ticks / rd_ios.
  const double interval_ms = static_cast<double>(interval_ns) / 1e6;
  if (interval_ms > 0) {
    d.util_percent = std::min(100.0, 100.0 * static_cast<double>(d.io_time_ms) / interval_ms);
    d.avg_queue_size = static_cast<double>(d.weighted_io_time_ms) / interval_ms;
  }
  if (d.reads != 0)
    d.r_await_ms = static_cast<double>(d.read_time_ms) / static_cast<double>(d.reads);
  if (d.writes != 0) {
    d.w_await_ms = static_cast<double>(d.write_time_ms) / static_cast<double>(d.writes);
  }
  return d;
}

}  // namespace

std::span<const std::string_view> kept_vmstat_counters() noexcept { return kKept; }

SystemSnapshot take_snapshot(std::span<const std::string> devices) {
  SystemSnapshot s;
  s.time_ns = monotonic_now_ns();
  if (!devices.empty()) {
    for (DiskCounters& d : parse_diskstats(read_kernel_file("/proc/diskstats"))) {
      if (std::find(devices.begin(), devices.end(), d.name) != devices.end()) {
        s.disks.push_back(std::move(d));
      }
    }
  }
  s.vmstat = parse_vmstat(read_kernel_file("/proc/vmstat"));
  s.meminfo = parse_meminfo(read_kernel_file("/proc/meminfo"));
  s.io_pressure = parse_pressure(read_kernel_file("/proc/pressure/io"));
  s.memory_pressure = parse_pressure(read_kernel_file("/proc/pressure/memory"));
  s.cpu_pressure = parse_pressure(read_kernel_file("/proc/pressure/cpu"));
  return s;
}

void derive_figures(PhaseExplanation& e) {
  e.device_read_bytes = e.device_write_bytes = 0;
  e.device_backed_read_bytes = e.device_backed_write_bytes = 0;
  e.read_amplification.reset();
  e.write_amplification.reset();
  e.page_cache_read_percent.reset();
  e.derived_note.clear();
  e.shared_device = false;
  const ApplicationFigures& app = e.application;
  // Device bytes of the file systems' own devices (each once): what the targets' I/O became. A
  // file system device that lies under another counted one (a loop file on a disk that is also a
  // target's) is left out: the lower device's bytes hold its I/O. A ratio needs every counted
  // device: one missing from a snapshot or re-created would mix zeros with real deltas.
  std::vector<std::string> own;
  for (const StorageChain& chain : e.chains) {
    if (!chain.devices.empty()) own.push_back(chain.devices.front().name);
  }
  for (const DeviceDelta& d : e.devices) e.shared_device = e.shared_device || d.targets.size() > 1;
  std::vector<std::string> counted;
  bool complete = true;
  for (const StorageChain& chain : e.chains) {
    if (chain.devices.empty()) continue;
    const std::string& name = chain.devices.front().name;
    const bool above_other =
        std::any_of(chain.devices.begin() + 1, chain.devices.end(), [&](const BlockDevice& lower) {
          return std::find(own.begin(), own.end(), lower.name) != own.end();
        });
    if (above_other || std::find(counted.begin(), counted.end(), name) != counted.end()) continue;
    counted.push_back(name);
    const auto d = std::find_if(e.devices.begin(), e.devices.end(),
                                [&](const DeviceDelta& x) { return x.name == name; });
    if (d == e.devices.end() || !d->valid) {
      complete = false;
      continue;
    }
    e.device_read_bytes += d->read_bytes;
    e.device_write_bytes += d->write_bytes;
  }
  // The application's bytes on targets with a device chain (tmpfs targets' bytes never reach one).
  for (std::size_t t = 0; t < e.chains.size(); ++t) {
    if (e.chains[t].devices.empty()) continue;
    if (t < app.target_read_bytes.size()) e.device_backed_read_bytes += app.target_read_bytes[t];
    if (t < app.target_write_bytes.size()) e.device_backed_write_bytes += app.target_write_bytes[t];
  }
  if (app.target_read_bytes.empty() && app.target_write_bytes.empty()) {
    e.device_backed_read_bytes = app.read_bytes;
    e.device_backed_write_bytes = app.write_bytes;
  }
  if (app.warmup) {
    e.derived_note =
        "no ratio: the phase had a warm-up, which the device counters cover and the "
        "application's bytes do not";
  } else if (!counted.empty() && complete) {
    if (e.device_backed_read_bytes != 0) {
      e.read_amplification = static_cast<double>(e.device_read_bytes) /
                             static_cast<double>(e.device_backed_read_bytes);
      e.page_cache_read_percent = 100.0 * (1.0 - std::min(1.0, *e.read_amplification));
    }
    if (e.device_backed_write_bytes != 0) {
      e.write_amplification = static_cast<double>(e.device_write_bytes) /
                              static_cast<double>(e.device_backed_write_bytes);
    }
  }
}

PhaseExplanation explain_phase(std::vector<StorageChain> chains, const SystemSnapshot& start,
                               const SystemSnapshot& end, const ApplicationFigures& app) {
  PhaseExplanation e;
  e.chains = std::move(chains);
  e.application = app;
  e.interval_ns = grew(start.time_ns, end.time_ns);
  for (const DiskCounters& b : end.disks) {
    const auto a = std::find_if(start.disks.begin(), start.disks.end(),
                                [&](const DiskCounters& d) { return d.name == b.name; });
    if (a == start.disks.end()) continue;
    DeviceDelta delta = device_delta(*a, b, e.interval_ns);
    for (std::size_t t = 0; t < e.chains.size(); ++t) {
      for (const BlockDevice& dev : e.chains[t].devices) {
        if (dev.name == delta.name) {
          delta.targets.push_back(t);
          break;
        }
      }
    }
    e.devices.push_back(std::move(delta));
  }

  for (std::string_view key : kKept) {
    const std::string name(key);
    const bool family = key == "pgsteal" || key == "pgscan" || key == "workingset_refault";
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    if (family) {
      a = family_sum(start.vmstat, key);
      b = family_sum(end.vmstat, key);
    } else {
      const auto ia = start.vmstat.find(name);
      const auto ib = end.vmstat.find(name);
      if (ia == start.vmstat.end() || ib == end.vmstat.end()) continue;
      a = ia->second;
      b = ib->second;
    }
    e.vmstat_delta.emplace_back(name, static_cast<std::int64_t>(b - a));  // wraps like the kernel's
  }
  if (const auto t = end.vmstat.find("nr_dirty_threshold"); t != end.vmstat.end()) {
    e.dirty_threshold_bytes = t->second * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  }
  e.meminfo_start = start.meminfo;
  e.meminfo_end = end.meminfo;
  e.io_some_us = stall(start.io_pressure, end.io_pressure, false);
  e.io_full_us = stall(start.io_pressure, end.io_pressure, true);
  e.memory_some_us = stall(start.memory_pressure, end.memory_pressure, false);
  e.memory_full_us = stall(start.memory_pressure, end.memory_pressure, true);
  e.cpu_some_us = stall(start.cpu_pressure, end.cpu_pressure, false);

  derive_figures(e);
  add_findings(e);
  return e;
}

}  // namespace iobench::explain
