#pragma once

#include <cstdint>
#include <iobench/explain.hpp>
#include <iobench/explain_bpf.hpp>
#include <iobench/metrics.hpp>
#include <iobench/steady_state.hpp>
#include <iobench/time_series.hpp>
#include <iobench/workload.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace iobench {

/// How a phase, step or run ended.
enum class Status {
  kOk,           ///< completed as asked
  kFailed,       ///< an I/O or setup error ended it; `message` has the errno text
  kInterrupted,  ///< SIGINT/SIGTERM; results are partial
  kSkipped,      ///< not run (an earlier failure, or an unmeasured phase)
  /// Ran, but measured nothing: it ended inside its warm-up (a short phase with a long
  /// --warmup, a loadfile run once), so what it did was discarded and it has no measured ops.
  /// `message` says how long it ran and what the warm-up was. For a worker: it ended inside
  /// the warm-up while others went on (its phase is then ok, with a step warning). A step with
  /// such a phase goes on with its other phases; `iobench` exits 3, so scripts notice.
  kNoMeasurement,
};
/// "ok", "failed", "interrupted", "skipped", "no_measurement".
[[nodiscard]] const char* to_string(Status status) noexcept;
/// The more severe of `a` and `b` (ok < skipped < no_measurement < interrupted < failed): how a
/// run's status follows from its steps'.
[[nodiscard]] Status worse(Status a, Status b) noexcept;

/// A target's filesystem as seen at the start of the run.
struct TargetInfo {
  std::string path;     ///< as the user gave it
  std::string fs_type;  ///< e.g. "ext4", "tmpfs" (from /proc/self/mountinfo)
  std::string mount_point;
  std::string mount_options;  ///< per-mount and superblock options
  std::string device;         ///< mount source, e.g. /dev/sda1
  std::uint64_t size_bytes = 0;
  std::uint64_t free_bytes = 0;  ///< available to unprivileged users (statvfs f_bavail)
};

/// Where and when a run happened.
struct Environment {
  std::string hostname;
  std::string kernel;      ///< uname -s -r -v
  std::string arch;        ///< uname -m
  std::string cpu_model;   ///< /proc/cpuinfo "model name"
  unsigned cpu_count = 0;  ///< online CPUs
  std::uint64_t memory_bytes = 0;
  std::string iobench_version;
  std::string start_time_utc;  ///< ISO 8601, e.g. 2026-11-30T09:00:00Z
  /// The clock every time was measured with (run_clock_description(), clock.hpp): "tsc (...)"
  /// or "CLOCK_MONOTONIC (reason)"; empty in results written before iobench 0.2.
  std::string clock;
  std::vector<TargetInfo> targets;
};

/// One worker's outcome in one phase.
struct WorkerResult {
  std::size_t index = 0;
  std::size_t target_index = 0;
  std::uint64_t seed = 0;
  /// This worker's measured time: from when it saw the measurement start (barrier release or
  /// warm-up end) to the end of its run(); 0 if it measured nothing. A worker that timed its
  /// phase by its ops (WorkerContext::time_phase_by_ops()): its own span, from its first op's
  /// start (or the measurement's start, if later) to its last op's end, as the phase's
  /// `wall_ns` counts it, so never more than `wall_ns`; 0 if it did no op.
  std::uint64_t elapsed_ns = 0;
  /// CPU time of this worker's thread (or, for process workers, its process) within
  /// `elapsed_ns`, never more than `elapsed_ns`: the total is exact (CPU-time clocks, ns), split
  /// into user/system in the proportion the kernel's tick samples (1/CONFIG_HZ) give. A worker
  /// that timed its phase by its ops has as its CPU time min(its run()'s CPU time from the
  /// measurement's start, its span): an upper bound of the CPU it used inside its span, not a
  /// measurement of it.
  CpuTimes cpu;
  std::vector<OpResult> ops;            ///< indexed like PhaseResult::op_names
  std::vector<std::uint64_t> counters;  ///< indexed like PhaseResult::counter_names
  /// Per op kind, like `ops`, the latency parts the phase recorded (PhaseResult::latency_parts);
  /// empty if it recorded none.
  std::vector<OpLatencyPartsResult> latency_parts{};
  PacingStats pacing{};  ///< open-loop phases: how this worker kept to its schedule
  Status status = Status::kOk;
  std::string message;

