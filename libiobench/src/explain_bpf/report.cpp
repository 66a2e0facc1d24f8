// --explain's latency by layer as text ("where the time went") and JSON.
#include "explain_bpf/report.hpp"

#include <fmt/format.h>

#include "report/json_fields.hpp"

namespace iobench::detail {
namespace {

std::string us(double ns) { return fmt::format("{:.2f} us", ns / 1000.0); }

std::string split_line(const char* label, const ExplainSplit& s) {
  return fmt::format(
      "    {:<5} {:>11} = fs+kernel {:5.1f} % + block queue {:5.1f} % + device {:5.1f} % + "
      "off-CPU {:5.1f} %\n",
      label, us(s.mean(s.total_ns)), s.percent(s.fs_kernel_ns), s.percent(s.queue_ns),
      s.percent(s.device_ns), s.percent(s.off_cpu_ns));
}

nlohmann::ordered_json split_json(const ExplainSplit& s) {
  return {{"calls", s.calls},
          {"total_ns", s.total_ns},
          {"fs_kernel_ns", s.fs_kernel_ns},
          {"queue_ns", s.queue_ns},
          {"device_ns", s.device_ns},
          {"off_cpu_ns", s.off_cpu_ns},
          {"mean_ns", s.mean(s.total_ns)}};
}

}  // namespace

std::string explain_bpf_text(const ExplainBpfPhase& phase) {
  if (!phase.unavailable.empty())
    return fmt::format("  explain: unavailable: {}\n", phase.unavailable);
  const bool ops = phase.split_of == ExplainMode::kOps;
  std::string out =
      ops ? "  where the time went (--explain, eBPF: each op's latency by layer; fs+kernel is the "
            "residual, on CPU):\n"
          : "  where the time went (--explain=syscalls, eBPF: each system call's latency by layer; "
            "fs+kernel is the residual, on CPU):\n";
  if (phase.calls.empty()) out += ops ? "    no op\n" : "    no tracked system call\n";
  for (const ExplainCall& c : phase.calls) {
    out += fmt::format(
        "  {}: {} {}, {:.1f} % page cache hits (no block request), {} block "
        "requests{}\n",
        c.call, c.all.calls, ops ? "ops" : "calls",
        c.all.calls ? 100.0 * static_cast<double>(c.cache_hits) / static_cast<double>(c.all.calls)
                    : 0.0,
        c.block_requests, c.clamped ? fmt::format(", {} clamped", c.clamped) : std::string{});
    if (c.requests.completed != 0) {
      out += fmt::format("    per request: block queue {}, device {} ({} completed)\n",
                         us(c.requests.mean(c.requests.queue_ns)),
                         us(c.requests.mean(c.requests.device_ns)), c.requests.completed);
    }
    out += split_line("mean", c.all);
    out += split_line("p50", c.p50);
    out += split_line("p99", c.p99);
  }
  if (ops) return out;  // back-to-back ops: off CPU between them is inside one
  out += fmt::format(
      "  off CPU outside these calls (preempted in user space or on return from a call: in "
      "iobench's op latency, not in the split): {:.3f} ms in {} switches\n",
      static_cast<double>(phase.off_cpu_outside_calls_ns) / 1e6, phase.switches_outside_calls);
  return out;
}

nlohmann::ordered_json explain_bpf_json(const ExplainBpfPhase& phase) {
  if (!phase.unavailable.empty()) return {{"unavailable", phase.unavailable}};
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  for (const ExplainCall& c : phase.calls) {
    calls.push_back({{"call", c.call},
                     {"calls", c.all.calls},
                     {"cache_hits", c.cache_hits},
                     {"block_requests", c.block_requests},
                     {"clamped", c.clamped},
                     {"requests",
                      {{"completed", c.requests.completed},
                       {"queue_ns", c.requests.queue_ns},
                       {"device_ns", c.requests.device_ns}}},
                     {"all", split_json(c.all)},
                     {"p50", split_json(c.p50)},
                     {"p99", split_json(c.p99)}});
  }
  return {{"residual", "fs_kernel_ns"},
          {"split_of", phase.split_of == ExplainMode::kOps ? "ops" : "system_calls"},
          {"calls", std::move(calls)},
          {"off_cpu_outside_calls_ns", phase.off_cpu_outside_calls_ns},
          {"switches_outside_calls", phase.switches_outside_calls}};
}

namespace {

ExplainSplit split_from_json(const json_read::Field& f) {
  using json_read::u64;
  return {.calls = u64(f, "calls"),
          .total_ns = u64(f, "total_ns"),
          .fs_kernel_ns = u64(f, "fs_kernel_ns"),
          .queue_ns = u64(f, "queue_ns"),
          .device_ns = u64(f, "device_ns"),
          .off_cpu_ns = u64(f, "off_cpu_ns")};
}

ExplainCall call_from_json(const json_read::Field& f) {
  using json_read::member;
  using json_read::u64;
  ExplainCall c;
  c.call = json_read::text(f, "call");
  c.cache_hits = u64(f, "cache_hits");
  c.block_requests = u64(f, "block_requests");
  c.clamped = u64(f, "clamped");
  // Results written before requests were timed on their own have no "requests".
  if (const auto r = json_read::optional_member(f, "requests")) {
    c.requests = {.completed = u64(*r, "completed"),
                  .queue_ns = u64(*r, "queue_ns"),
                  .device_ns = u64(*r, "device_ns")};
  }
  c.all = split_from_json(member(f, "all"));
  c.p50 = split_from_json(member(f, "p50"));
  c.p99 = split_from_json(member(f, "p99"));
  // "calls" repeats all.calls for readers of the JSON: a file where they differ was edited.
  if (u64(f, "calls") != c.all.calls) {
    json_read::fail(json_read::member(f, "calls").pointer,
                    fmt::format("is {}, not all.calls ({})", u64(f, "calls"), c.all.calls));
  }
  return c;
}

}  // namespace

ExplainBpfPhase explain_bpf_from_json(const nlohmann::ordered_json& j, const std::string& pointer) {
  const json_read::Field f{j, pointer};
  if (!j.is_object()) json_read::wrong_type(pointer, j, "an object");
  ExplainBpfPhase phase;
  if (const auto unavailable = json_read::optional_member(f, "unavailable")) {
    phase.unavailable = json_read::text(*unavailable);
    if (phase.unavailable.empty())
      json_read::fail(unavailable->pointer, "is empty: give the reason");
    return phase;
  }
  // Results written before ops were split have no "split_of": their calls are system calls.
  if (const auto split_of = json_read::optional_member(f, "split_of")) {
    const std::string what = json_read::text(*split_of);
    if (what != "ops" && what != "system_calls")
      json_read::fail(split_of->pointer, fmt::format("is '{}', not ops or system_calls", what));
    phase.split_of = what == "ops" ? ExplainMode::kOps : ExplainMode::kSyscalls;
  }
  json_read::each(json_read::member(f, "calls"),
                  [&](const json_read::Field& c) { phase.calls.push_back(call_from_json(c)); });
  phase.off_cpu_outside_calls_ns = json_read::u64(f, "off_cpu_outside_calls_ns");
  phase.switches_outside_calls = json_read::u64(f, "switches_outside_calls");
  return phase;
}

}  // namespace iobench::detail
