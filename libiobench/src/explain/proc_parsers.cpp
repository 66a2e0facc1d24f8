// Parsers of the /proc and cgroup files the explanation reads (explain.hpp). They never throw and
// skip any line that does not have the kernel's shape: a number too large for 64 bits, a missing
// field or stray bytes drop that line only.
#include <charconv>
#include <iobench/explain.hpp>

#include "explain/text_fields.hpp"

namespace iobench::explain {

std::vector<DiskCounters> parse_diskstats(std::string_view text) {
  std::vector<DiskCounters> out;
  for_each_line(text, [&](std::string_view line) {
    const std::vector<std::string_view> f = split_blanks(line);
    // major minor name + 11 counters (2.6+), 15 (4.18+: discards), 17 (5.5+: flushes).
    if (f.size() < 14) return;
    DiskCounters d;
    std::uint64_t major = 0;
    std::uint64_t minor = 0;
    if (!to_u64(f[0], major) || !to_u64(f[1], minor) || major > 0xFFFFFFFFu ||
        minor > 0xFFFFFFFFu || f[2].empty()) {
      return;
    }
    d.major = static_cast<unsigned>(major);
    d.minor = static_cast<unsigned>(minor);
    d.name = std::string(f[2]);
    std::uint64_t* fields[] = {&d.reads_completed,   &d.reads_merged,        &d.sectors_read,
                               &d.read_time_ms,      &d.writes_completed,    &d.writes_merged,
                               &d.sectors_written,   &d.write_time_ms,       &d.in_flight,
                               &d.io_time_ms,        &d.weighted_io_time_ms, &d.discards_completed,
                               &d.discards_merged,   &d.sectors_discarded,   &d.discard_time_ms,
                               &d.flushes_completed, &d.flush_time_ms};
    const std::size_t count = std::min(f.size() - 3, std::size(fields));
    for (std::size_t i = 0; i < count; ++i) {
      if (!to_u64(f[3 + i], *fields[i])) return;
    }
    out.push_back(std::move(d));
  });
  return out;
}

std::map<std::string, std::uint64_t> parse_vmstat(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for_each_line(text, [&](std::string_view line) {
    const std::vector<std::string_view> f = split_blanks(line);
    std::uint64_t value = 0;
    if (f.size() == 2 && to_u64(f[1], value)) out[std::string(f[0])] = value;
  });
  return out;
}

namespace {

// A /proc/meminfo line "Name:   N kB": its name (with the colon) and N KiB in bytes; false for
// any other shape (a count too large for 64 bits in bytes included).
bool meminfo_line(std::string_view line, std::string_view& name, std::uint64_t& bytes) {
  const std::vector<std::string_view> f = split_blanks(line);
  std::uint64_t kib = 0;
  if (f.size() != 3 || f[2] != "kB" || !to_u64(f[1], kib) || kib > (UINT64_MAX >> 10)) {
    return false;
  }
  name = f[0];
  bytes = kib << 10;
  return true;
}

}  // namespace

std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view name) {
  std::optional<std::uint64_t> out;
  for_each_line(text, [&](std::string_view line) {
    std::string_view field;
    std::uint64_t bytes = 0;
    if (!out && meminfo_line(line, field, bytes) && field == name) out = bytes;
  });
  return out;
}

MemInfo parse_meminfo(std::string_view text) {
  MemInfo out;
  bool dirty = false;
  bool writeback = false;
  for_each_line(text, [&](std::string_view line) {
    std::string_view name;
    std::uint64_t bytes = 0;
    if (!meminfo_line(line, name, bytes)) return;
    if (name == "Dirty:") {
      out.dirty_bytes = bytes;
      dirty = true;
    } else if (name == "Writeback:") {
      out.writeback_bytes = bytes;
      writeback = true;
    } else if (name == "MemTotal:") {
      out.mem_total_bytes = bytes;
    }
  });
  out.valid = dirty && writeback;
  return out;
}

Pressure parse_pressure(std::string_view text) {
  Pressure out;
  for_each_line(text, [&](std::string_view line) {
    const std::vector<std::string_view> f = split_blanks(line);
    if (f.empty() || (f[0] != "some" && f[0] != "full")) return;
    std::optional<double> avg10;
    std::optional<std::uint64_t> total;
    for (std::size_t i = 1; i < f.size(); ++i) {
      if (f[i].starts_with("avg10=")) {
        avg10 = to_double(f[i].substr(6));
      } else if (f[i].starts_with("total=")) {
        std::uint64_t value = 0;
        if (to_u64(f[i].substr(6), value)) total = value;
      }
    }
    if (!avg10 || !total) return;
    if (f[0] == "some") {
      out.valid = true;
      out.some_avg10 = *avg10;
      out.some_total_us = *total;
    } else {
      out.has_full = true;
      out.full_avg10 = *avg10;
      out.full_total_us = *total;
    }
  });
  return out;
}

std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupMembership> out;
  for_each_line(text, [&](std::string_view line) {
    const std::size_t first = line.find(':');
    if (first == std::string_view::npos) return;
    const std::size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) return;
    std::uint64_t id = 0;
    if (!to_u64(line.substr(0, first), id)) return;
    const std::string_view path = line.substr(second + 1);
    if (path.empty() || path.front() != '/') return;
    out.push_back({std::string(line.substr(first + 1, second - first - 1)), std::string(path)});
  });
  return out;
}

namespace {

// "major:minor", both decimal.
bool is_device_number(std::string_view text) {
  const std::size_t colon = text.find(':');
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  return colon != std::string_view::npos && to_u64(text.substr(0, colon), major) &&
         to_u64(text.substr(colon + 1), minor);
}

}  // namespace

std::vector<std::pair<std::string, std::uint64_t>> parse_blkio_throttle(std::string_view text) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for_each_line(text, [&](std::string_view line) {
    const std::vector<std::string_view> f = split_blanks(line);
    std::uint64_t value = 0;
    if (f.size() == 2 && is_device_number(f[0]) && to_u64(f[1], value)) {
      out.emplace_back(std::string(f[0]), value);
    }
  });
  return out;
}

std::vector<CgroupIoLimit> parse_io_max(std::string_view text) {
  std::vector<CgroupIoLimit> out;
  for_each_line(text, [&](std::string_view line) {
    const std::vector<std::string_view> f = split_blanks(line);
    if (f.empty() || !is_device_number(f[0])) return;
    CgroupIoLimit limit;
    limit.device = std::string(f[0]);
    for (std::size_t i = 1; i < f.size(); ++i) {
      const std::size_t eq = f[i].find('=');
      if (eq == std::string_view::npos) return;
      const std::string_view key = f[i].substr(0, eq);
      const std::string_view value = f[i].substr(eq + 1);
      std::uint64_t number = 0;
      if (value != "max" && !to_u64(value, number)) return;
      if (key == "rbps") limit.read_bytes_per_s = number;
      if (key == "wbps") limit.write_bytes_per_s = number;
      if (key == "riops") limit.read_iops = number;
      if (key == "wiops") limit.write_iops = number;
    }
    out.push_back(std::move(limit));
  });
  return out;
}

}  // namespace iobench::explain
