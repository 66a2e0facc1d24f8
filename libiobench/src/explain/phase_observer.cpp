#include "explain/phase_observer.hpp"

#include <cctype>
#include <iobench/metrics.hpp>

namespace iobench::explain {

namespace {

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

// What the op names of each family move (their OpResult::bytes):
//   disk, tiotest      "read", "write"          read / write ("fsync", "trim": neither)
//   bonnie             "read" (get_block), "write" (put_block): read / write
//                      "rewrite": each op reads its chunk and writes it back: read and write
//                      "chunk": putc's one-byte writes in phase "putc", getc's reads in "getc"
//                      "seek", "create", "stat", "delete": neither (seeks' bytes are not split)
//   dbench             "ReadX" / "WriteX": read / write; its other calls move no data
// Any other name starting with "read" / "write" in any case counts as such.
OpKind op_kind(std::string_view phase, std::string_view op) {
  if (op == "rewrite") return {.read = true, .write = true};
  if (op == "chunk") return {.read = phase == "getc", .write = phase == "putc"};
  return {.read = starts_with_nocase(op, "read"), .write = starts_with_nocase(op, "write")};
}

ApplicationFigures application_figures(const PhaseResult& phase) {
  ApplicationFigures app;
  for (std::size_t k = 0; k < phase.op_names.size() && k < phase.ops.size(); ++k) {
    const OpKind kind = op_kind(phase.name, phase.op_names[k]);
    if (kind.read) app.read_bytes += phase.ops[k].bytes;
    if (kind.write) app.write_bytes += phase.ops[k].bytes;
  }
  for (const WorkerResult& w : phase.workers) {
    const std::size_t t = w.target_index;
    if (app.target_read_bytes.size() <= t) {
      app.target_read_bytes.resize(t + 1);
      app.target_write_bytes.resize(t + 1);
    }
    for (std::size_t k = 0; k < phase.op_names.size() && k < w.ops.size(); ++k) {
      const OpKind kind = op_kind(phase.name, phase.op_names[k]);
      if (kind.read) app.target_read_bytes[t] += w.ops[k].bytes;
      if (kind.write) app.target_write_bytes[t] += w.ops[k].bytes;
    }
  }
  app.workers = phase.workers.size();
  app.workers_cpu_percent =
      cpu_percent(phase.workers_cpu.user_ns + phase.workers_cpu.system_ns, phase.wall_ns);
  return app;
}

PhaseObserver::PhaseObserver(std::span<const Target> targets) {
  chains_.reserve(targets.size());
  for (const Target& target : targets) chains_.push_back(describe_storage(target.user_path));
  devices_ = chain_device_names(chains_);
  start_ = take_snapshot(devices_);
}

void PhaseObserver::finish(PhaseResult& phase, bool had_warmup, std::uint64_t files_bytes) const {
  const SystemSnapshot end = take_snapshot(devices_);
  ApplicationFigures app = application_figures(phase);
  app.warmup = had_warmup;
  app.largest_file_bytes = files_bytes;
  phase.explanation = explain_phase(chains_, start_, end, app);
}

}  // namespace iobench::explain
