// The text reporter: an environment header, then each step through its family's "text" formatter
// or, for workloads without one, a generic per-phase table. iobench's own figures use one
// convention, stated in the header: binary IEC units (MiB = 2^20 bytes, MiB/s), latency in
// microseconds; a family's classic table keeps its original's units and says which.

#include <fmt/format.h>

#include <cctype>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/sysinfo.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

#include "explain_bpf/report.hpp"
#include "report/text_table.hpp"

namespace iobench {
namespace {

using detail::TextTable;
using Align = TextTable::Align;

constexpr std::string_view kUnitsLine =
    "MiB = 2^20 bytes (also in MiB/s), latency in us; family tables keep their originals' units "
    "and state them";

// "ok", or the status in capitals with its message ("INTERRUPTED: stopped by SIGINT"), so a
// failure stands out in a long listing.
std::string status_text(Status status, const std::string& message) {
  if (status == Status::kOk) return "ok";
  std::string text = to_string(status);
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (!message.empty()) text += ": " + printable_message(message);
  return text;
}

// Header line: a label padded to a fixed column, then the value.
void print_labelled(std::ostream& out, std::string_view label, std::string_view value) {
  out << fmt::format("{:<9} {}\n", label, value);
}

std::string seconds_text(std::uint64_t ns) {
  return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
}

// Latency in microseconds: two decimals below 10 us (page-cache hits), one above.
std::string latency_us_text(double ns) {
  const double us = ns_to_us(ns);
  return us < 10.0 ? fmt::format("{:.2f}", us) : fmt::format("{:.1f}", us);
}

std::string attribute_text(const AttributeValue& value) {
  return std::visit([](const auto& v) { return fmt::format("{}", v); }, value);
}

std::string target_text(const TargetInfo& target) {
  std::string text = target.path + ": " + (target.fs_type.empty() ? "unknown fs" : target.fs_type);
  if (!target.mount_options.empty()) text += " (" + target.mount_options + ")";
  if (!target.device.empty()) text += " on " + target.device;
  if (!target.mount_point.empty()) text += " at " + target.mount_point;
  if (target.size_bytes > 0) {
    text += fmt::format(", {} free of {}", format_bytes(target.free_bytes),
                        format_bytes(target.size_bytes));
  }
  return text;
}

void print_environment(std::ostream& out, const Environment& env) {
  out << fmt::format("iobench {}, run started {}\n", env.iobench_version, env.start_time_utc);
  std::string host = env.hostname;
  if (!env.arch.empty()) host += ", " + env.arch;
  host += fmt::format(", {} CPU{}", env.cpu_count, env.cpu_count == 1 ? "" : "s");
  if (!env.cpu_model.empty()) host += " (" + env.cpu_model + ")";
  host += ", " + format_bytes(env.memory_bytes) + " RAM";
  print_labelled(out, "host", host);
  print_labelled(out, "kernel", env.kernel);
  if (!env.clock.empty()) print_labelled(out, "clock", env.clock);
  for (std::size_t i = 0; i < env.targets.size(); ++i) {
    print_labelled(out, fmt::format("target {}", i), target_text(env.targets[i]));
  }
  print_labelled(out, "units", kUnitsLine);
}

// `rate`: the op's bytes per second over the phase's wall time
// (PhaseResult::throughput_bytes_per_s).
void add_op_row(TextTable& table, const std::string& name, const OpResult& op, double rate,
                std::uint64_t elapsed_ns) {
  std::vector<std::string> row = {
      name,
      fmt::format("{}", op.ops),
      fmt::format("{:.2f}", static_cast<double>(op.bytes) / kBytesPerMiB),
      fmt::format("{:.2f}", to_mib_per_s(rate)),
      fmt::format("{:.1f}", ops_per_s(op.ops, elapsed_ns)),
  };
  const CompactLatencyHistogram& latency = op.latency;
  if (latency.count() == 0) {
    row.insert(row.end(), 5, "-");
  } else {
    row.push_back(latency_us_text(latency.mean()));
    for (double p : {50.0, 99.0, 99.9}) {
      row.push_back(latency_us_text(static_cast<double>(latency.percentile(p))));
    }
    row.push_back(latency_us_text(static_cast<double>(latency.max())));
  }
  table.add_row(std::move(row));
}

void print_op_table(std::ostream& out, const PhaseResult& phase) {
  TextTable table({{"op", Align::kLeft},
                   {"ops"},
                   {"MiB"},
                   {"MiB/s"},
                   {"IOPS"},
                   {"mean us"},
                   {"p50 us"},
                   {"p99 us"},
                   {"p99.9 us"},
                   {"max us"}});
  const std::size_t kinds = std::min(phase.op_names.size(), phase.ops.size());
  for (std::size_t i = 0; i < kinds; ++i) {
    add_op_row(table, phase.op_names[i], phase.ops[i], phase.throughput_bytes_per_s(i),
               phase.wall_ns);
  }
  if (kinds > 1) {
    // Totals over the op kinds; a latency mixing kinds would mislead, so none is shown.
    OpResult total;
    total.ops = phase.total_ops();
    total.bytes = phase.total_bytes();
    add_op_row(table, "all", total, phase.throughput_bytes_per_s(), phase.wall_ns);
  }
  if (table.empty()) {
    out << "(no operations recorded)\n";
    return;
  }
  table.print(out);
}

void print_phase_details(std::ostream& out, const PhaseResult& phase) {
  const auto percent = [&](std::uint64_t cpu_ns) {
    return fmt::format("{:.1f}%", cpu_percent(cpu_ns, phase.wall_ns));
  };
  print_labelled(
      out, "cpu",
      fmt::format("process usr {} sys {}, workers usr {} sys {} (of one CPU); "
                  "system busy {:.1f}%",
                  percent(phase.process_cpu.user_ns), percent(phase.process_cpu.system_ns),
                  percent(phase.workers_cpu.user_ns), percent(phase.workers_cpu.system_ns),
                  phase.system_busy_percent));
  if (!phase.counter_names.empty()) {
    std::string counters;
    for (std::size_t i = 0; i < phase.counter_names.size(); ++i) {
      if (i > 0) counters += ' ';
      counters += fmt::format("{}={}", phase.counter_names[i],
                              i < phase.counters.size() ? phase.counters[i] : 0);
    }
    print_labelled(out, "counters", counters);
  }
  const std::size_t kinds = std::min(phase.op_names.size(), phase.ops.size());
  for (std::size_t i = 0; i < kinds; ++i) {
    const OpResult& op = phase.ops[i];
    if (op.errors > 0) {
      print_labelled(out, "ERRORS", fmt::format("{}: {} failed ops", phase.op_names[i], op.errors));
    }
    if (op.latency.count() != op.ops) {
      // Latency sampling (disk's latency_sample): the latency columns are of the timed ops.
      print_labelled(out, "latency",
                     fmt::format("{}: sampled, {} of {} ops timed", phase.op_names[i],
                                 op.latency.count(), op.ops));
    }
    if (op.ops_over_2s > 0) {
      print_labelled(out, "slow ops",
                     fmt::format("{}: {} over 2 s, {} over 10 s", phase.op_names[i], op.ops_over_2s,
                                 op.ops_over_10s));
    }
  }
}

void print_worker_table(std::ostream& out, const PhaseResult& phase,
                        const std::vector<std::string>& targets) {
  TextTable table({{"worker", Align::kLeft},
                   {"target", Align::kLeft},
                   {"ops"},
                   {"MiB"},
                   {"MiB/s"},
                   {"elapsed"},
                   {"usr %"},
                   {"sys %"},
                   {"status", Align::kLeft}});
  for (const WorkerResult& worker : phase.workers) {
    const std::uint64_t ops = worker.total_ops();
    const std::uint64_t bytes = worker.total_bytes();
    table.add_row({
        fmt::format("{}", worker.index),
        worker.target_index < targets.size() ? targets[worker.target_index]
                                             : fmt::format("#{}", worker.target_index),
        fmt::format("{}", ops),
        fmt::format("{:.2f}", static_cast<double>(bytes) / kBytesPerMiB),
        fmt::format("{:.2f}", to_mib_per_s(throughput_bytes_per_s(bytes, worker.elapsed_ns))),
        seconds_text(worker.elapsed_ns),
        fmt::format("{:.1f}", cpu_percent(worker.cpu.user_ns, worker.elapsed_ns)),
        fmt::format("{:.1f}", cpu_percent(worker.cpu.system_ns, worker.elapsed_ns)),
        status_text(worker.status, worker.message),
    });
  }
  table.print(out);
}

// What the page cache drop before phase `phase` left in memory (drop_page_cache_before()'s
// attributes of `step`), as the text report says it; empty where the step has none.
std::string page_cache_left_note(const StepResult& step, std::string_view phase) {
  const auto bytes_of = [&](std::string_view name) -> std::optional<std::uint64_t> {
    const AttributeValue* value = step.attribute(fmt::format("{}.{}", name, phase));
    const std::int64_t* bytes = value != nullptr ? std::get_if<std::int64_t>(value) : nullptr;
    if (bytes == nullptr || *bytes < 0) return std::nullopt;
    return static_cast<std::uint64_t>(*bytes);
  };
  const std::optional<std::uint64_t> buffers = bytes_of(kCacheLeftBuffersAttribute);
  const std::optional<std::uint64_t> cached = bytes_of(kCacheLeftCachedAttribute);
  if (!buffers && !cached) return {};
  std::string left;
  if (buffers) left = fmt::format("{} of buffers (file system metadata)", format_bytes(*buffers));
  if (cached) {
    left += fmt::format("{}{} of file pages", buffers ? " and " : "", format_bytes(*cached));
  }
  return fmt::format(
      "page cache dropped before this phase; {} still in memory after the drop, machine-wide (a "
      "journalling file system keeps the metadata blocks it has not checkpointed, tmpfs its "
      "files)",
      left);
}

// How print_phase() begins a phase's block.
std::string phase_header_start(std::string_view name) {
  return fmt::format("\n-- phase {}: ", name);
}

void print_phase(std::ostream& out, const PhaseResult& phase, const StepResult& step) {
  const std::size_t workers = phase.workers.size();
  const std::vector<std::string>& targets = step.targets;
  out << fmt::format("{}{} worker{} ({}), wall {}, stonewall {}, {}\n",
                     phase_header_start(phase.name), workers, workers == 1 ? "" : "s",
                     phase.mode == WorkerMode::kProcesses ? "processes" : "threads",
                     seconds_text(phase.wall_ns), seconds_text(phase.stonewall_ns),
                     status_text(phase.status, phase.message));
  if (const std::string note = page_cache_left_note(step, phase.name); !note.empty()) {
    print_labelled(out, "cache", note);
  }
  print_op_table(out, phase);
  print_phase_details(out, phase);
  if (phase.steady_state) out << describe(*phase.steady_state) << '\n';
  if (phase.explain_bpf) out << detail::explain_bpf_text(*phase.explain_bpf);
  if (workers > 1) print_worker_table(out, phase, targets);
  if (phase.explanation) out << explain::findings_text(*phase.explanation, "");
}

// Under a family's own output (which knows nothing of them): each phase's steady-state
// outcome (steady_state=) on a line naming the phase, what the page cache drop before it left
// (--drop-caches, io500's cache_proof) and its --explain split and findings (issue 29) under one.
// A phase the family's output (`family_text`) already showed with write_generic_step_text()
// (mdtest's and IO500's start with it), whose block carries all of these, is skipped.
void print_step_explanations(std::ostream& out, const StepResult& step,
                             std::string_view family_text) {
  for (const PhaseResult& phase : step.phases) {
    if (family_text.find(phase_header_start(phase.name)) != std::string_view::npos) continue;
    const std::string cache_note = page_cache_left_note(step, phase.name);
    if (phase.steady_state) {
      out << fmt::format("phase {}: {}\n", phase.name, describe(*phase.steady_state));
    }
    const bool findings = phase.explanation && !phase.explanation->findings.empty();
    if (!findings && !phase.explain_bpf) {
      if (!cache_note.empty()) out << fmt::format("phase {}: {}\n", phase.name, cache_note);
      continue;
    }
    out << fmt::format("phase {}:\n", phase.name);
    if (!cache_note.empty()) out << fmt::format("  {}\n", cache_note);
    if (phase.explain_bpf) out << detail::explain_bpf_text(*phase.explain_bpf);
    if (findings) out << explain::findings_text(*phase.explanation, "  ");
  }
}

void print_generic_step(std::ostream& out, const StepResult& step) {
  out << fmt::format("\n== step {}: workload {}, {}\n", step.name, step.workload,
                     status_text(step.status, step.message));
  if (!step.params.empty()) {
    std::string params;
    for (const auto& [key, value] : step.params) {
      if (!params.empty()) params += ' ';
      params += key + '=' + value;
    }
    print_labelled(out, "params", params);
  }
  if (!step.targets.empty()) {
    std::string targets;
    for (const std::string& target : step.targets) {
      if (!targets.empty()) targets += ", ";
      targets += target;
    }
    print_labelled(out, "targets", targets);
  }
  print_labelled(out, "seed", fmt::format("{}", step.seed));
  if (!step.attributes.empty()) {
    std::string attributes;
    for (const auto& [key, value] : step.attributes) {
      if (!attributes.empty()) attributes += ' ';
      attributes += key + '=' + attribute_text(value);
    }
    print_labelled(out, "attrs", attributes);
  }
  for (const std::string& warning : step.warnings) {
    print_labelled(out, "WARNING", printable_message(warning));
  }
  for (const PhaseResult& phase : step.phases) print_phase(out, phase, step);
  if (step.phases.empty() && step.status == Status::kOk) out << "(no measured phases)\n";
}

class TextReporter final : public Reporter {
 public:
  TextReporter(std::ostream& out, const Registry& registry) : out_(out), registry_(registry) {}

