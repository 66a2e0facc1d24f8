// The CSV reporters: one schema per stream. The generic one writes one header line, then for
// every step (whatever its family) per phase one row per worker and op kind followed by the
// merged rows (worker "all"). The family one writes one workload's own CSV (its "csv_header"
// formatter once, if it has one, then its "csv" formatter per step of that workload; e.g.
// bonnie++'s headerless lines that bon_csv2html reads). Fields are quoted per RFC 4180 when
// needed; lines end in LF.
//
// Row semantics: elapsed_ns is the worker's elapsed time (the phase's wall time in merged rows)
// and the rates divide by it; cpu_*_ns are the worker's CPU times (the whole process's in merged
// rows), repeated on each op kind's row of that worker. A step that ended before any measured
// phase gets one row with an empty phase, so its status is not lost.
//
// The device columns (issue 29) are the phase's, from its explanation: on its merged rows only,
// empty on worker rows and where the phase has no block device (tmpfs, or no explanation).

#include <fmt/format.h>

#include <iobench/explain.hpp>
#include <iobench/format.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace iobench {
namespace {

constexpr const char* kHeader =
    "step,workload,phase,worker,target,op,ops,bytes,elapsed_ns,throughput_bytes_per_s,iops,"
    "lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p99_9_ns,lat_max_ns,cpu_user_ns,cpu_system_ns,status,"
    "dev_read_bytes,dev_write_bytes,dev_util_percent,dev_r_await_ms,dev_w_await_ms,"
    "read_amplification,write_amplification";

// The device columns of a phase (after "status"): the bytes of the file systems' devices (each
// counted once), and util and awaits of the busiest of them; the amplifications where derived.
// Seven empty fields for a phase without a block device.
std::string device_columns(const PhaseResult* phase) {
  const explain::PhaseExplanation* e =
      phase != nullptr && phase->explanation ? &*phase->explanation : nullptr;
  const explain::DeviceDelta* busiest = nullptr;
  if (e != nullptr) {
    for (const explain::StorageChain& chain : e->chains) {
      if (chain.devices.empty()) continue;
      for (const explain::DeviceDelta& d : e->devices) {
        if (d.name != chain.devices.front().name || !d.valid) continue;
        if (busiest == nullptr || d.util_percent > busiest->util_percent) busiest = &d;
      }
    }
  }
  if (busiest == nullptr) return ",,,,,,";
  const auto ratio = [](const std::optional<double>& r) {
    return r ? fmt::format("{:.4f}", *r) : std::string();
  };
  return fmt::format("{},{},{:.2f},{:.3f},{:.3f},{},{}", e->device_read_bytes,
                     e->device_write_bytes, busiest->util_percent, busiest->r_await_ms,
                     busiest->w_await_ms, ratio(e->read_amplification),
                     ratio(e->write_amplification));
}

// What one row shows besides the step's own fields.
struct RowSource {
  std::string phase;
  std::string worker;
  std::string target;
  std::string op;
  const OpResult* stats = nullptr;  // nullptr: no op recorded (zeros)
  std::uint64_t elapsed_ns = 0;
  CpuTimes cpu;
  Status status = Status::kOk;
  const PhaseResult* devices_of = nullptr;  // the phase whose device columns the row shows
};

void write_row(std::ostream& out, const StepResult& step, const RowSource& row) {
  const OpResult empty;
  const OpResult& op = row.stats != nullptr ? *row.stats : empty;
  const CompactLatencyHistogram& latency = op.latency;
  out << fmt::format("{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.1f},{},{},{},{},{},{},{},{}\n",
                     csv_field(step.name), csv_field(step.workload), csv_field(row.phase),
                     csv_field(row.worker), csv_field(row.target), csv_field(row.op), op.ops,
                     op.bytes, row.elapsed_ns, throughput_bytes_per_s(op.bytes, row.elapsed_ns),
                     ops_per_s(op.ops, row.elapsed_ns), latency.mean(), latency.percentile(50.0),
                     latency.percentile(99.0), latency.percentile(99.9), latency.max(),
                     row.cpu.user_ns, row.cpu.system_ns, to_string(row.status),
                     device_columns(row.devices_of));
}

void write_phase(std::ostream& out, const StepResult& step, const PhaseResult& phase) {
  const std::size_t kinds = phase.op_names.size();
  for (const WorkerResult& worker : phase.workers) {
    RowSource row{.phase = phase.name,
                  .worker = fmt::format("{}", worker.index),
                  .target = worker.target_index < step.targets.size()
                                ? step.targets[worker.target_index]
                                : fmt::format("#{}", worker.target_index),
                  .elapsed_ns = worker.elapsed_ns,
                  .cpu = worker.cpu,
                  .status = worker.status};
    for (std::size_t i = 0; i < kinds; ++i) {
      row.op = phase.op_names[i];
      row.stats = i < worker.ops.size() ? &worker.ops[i] : nullptr;
      write_row(out, step, row);
    }
  }
  RowSource merged{.phase = phase.name,
                   .worker = "all",
                   .target = "all",
                   .elapsed_ns = phase.wall_ns,
                   .cpu = phase.process_cpu,
                   .status = phase.status,
                   .devices_of = &phase};
  for (std::size_t i = 0; i < kinds; ++i) {
    merged.op = phase.op_names[i];
    merged.stats = i < phase.ops.size() ? &phase.ops[i] : nullptr;
    write_row(out, step, merged);
  }
  if (kinds == 0) write_row(out, step, merged);  // keep the phase and its status visible
}

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}

  void on_step_end(const StepResult& step) override {
    if (!header_written_) {
      out_ << kHeader << '\n';
      header_written_ = true;
    }
    for (const PhaseResult& phase : step.phases) write_phase(out_, step, phase);
    if (step.phases.empty()) {
      write_row(out_, step, RowSource{.worker = "all", .target = "all", .status = step.status});
    }
    out_.flush();
  }

 private:
  std::ostream& out_;
  bool header_written_ = false;
};

class FamilyCsvReporter final : public Reporter {
 public:
  FamilyCsvReporter(std::ostream& out, const Registry& registry, std::string workload)
      : out_(out),
        rows_(registry.formatter(workload, "csv")),
        header_(registry.formatter(workload, "csv_header")),
        workload_(std::move(workload)) {}

  void on_step_end(const StepResult& step) override {
    if (rows_ == nullptr || step.workload != workload_) return;
    if (!header_written_ && header_ != nullptr) (*header_)(step, out_);
    header_written_ = true;
    (*rows_)(step, out_);
    out_.flush();
  }

 private:
  std::ostream& out_;
  const ResultFormatter* rows_;
  const ResultFormatter* header_;
  std::string workload_;
  bool header_written_ = false;
};

}  // namespace

std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out, const Registry& /*registry*/) {
  return std::make_unique<CsvReporter>(out);
}

std::unique_ptr<Reporter> make_family_csv_reporter(std::ostream& out, const Registry& registry,
                                                   std::string workload) {
  return std::make_unique<FamilyCsvReporter>(out, registry, std::move(workload));
}

std::filesystem::path family_csv_path(const std::filesystem::path& output,
                                      std::string_view workload) {
  std::filesystem::path path = output;
  const std::string extension = output.has_extension() ? output.extension().string() : ".csv";
  path.replace_filename(output.stem().string() + "." + std::string(workload) + extension);
  return path;
}

}  // namespace iobench
