#include "plugins/dbench/dbench_formatter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <string>
#include <variant>

#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/replay_counters.hpp"

namespace iobench::plugins::dbench {

namespace {

std::int64_t int_attribute(const StepResult& step, std::string_view key, std::int64_t fallback) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return fallback;
  if (const auto* i = std::get_if<std::int64_t>(value)) return *i;
  if (const auto* d = std::get_if<double>(value)) return static_cast<std::int64_t>(*d);
  return fallback;
}

double double_attribute(const StepResult& step, std::string_view key, double fallback) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return fallback;
  if (const auto* d = std::get_if<double>(value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(value)) return static_cast<double>(*i);
  return fallback;
}

std::string string_attribute(const StepResult& step, std::string_view key) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return {};
  if (const auto* s = std::get_if<std::string>(value)) return *s;
  return {};
}

std::uint64_t counter(const PhaseResult& phase, const std::vector<std::uint64_t>& values,
                      ReplayCounter id) {
  const auto it =
      std::find(phase.counter_names.begin(), phase.counter_names.end(), kCounterNames[id]);
  if (it == phase.counter_names.end()) return 0;
  const auto index = static_cast<std::size_t>(it - phase.counter_names.begin());
  return index < values.size() ? values[index] : 0;
}

double ms(double ns) { return ns / 1e6; }

/// The latency histograms of dbench's table ops, in table order (nullptr past `ops`).
using OpLatencies = std::array<const CompactLatencyHistogram*, kTabulatedOps>;

/// What dbench 4.00 times per op: the service time of a paced phase (its latency part; the ops'
/// latency then runs from the intended start), else the ops' latency, which is then the same.
OpLatencies timed_latencies(const std::vector<OpResult>& ops,
                            const std::vector<OpLatencyPartsResult>& parts, bool paced) {
  OpLatencies out{};
  for (std::size_t i = 0; i < kTabulatedOps && i < ops.size(); ++i) {
    out[i] = paced && i < parts.size() ? &parts[i].service : &ops[i].latency;
  }
  return out;
}

/// The ops' latency (from the intended start when the phase was paced).
OpLatencies response_latencies(const std::vector<OpResult>& ops) {
  OpLatencies out{};
  for (std::size_t i = 0; i < kTabulatedOps && i < ops.size(); ++i) out[i] = &ops[i].latency;
  return out;
}

/// dbench's table: count, mean and max latency of every op that ran.
void print_op_table(std::ostream& out, const std::vector<OpResult>& ops,
                    const OpLatencies& latencies) {
  out << " Operation      Count    AvgLat    MaxLat\n";
  out << " ----------------------------------------\n";
  const auto& names = table_op_names();
  for (std::size_t i = 0; i < kTabulatedOps && latencies[i] != nullptr; ++i) {
    if (ops[i].ops == 0) continue;
    const CompactLatencyHistogram& l = *latencies[i];
    out << fmt::format(" {:<12} {:>7} {:>9.3f} {:>9.3f}\n", names[i], ops[i].ops, ms(l.mean()),
                       ms(static_cast<double>(l.max())));
  }
}

void print_percentiles(std::ostream& out, const std::vector<OpResult>& ops,
                       const OpLatencies& latencies) {
  out << " Operation      Count       p50       p90       p99     p99.9       Max   (ms)\n";
  const auto& names = table_op_names();
  for (std::size_t i = 0; i < kTabulatedOps && latencies[i] != nullptr; ++i) {
    if (ops[i].ops == 0) continue;
    const CompactLatencyHistogram& l = *latencies[i];
    const auto p = [&](double q) { return ms(static_cast<double>(l.percentile(q))); };
    out << fmt::format(" {:<12} {:>7} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}\n", names[i],
                       ops[i].ops, p(50), p(90), p(99), p(99.9), ms(static_cast<double>(l.max())));
  }
}

std::uint64_t table_bytes(const std::vector<OpResult>& ops) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < kTabulatedOps && i < ops.size(); ++i) bytes += ops[i].bytes;
  return bytes;
}

}  // namespace