  void on_run_start(const Environment& env) override {
    print_environment(out_, env);
    out_.flush();
  }

  void on_step_end(const StepResult& step) override {
    if (const ResultFormatter* formatter = registry_.formatter(step.workload, "text")) {
      // The family's own output, under one line naming the step (several steps share a run)
      // and what it wrote: a compressing filesystem writes zeros faster than random data.
      const AttributeValue* data = step.attribute("data");
      const std::string* data_text = data != nullptr ? std::get_if<std::string>(data) : nullptr;
      out_ << fmt::format("\n== {} ({}, seed {}{})\n", step.name, step.workload, step.seed,
                          data_text != nullptr ? ", data " + *data_text : std::string());
      std::ostringstream family;
      (*formatter)(step, family);
      out_ << family.view();
      print_step_explanations(out_, step, family.view());
      if (step.status != Status::kOk) {
        out_ << fmt::format("step {} ({}): {}\n", step.name, step.workload,
                            status_text(step.status, step.message));
      }
    } else {
      print_generic_step(out_, step);
    }
    out_.flush();
  }

  void on_run_end(const RunResult& run) override {
    if (run.status != Status::kOk) {
      const char* why = run.status == Status::kInterrupted ? ": the results above are partial"
                        : run.status == Status::kNoMeasurement
                            ? ": a phase ended inside its warm-up and measured nothing (see above)"
                            : "";
      out_ << fmt::format("\nrun {}{}\n", status_text(run.status, std::string()), why);
    }
    out_.flush();
  }

 private:
  std::ostream& out_;
  const Registry& registry_;
};

}  // namespace

std::unique_ptr<Reporter> make_text_reporter(std::ostream& out, const Registry& registry) {
  return std::make_unique<TextReporter>(out, registry);
}

void write_generic_step_text(const StepResult& step, std::ostream& out) {
  print_generic_step(out, step);
}

}  // namespace iobench
