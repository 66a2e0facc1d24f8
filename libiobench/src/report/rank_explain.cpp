// The merged explanation of a phase over ranks: see rank_explain.hpp.
#include "report/rank_explain.hpp"

#include <algorithm>
#include <string>

#include "explain/derive.hpp"

namespace iobench::detail {
namespace {

using explain::PhaseExplanation;

void add_meminfo(explain::MemInfo& into, const explain::MemInfo& m) {
  into.valid = into.valid && m.valid;
  into.dirty_bytes += m.dirty_bytes;
  into.writeback_bytes += m.writeback_bytes;
  into.mem_total_bytes += m.mem_total_bytes;
}

void add_stall(std::optional<std::uint64_t>& into, const std::optional<std::uint64_t>& v) {
  if (into && v) {
    *into += *v;
  } else {
    into.reset();  // a host without PSI: no total
  }
}

// Another host's kernel-wide figures (the first host's are copied as they are).
void add_host_figures(PhaseExplanation& into, const PhaseExplanation& e) {
  for (const auto& counter : e.vmstat_delta) {
    for (auto& mine : into.vmstat_delta) {
      if (mine.first == counter.first) mine.second += counter.second;
    }
  }
  add_meminfo(into.meminfo_start, e.meminfo_start);
  add_meminfo(into.meminfo_end, e.meminfo_end);
  add_stall(into.io_some_us, e.io_some_us);
  add_stall(into.io_full_us, e.io_full_us);
  add_stall(into.memory_some_us, e.memory_some_us);
  add_stall(into.memory_full_us, e.memory_full_us);
  add_stall(into.cpu_some_us, e.cpu_some_us);
  into.dirty_threshold_bytes += e.dirty_threshold_bytes;
}

// One rank's device deltas into the merged list; `interval` per merged device: the span of the
// snapshots its counts come from.
void add_devices(PhaseExplanation& into, std::vector<std::uint64_t>& interval,
                 const PhaseExplanation& e, const std::string& prefix, std::size_t offset) {
  for (const explain::DeviceDelta& d : e.devices) {
    explain::DeviceDelta mine = d;
    mine.name = prefix + d.name;
    for (std::size_t& t : mine.targets) t += offset;
    const auto same =
        std::find_if(into.devices.begin(), into.devices.end(),
                     [&](const explain::DeviceDelta& x) { return x.name == mine.name; });
    if (same == into.devices.end()) {
      into.devices.push_back(std::move(mine));
      interval.push_back(e.interval_ns);
      continue;
    }
    std::vector<std::size_t> targets = same->targets;
    targets.insert(targets.end(), mine.targets.begin(), mine.targets.end());
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    const auto k = static_cast<std::size_t>(same - into.devices.begin());
    if (e.interval_ns > interval[k]) {
      *same = std::move(mine);
      interval[k] = e.interval_ns;
    }
    same->targets = std::move(targets);
  }
}

// One rank's application figures into the sums; its per-target bytes at its targets' place.
void add_application(explain::ApplicationFigures& into, const explain::ApplicationFigures& a,
                     std::size_t offset, std::size_t targets, bool& per_target) {
  into.read_bytes += a.read_bytes;
  into.write_bytes += a.write_bytes;
  into.warmup = into.warmup || a.warmup;
  into.workers_cpu_percent += a.workers_cpu_percent;
  into.workers += a.workers;
  into.largest_file_bytes = std::max(into.largest_file_bytes, a.largest_file_bytes);
  if (a.target_read_bytes.empty() && a.target_write_bytes.empty()) per_target = false;
  if (!per_target) return;
  into.target_read_bytes.resize(offset, 0);
  into.target_write_bytes.resize(offset, 0);
  std::vector<std::uint64_t> reads = a.target_read_bytes;
  std::vector<std::uint64_t> writes = a.target_write_bytes;
  reads.resize(targets, 0);
  writes.resize(targets, 0);
  into.target_read_bytes.insert(into.target_read_bytes.end(), reads.begin(), reads.end());
  into.target_write_bytes.insert(into.target_write_bytes.end(), writes.begin(), writes.end());
}

}  // namespace

std::optional<PhaseExplanation> merge_rank_explanations(
    const std::vector<RankStep>& ranks, std::size_t p,
    const std::vector<std::size_t>& target_offset) {
  std::vector<std::string> hosts;
  bool any = false;
  for (const RankStep& rank : ranks) {
    if (p >= rank.step.phases.size()) continue;
    if (!rank.step.phases[p].explanation) return std::nullopt;
    any = true;
    const std::string& host = rank.environment.hostname;
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  if (!any) return std::nullopt;
  const bool several_hosts = hosts.size() > 1;
  PhaseExplanation m;
  std::vector<std::uint64_t> interval;
  std::vector<std::string> seen_hosts;
  bool per_target = true;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankStep& rank = ranks[r];
    if (p >= rank.step.phases.size()) continue;
    const PhaseExplanation& e = *rank.step.phases[p].explanation;
    const std::string& host = rank.environment.hostname;
    const std::string prefix = several_hosts ? host + ":" : std::string();
    const std::size_t offset = r < target_offset.size() ? target_offset[r] : m.chains.size();
    m.interval_ns = std::max(m.interval_ns, e.interval_ns);
    for (explain::StorageChain chain : e.chains) {
      for (explain::BlockDevice& d : chain.devices) d.name = prefix + d.name;
      m.chains.push_back(std::move(chain));
    }
    add_devices(m, interval, e, prefix, offset);
    add_application(m.application, e.application, offset, e.chains.size(), per_target);
    if (seen_hosts.empty()) {
      m.vmstat_delta = e.vmstat_delta;
      m.meminfo_start = e.meminfo_start;
      m.meminfo_end = e.meminfo_end;
      m.io_some_us = e.io_some_us;
      m.io_full_us = e.io_full_us;
      m.memory_some_us = e.memory_some_us;
      m.memory_full_us = e.memory_full_us;
      m.cpu_some_us = e.cpu_some_us;
      m.dirty_threshold_bytes = e.dirty_threshold_bytes;
    } else if (std::find(seen_hosts.begin(), seen_hosts.end(), host) == seen_hosts.end()) {
      add_host_figures(m, e);
    }
    if (std::find(seen_hosts.begin(), seen_hosts.end(), host) == seen_hosts.end())
      seen_hosts.push_back(host);
  }
  if (!per_target) {
    m.application.target_read_bytes.clear();
    m.application.target_write_bytes.clear();
  }
  explain::derive_figures(m);
  explain::add_findings(m);
  return m;
}

}  // namespace iobench::detail