  /// Sum over all op kinds of this worker.
  [[nodiscard]] std::uint64_t total_bytes() const noexcept;
  [[nodiscard]] std::uint64_t total_ops() const noexcept;
};

/// One figure a classic tool printed for a phase (ReportedFigures).
struct ReportedFigure {
  double value = 0;  ///< in the unit its ReportedFigures field names; 0 when `too_fast`
  /// bonnie++'s "+++++" (rate) or "+++" (CPU): the test took under 0.5 s and bonnie++ printed no
  /// figure because it would be inaccurate. Not a value: compare shows it as not available.
  bool too_fast = false;
};

/// The figures a classic tool's own output gave for a phase (bonnie++, tiotest, tiobench.pl,
/// dbench, fio, the seeds' "Completed ..." lines), as read_result_file reads them: only what
/// the source printed, units converted; a figure the source does not give is nullopt, never 0.
/// A phase with these has no ops of its own (its op kinds are empty): compare takes its metrics
/// from here (phase_metric_value).
struct ReportedFigures {
  std::optional<ReportedFigure> throughput_bytes_per_s;
  std::optional<ReportedFigure> iops;  ///< ops/s: seeks/s, files/s, fio's iops, blocks/s
  std::optional<ReportedFigure> latency_mean_ns;
  std::optional<ReportedFigure> latency_p50_ns;
  std::optional<ReportedFigure> latency_p99_ns;
  std::optional<ReportedFigure> latency_p99_9_ns;
  std::optional<ReportedFigure> latency_max_ns;
  std::optional<ReportedFigure> cpu_percent;  ///< user + system, % of one CPU
};

/// One phase's outcome: per worker and merged.
struct PhaseResult {
  std::string name;
  std::vector<std::string> op_names;
  std::vector<std::string> counter_names;
  WorkerMode mode = WorkerMode::kThreads;
  /// Measure start to the last worker's end. In a phase its workers time by their ops
  /// (WorkerContext::time_phase_by_ops(): mdtest's), the earliest first op's start to the latest
  /// last op's end over the workers (under mpirun over all ranks, on rank 0's clock), without
  /// the runner's start-up of the workers.
  std::uint64_t wall_ns = 0;
  /// Measure start to the first worker's end (in a phase timed by its ops: the earliest first
  /// op's start to the earliest last op's end).
  std::uint64_t stonewall_ns = 0;
  std::vector<WorkerResult> workers;
  std::vector<OpResult> ops;                          ///< merged over workers
  std::vector<std::uint64_t> counters;                ///< summed over workers
  LatencyPartsKind latency_parts_kind{};              ///< which latency parts were recorded
  std::vector<OpLatencyPartsResult> latency_parts{};  ///< merged over workers; empty if none
  PacingStats pacing{};                               ///< merged over workers (open-loop phases)
  /// CPU time iobench used in the measured window (never its set-up, warm-up or tear-down):
  /// `workers_cpu` plus the runner's own thread; at most `wall_ns` x online CPUs (to the ns;
  /// the wall and CPU clocks may differ in rate by NTP's slew, at most 0.05 %). In a phase timed
  /// by its ops (see `wall_ns`) a worker that timed its phase by its ops has as its CPU time
  /// min(its run()'s CPU time from the measurement's start, its span): an upper bound of the CPU it
  /// used inside its span, not a measurement of it; the runner's is its CPU from the measurement's
  /// start less the time outside the phase's span (a lower bound). The sum may then pass `wall_ns`
  /// x online CPUs when more workers than CPUs were busy.
  CpuTimes process_cpu;
  CpuTimes workers_cpu;  ///< sum of the workers' `cpu` (threads, or worker processes)
  /// Busy share of all CPUs in the measured window, 0..100, from /proc/stat (whose counters
  /// advance in USER_HZ ticks, 10 ms: a window much shorter than that reads 0 or 100).
  double system_busy_percent = 0;
  Status status = Status::kOk;
  std::string message;
  /// Set only for a phase read from a classic tool's output (read_result_file): the figures
  /// that tool printed. JSON key "reported" (absent when nullopt).
  std::optional<ReportedFigures> reported{};
  /// What the workers did interval by interval (warm-up included, marked), per worker and
  /// merged; over its measured points bytes and ops add up to the phase's exactly.
  TimeSeries time_series{};
  /// `--explain` (RunOptions::explain): the workers' system call latency by layer, measured in
  /// the kernel with eBPF, or why it is unavailable; nullopt when not asked for. JSON key
  /// "explain_bpf" (absent when nullopt).
  std::optional<ExplainBpfPhase> explain_bpf{};
  /// What the kernel, the page cache and the devices under the targets did during the phase
  /// (issue 29, explain.hpp): storage chains, deltas, derived figures, findings. JSON key
  /// "explain" (schema 3; absent in older results and in phases read from classic tools).
  std::optional<explain::PhaseExplanation> explanation{};
  /// PhaseSpec::steady_state's outcome: reached or not, after how many samples, the deciding
  /// (or last) window and its figures; in a serial phase, its last group's. nullopt: not asked
  /// for. JSON key "steady_state" (absent when nullopt).
  std::optional<SteadyStateResult> steady_state{};

