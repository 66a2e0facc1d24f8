#pragma once

#include <cstdint>
#include <iobench/compact_latency_histogram.hpp>
#include <iobench/latency_histogram.hpp>
#include <span>
#include <string_view>

namespace iobench {

/// Index of an operation kind within a phase; a phase declares its op names (PhaseSpec::op_names)
/// and records by index, so recording is an array access.
using OpId = std::uint16_t;

/// Statistics of one operation kind (e.g. "read") as one worker records them while a phase runs.
/// Trivially copyable and fixed-size, so worker processes can fill it in shared memory; results
/// keep these figures as OpResult.
struct OpStats {
  static constexpr std::uint64_t kSlowThreshold1Ns = 2'000'000'000ULL;   ///< tiotest's "> 2 s"
  static constexpr std::uint64_t kSlowThreshold2Ns = 10'000'000'000ULL;  ///< tiotest's "> 10 s"

  std::uint64_t ops = 0;           ///< completed operations
  std::uint64_t bytes = 0;         ///< bytes moved by them
  std::uint64_t errors = 0;        ///< failed operations (not in `latency`)
  std::uint64_t ops_over_2s = 0;   ///< exact count with latency > 2 s
  std::uint64_t ops_over_10s = 0;  ///< exact count with latency > 10 s
  /// Per-op latency, ns: every op's, or with latency sampling only the sampled ops' (its
  /// count() is then below `ops`; ops_over_2s/10s count sampled ops too).
  LatencyHistogram latency;

  OpStats() noexcept = default;
  /// Empty stats in memory that holds only zero bytes (LatencyHistogram::InZeroedMemory): the
  /// histogram's buckets are not written.
  explicit OpStats(LatencyHistogram::InZeroedMemory zeroed) noexcept : latency(zeroed) {}

  /// Records one completed op. Never allocates.
  void record(std::uint64_t op_bytes, std::uint64_t latency_ns) noexcept {
    ++ops;
    bytes += op_bytes;
    ops_over_2s += latency_ns > kSlowThreshold1Ns;
    ops_over_10s += latency_ns > kSlowThreshold2Ns;
    latency.record(latency_ns);
  }
  /// Counts one completed op whose latency was not sampled (IoDriverOptions::latency_sample):
  /// `ops` and `bytes` stay exact, `latency` and the slow-op counts hold the sampled ops only.
  void count_unsampled(std::uint64_t op_bytes) noexcept {
    ++ops;
    bytes += op_bytes;
  }
  /// Adds `other` into this.
  void merge(const OpStats& other) noexcept;
  /// Back to empty (as OpStats{}), writing only what samples reached (LatencyHistogram::reset).
  void reset() noexcept;
};

/// The parts of an op's latency that some phases record besides its total (OpStats::latency),
/// as fio defines them: for asynchronous engines the submission latency (slat: from the op's
/// issue to the return of the submit call that carried it) and the completion latency (clat:
/// from that return to the reap that saw it complete); for open-loop (rate-limited) phases the
/// service time (from the op's actual issue to its completion), OpStats::latency then being the
/// response time from its intended issue time, so that stalls are not hidden (coordinated
/// omission). Fixed-size and trivially copyable, like OpStats.
struct OpLatencyParts {
  LatencyHistogram submission{};  ///< slat, ns
  LatencyHistogram completion{};  ///< clat, ns
  LatencyHistogram service{};     ///< issue to completion in open-loop phases, ns

  OpLatencyParts() noexcept = default;
  /// Empty parts in memory that holds only zero bytes (LatencyHistogram::InZeroedMemory).
  explicit OpLatencyParts(LatencyHistogram::InZeroedMemory zeroed) noexcept
      : submission(zeroed), completion(zeroed), service(zeroed) {}
  /// Adds `other` into this.
  void merge(const OpLatencyParts& other) noexcept;
  /// Back to empty (as OpLatencyParts{}), writing only what samples reached.
  void reset() noexcept;
};

/// One operation kind's figures in a result (WorkerResult::ops, PhaseResult::ops): OpStats's
/// counts, with the latency histogram kept compactly (CompactLatencyHistogram). Merging or
/// recording allocates (std::bad_alloc); for building results, not for an I/O loop.
struct OpResult {
  std::uint64_t ops = 0;           ///< completed operations
  std::uint64_t bytes = 0;         ///< bytes moved by them
  std::uint64_t errors = 0;        ///< failed operations (not in `latency`)
  std::uint64_t ops_over_2s = 0;   ///< exact count with latency > 2 s (tiotest's "> 2 s")
  std::uint64_t ops_over_10s = 0;  ///< exact count with latency > 10 s (tiotest's "> 10 s")
  /// Per-op latency, ns; with latency sampling (OpStats::count_unsampled) only the sampled
  /// ops', so latency.count() < ops: the JSON files keep that count as latency_ns.samples.
  CompactLatencyHistogram latency;