void format_dbench_text(const StepResult& step, std::ostream& out) {
  const double time_limit = double_attribute(step, "time_limit_s", 0);
  const double warmup = double_attribute(step, "warmup_s", 0);
  out << fmt::format("Running for {:g} seconds with load '{}' and minimum warmup {:g} secs\n",
                     time_limit, string_attribute(step, "loadfile"), warmup);
  for (const std::string& warning : step.warnings) out << "WARNING: " << warning << '\n';

  const auto it = std::find_if(step.phases.begin(), step.phases.end(),
                               [](const PhaseResult& p) { return p.name == "execute"; });
  if (it == step.phases.end()) {
    out << "(no execute period was measured)\n";
    return;
  }
  const PhaseResult& phase = *it;
  const bool paced = phase.latency_parts_kind.service;
  const OpLatencies timed = timed_latencies(phase.ops, phase.latency_parts, paced);
  const OpLatencies response = response_latencies(phase.ops);

  out << '\n';
  print_op_table(out, phase.ops, timed);

  // One worker per client process. Over the ranks of an MPI run the attributes are rank 0's
  // own, while the aggregate's workers are every rank's processes: the line counts the clients
  // of all nodes.
  const std::int64_t procs =
      std::max(int_attribute(step, "procs", 0), static_cast<std::int64_t>(phase.workers.size()));
  const std::int64_t clients =
      std::max(int_attribute(step, "clients", 0),
               procs * std::max<std::int64_t>(int_attribute(step, "clients_per_process", 1), 1));
  // dbench prints its last execute line at the last whole second before the end; a run that
  // ended early (run_once, a failure, an interruption) has fewer whole seconds.
  const std::int64_t tick_seconds =
      std::min(int_attribute(step, "tick_seconds", 0),
               static_cast<std::int64_t>(phase.wall_ns / 1'000'000'000ULL));
  const std::uint64_t tick_bytes = counter(phase, phase.counters, kCounterTickBytes);
  const double dbench_mb_s =
      tick_seconds > 0 ? 1e-6 * static_cast<double>(tick_bytes) / static_cast<double>(tick_seconds)
                       : 0.0;
  const std::uint64_t bytes = table_bytes(phase.ops);
  const double whole_mb_s = throughput_bytes_per_s(bytes, phase.wall_ns) / 1e6;
  std::uint64_t max_latency_ns = 0;
  for (std::size_t i = 0; i < kTabulatedOps && timed[i] != nullptr; ++i) {
    max_latency_ns = std::max({max_latency_ns, timed[i]->max(), response[i]->max()});
  }
  out << fmt::format(
      "\nThroughput {:g} MB/sec{}{}  {} clients  {} procs  max_latency={:.3f} ms  (whole execute "
      "period: {:.2f} MB/sec over {:.3f} s)\n",
      dbench_mb_s, int_attribute(step, "sync_open", 0) != 0 ? " (sync open)" : "",
      int_attribute(step, "sync_dirs", 0) != 0 ? " (sync dirs)" : "", clients, procs,
      ms(static_cast<double>(max_latency_ns)), whole_mb_s,
      static_cast<double>(phase.wall_ns) / 1e9);
  out << "(MB = 10^6 bytes, as dbench prints them; latency in ms)\n";

  out << "\nLatency percentiles per operation\n";
  print_percentiles(out, phase.ops, timed);
  if (paced) {
    out << "\nLatency from the intended start time (pacing by timestamps or target_rate)\n";
    print_percentiles(out, phase.ops, response);
  }

  std::string mismatches;
  const std::pair<ReplayCounter, const char*> checked[] = {
      {kCounterMismatchNtCreateX, "NTCreateX"},  {kCounterMismatchUnlink, "Unlink"},
      {kCounterMismatchRmdir, "Rmdir"},          {kCounterMismatchRename, "Rename"},
      {kCounterMissingHandle, "missing handle"}, {kCounterShortWrite, "short WriteX"},
      {kCounterXattrErrors, "xattr write"}};
  for (const auto& [id, label] : checked) {
    if (const std::uint64_t n = counter(phase, phase.counters, id); n > 0) {
      mismatches += fmt::format("{}{} {}", mismatches.empty() ? "" : ", ", label, n);
    }
  }
  if (!mismatches.empty()) out << "\nStatus mismatches: " << mismatches << '\n';
  if (const std::uint64_t n = counter(phase, phase.counters, kCounterShortRead); n > 0) {
    out << fmt::format("ReadX returned another size than the loadfile's {} times\n", n);
  }
  if (const std::uint64_t n = counter(phase, phase.counters, kCounterDeltreeErrors); n > 0) {
    out << fmt::format("Deltree could not remove {} entries\n", n);
  }

  if (int_attribute(step, "per_client_results", 0) != 0) {
    const std::int64_t per_process =
        std::max<std::int64_t>(int_attribute(step, "clients_per_process", 1), 1);
    out << "\nPer client results:\n";
    for (const WorkerResult& w : phase.workers) {
      const std::uint64_t lines = counter(phase, w.counters, kCounterLines);
      const std::uint64_t client_bytes = table_bytes(w.ops);
      const auto first = static_cast<std::int64_t>(w.index) * per_process;
      if (per_process == 1) {
        out << fmt::format("Client {} did {} lines and {} bytes\n", first, lines, client_bytes);
      } else {
        out << fmt::format("Clients {}-{} (process {}) did {} lines and {} bytes\n", first,
                           first + per_process - 1, w.index, lines, client_bytes);
      }
      print_op_table(out, w.ops, timed_latencies(w.ops, w.latency_parts, paced));
      out << '\n';  // dbench separates the clients' tables by a blank line
    }
  }
}

}  // namespace iobench::plugins::dbench