  /// Bytes over all op kinds.
  [[nodiscard]] std::uint64_t total_bytes() const noexcept;
  /// Ops over all op kinds.
  [[nodiscard]] std::uint64_t total_ops() const noexcept;
  /// Throughput in bytes per second (bytes, not MiB: divide by 2^20 for MiB/s): total_bytes()
  /// over the measured wall time `wall_ns` (measure start to the last worker's end, or, in a
  /// phase timed by its ops, the workers' first op's start to their last op's end; not
  /// `stonewall_ns`, not a worker's `elapsed_ns`). 0 if `wall_ns` is 0. It is the JSON's
  /// phase `throughput_bytes_per_s` and, over 2^20, the MiB/s of the text report's "all" row.
  [[nodiscard]] double throughput_bytes_per_s() const noexcept;
  /// Throughput of op kind `op` (index into `ops`) in bytes per second: ops[op].bytes over
  /// `wall_ns`, as above (the MiB/s of that op's row in the text report, times 2^20). 0 if `op`
  /// is out of range or `wall_ns` is 0.
  [[nodiscard]] double throughput_bytes_per_s(std::size_t op) const noexcept;
  /// All op kinds merged into one (e.g. for a phase's overall latency).
  [[nodiscard]] OpResult all_ops() const;
  /// Index of op `name`, or op_names.size() if absent.
  [[nodiscard]] std::size_t op_index(std::string_view name) const noexcept;
};

/// One step (a workload with its params and targets) of a run.
struct StepResult {
  std::string name;  ///< step name (defaults to the workload name)
  std::string workload;
  std::map<std::string, std::string> params;  ///< every param, as validated (resolved) text
  /// Keys of `params` the step set itself (the others are the workload's defaults), sorted:
  /// what a repeat of the step must give again (`iobench run --again`).
  std::vector<std::string> given_params;
  std::vector<std::string> targets;
  std::uint64_t seed = 0;  ///< the step's seed (0: the step did not start)
  /// The step's options as the runner applied them (Step): engine name, time limit, warm-up and
  /// op limit (0: none), drop caches. Empty engine: not recorded (results of schema 1).
  std::string engine;
  std::uint64_t time_limit_ns = 0;
  std::uint64_t warmup_ns = 0;
  std::uint64_t ops_limit = 0;
  bool drop_caches = false;
  std::vector<PhaseResult> phases;  ///< measured phases only
  std::vector<std::pair<std::string, AttributeValue>> attributes;
  std::vector<std::string> warnings;
  Status status = Status::kOk;
  std::string message;

  /// The attribute `key`, or nullptr.
  [[nodiscard]] const AttributeValue* attribute(std::string_view key) const noexcept;
};

/// The whole run.
struct RunResult {
  Environment environment;
  std::vector<StepResult> steps;
  Status status = Status::kOk;
};

}  // namespace iobench