  /// Records one completed op, as OpStats::record counts it.
  void record(std::uint64_t op_bytes, std::uint64_t latency_ns);
  /// Adds `other` into this.
  void merge(const OpResult& other);
  /// Adds what a worker recorded into this, reading only the histogram buckets it reached.
  void merge(const OpStats& recorded);
  friend bool operator==(const OpResult&, const OpResult&) noexcept = default;
};

/// OpLatencyParts as results keep them (WorkerResult and PhaseResult::latency_parts), each
/// histogram compact.
struct OpLatencyPartsResult {
  CompactLatencyHistogram submission;  ///< slat, ns
  CompactLatencyHistogram completion;  ///< clat, ns
  CompactLatencyHistogram service;     ///< issue to completion in open-loop phases, ns

  /// Adds `other` into this.
  void merge(const OpLatencyPartsResult& other);
  /// Adds what a worker recorded into this, reading only the histogram buckets it reached.
  void merge(const OpLatencyParts& recorded);
  friend bool operator==(const OpLatencyPartsResult&,
                         const OpLatencyPartsResult&) noexcept = default;
};

/// Which OpLatencyParts a phase records (PhaseSpec::latency_parts).
struct LatencyPartsKind {
  bool submission_completion = false;  ///< slat and clat (asynchronous engines)
  bool service = false;                ///< service time (open-loop phases)
  [[nodiscard]] bool any() const noexcept { return submission_completion || service; }
};

/// How an open-loop (rate-limited) worker or phase kept to its schedule.
struct PacingStats {
  /// An op issued later than this after its intended time counts as late.
  static constexpr std::uint64_t kLateThresholdNs = 1'000'000;
  bool paced = false;             ///< the phase was rate-limited (else all zero)
  std::uint64_t late_ops = 0;     ///< ops issued more than kLateThresholdNs behind schedule
  std::uint64_t max_lag_ns = 0;   ///< the largest delay of an issue behind its intended time
  std::uint64_t backlog_ops = 0;  ///< ops due before the worker stopped that were never issued
  /// Adds `other` (sums, and the larger lag).
  void merge(const PacingStats& other) noexcept;
};

/// CPU time consumed, in ns, split as getrusage(2) reports it.
struct CpuTimes {
  std::uint64_t user_ns = 0;
  std::uint64_t system_ns = 0;
};

/// Snapshot of system-wide CPU time from /proc/stat (all CPUs, in USER_HZ ticks).
struct SystemCpuSample {
  std::uint64_t busy_ticks = 0;   ///< user+nice+system+irq+softirq+steal
  std::uint64_t total_ticks = 0;  ///< busy + idle + iowait
};

/// Parses the aggregate "cpu" line of /proc/stat text (the first line: "cpu  user nice system idle
/// iowait irq softirq steal ..."); columns a kernel does not print count as 0, and guest time is
/// already inside user/nice. All zero if there is no such line or it is malformed. Pure.
[[nodiscard]] SystemCpuSample parse_proc_stat_cpu(std::string_view text) noexcept;
/// Reads /proc/stat; all zero if it cannot be read.
[[nodiscard]] SystemCpuSample sample_system_cpu() noexcept;
/// Percent of all CPUs busy between two samples, 0..100; 0 if no ticks elapsed.
[[nodiscard]] double system_busy_percent(const SystemCpuSample& begin,
                                         const SystemCpuSample& end) noexcept;
/// CPU time of the calling thread (getrusage RUSAGE_THREAD).
[[nodiscard]] CpuTimes thread_cpu_times() noexcept;
/// CPU time of the whole process (getrusage RUSAGE_SELF).
[[nodiscard]] CpuTimes process_cpu_times() noexcept;

/// Throughput in bytes per second; 0 if `elapsed_ns` is 0.
[[nodiscard]] double throughput_bytes_per_s(std::uint64_t bytes, std::uint64_t elapsed_ns) noexcept;
/// Operations per second; 0 if `elapsed_ns` is 0.
[[nodiscard]] double ops_per_s(std::uint64_t ops, std::uint64_t elapsed_ns) noexcept;
/// CPU time as percent of one CPU over `elapsed_ns` (may exceed 100 for several threads).
[[nodiscard]] double cpu_percent(std::uint64_t cpu_ns, std::uint64_t elapsed_ns) noexcept;

}  // namespace iobench
