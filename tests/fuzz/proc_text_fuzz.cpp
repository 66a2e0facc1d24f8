// Fuzz target: the text iobench reads from /proc to describe the machine and its targets: mountinfo
// (fs type, device and mount options of every target in the results), /proc/stat's cpu line
// (system busy %), /proc/cpuinfo's model name; and the explain parsers (issue 29): diskstats,
// vmstat, meminfo, PSI, /proc/self/cgroup, blkio throttle and io.max files.
//
// Invariants: each mountinfo entry written back as a line (kernel escapes, no optional fields)
// parses to the same entry; looking up an entry's own mount point finds a mount on that point;
// the combined options keep every per-mount option; a CPU model is a part of the text without
// surrounding blanks; ticks are read only from an aggregate "cpu " line.
#include <iobench/explain.hpp>
#include <iobench/metrics.hpp>
#include <string>

#include "tests/fuzz/fuzz_check.hpp"
#include "util/cpuinfo.hpp"
#include "util/mountinfo.hpp"

namespace {

namespace detail = iobench::detail;

// The kernel's escaping of a mountinfo field (fs/proc_namespace.c mangle(): " \t\n\\").
std::string escape(std::string_view field) {
  std::string out;
  for (const char c : field) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
      const auto byte = static_cast<unsigned char>(c);
      out += '\\';
      out += static_cast<char>('0' + (byte >> 6));
      out += static_cast<char>('0' + ((byte >> 3) & 7));
      out += static_cast<char>('0' + (byte & 7));
    } else {
      out += c;
    }
  }
  return out;
}

std::string line_of(const detail::MountEntry& e) {
  return std::to_string(e.mount_id) + " " + std::to_string(e.parent_id) + " " + e.device_number +
         " " + escape(e.root) + " " + escape(e.mount_point) + " " + escape(e.mount_options) +
         " - " + escape(e.fs_type) + " " + escape(e.source) + " " + escape(e.super_options);
}

bool same(const detail::MountEntry& a, const detail::MountEntry& b) {
  return a.mount_id == b.mount_id && a.parent_id == b.parent_id &&
         a.device_number == b.device_number && a.root == b.root && a.mount_point == b.mount_point &&
         a.mount_options == b.mount_options && a.fs_type == b.fs_type && a.source == b.source &&
         a.super_options == b.super_options;
}

bool has_option(std::string_view list, std::string_view option) {
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    if (list.substr(start, end - start) == option) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);

  const std::vector<detail::MountEntry> mounts = detail::parse_mountinfo(text);
  for (const detail::MountEntry& entry : mounts) {
    const std::string line = line_of(entry);
    const auto again = detail::parse_mountinfo_line(line);
    FUZZ_CHECK(again && same(entry, *again), line);
    FUZZ_CHECK(!entry.mount_point.empty() && entry.mount_point.front() == '/', line);
    const detail::MountEntry* found = detail::find_mount(mounts, entry.mount_point);
    FUZZ_CHECK(found != nullptr && found->mount_point == entry.mount_point, line);
    const std::string combined = detail::combined_mount_options(entry);
    for (std::size_t start = 0; start <= entry.mount_options.size();) {
      const std::size_t end =
          std::min(entry.mount_options.find(',', start), entry.mount_options.size());
      const std::string_view option =
          std::string_view(entry.mount_options).substr(start, end - start);
      FUZZ_CHECK(option.empty() || has_option(combined, option), line);
      start = end + 1;
    }
  }

  const std::string model = detail::cpu_model_from_cpuinfo(text);
  if (!model.empty()) {
    FUZZ_CHECK(detail::trim_blanks(model) == model, model);
    FUZZ_CHECK(text.find(model) != std::string_view::npos, model);
  }

  // noexcept: an exception here would terminate. Ticks come only from an aggregate "cpu " line.
  const iobench::SystemCpuSample sample = iobench::parse_proc_stat_cpu(text);
  if (sample.total_ticks != 0 || sample.busy_ticks != 0) {
    FUZZ_CHECK(text.find("cpu ") != std::string_view::npos, "ticks without a cpu line");
  }
  // The explain parsers: never throw; what they keep has the shape they promise.
  namespace explain = iobench::explain;
  for (const explain::DiskCounters& d : explain::parse_diskstats(text)) {
    FUZZ_CHECK(!d.name.empty() && text.find(d.name) != std::string_view::npos, d.name);
  }
  for (const auto& [key, value] : explain::parse_vmstat(text)) {
    FUZZ_CHECK(!key.empty() && text.find(key) != std::string_view::npos, key);
  }
  const explain::MemInfo mem = explain::parse_meminfo(text);
  if (mem.valid) FUZZ_CHECK(text.find("Dirty:") != std::string_view::npos, "dirty without Dirty:");
  const explain::Pressure psi = explain::parse_pressure(text);
  if (psi.valid) FUZZ_CHECK(text.find("some") != std::string_view::npos, "some without some");
  for (const explain::CgroupMembership& m : explain::parse_proc_cgroup(text)) {
    FUZZ_CHECK(!m.path.empty() && m.path.front() == '/', m.path);
  }
  for (const auto& [device, value] : explain::parse_blkio_throttle(text)) {
    FUZZ_CHECK(device.find(':') != std::string::npos, device);
  }
  for (const explain::CgroupIoLimit& limit : explain::parse_io_max(text)) {
    FUZZ_CHECK(limit.device.find(':') != std::string::npos, limit.device);
  }
  return 0;
}
