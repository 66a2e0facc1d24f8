#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iobench {

/// What `--explain` splits (RunOptions::explain_mode).
enum class ExplainMode {
  /// iobench's own ops (`--explain`, `--explain=ops`): an op's total is iobench's op latency, its
  /// span comes from iobench's clock (published to the BPF program through a mapped array), and
  /// the BPF program runs only when a worker's block request moves or a worker is switched out
  /// or in: a page cache hit costs it nothing. One op at a time per worker (synchronous engines,
  /// queue depth 1, closed loop); other phases say why they are not split.
  kOps,
  /// The workers' system calls (`--explain=syscalls`), entry to exit on the raw_syscalls
  /// tracepoints, by call: also io_uring_enter and io_submit at any queue depth, but every system
  /// call of every process pays for the tracepoints (4 KiB page cache reads: -20 % ops/s here).
  kSyscalls,
};

/// The time of a set of system calls (their sums, in ns) split into layers, as `--explain`'s
/// BPF program measures it in the kernel: at every instant of a call exactly one layer is
/// charged, the first that applies of device (a block request the call caused is issued and not
/// completed), block queue (one is started, where /proc/diskstats starts its time, and not
/// issued), off CPU (the worker thread is switched out: sleeping, waiting for a lock or for a
/// CPU) and file system + kernel (the residual: on CPU inside the call). So fs_kernel_ns + queue_ns
/// + device_ns + off_cpu_ns == total_ns exactly.
struct ExplainSplit {
  std::uint64_t calls = 0;     ///< how many calls the sums are over
  std::uint64_t total_ns = 0;  ///< entry to exit (raw_syscalls sys_enter to sys_exit)
  std::uint64_t fs_kernel_ns = 0;
  std::uint64_t queue_ns = 0;
  std::uint64_t device_ns = 0;
  std::uint64_t off_cpu_ns = 0;

  /// `ns` (one of the sums) per call: a mean in ns; 0 without calls.
  [[nodiscard]] double mean(std::uint64_t ns) const noexcept {
    return calls == 0 ? 0.0 : static_cast<double>(ns) / static_cast<double>(calls);
  }
  /// `ns` as a percentage of total_ns; 0 when total_ns is 0.
  [[nodiscard]] double percent(std::uint64_t ns) const noexcept {
    return total_ns == 0 ? 0.0 : 100.0 * static_cast<double>(ns) / static_cast<double>(total_ns);
  }
};

/// The block requests a kind of call caused, each timed on its own from its start (where
/// /proc/diskstats starts its time) to its issue (queue_ns) and on to its completion (device_ns),
/// also after the call returned: for asynchronous calls (io_uring_enter, io_submit), whose split
/// ends when they return, these are what the kernel did per request. Sums in ns.
struct ExplainRequests {
  std::uint64_t completed = 0;  ///< requests whose start, issue and completion were seen
  std::uint64_t queue_ns = 0;
  std::uint64_t device_ns = 0;

  /// Mean per request of `ns` (one of the sums), ns; 0 without requests.
  [[nodiscard]] double mean(std::uint64_t ns) const noexcept {
    return completed == 0 ? 0.0 : static_cast<double>(ns) / static_cast<double>(completed);
  }
};

/// One system call's (ops mode: one kind of op's) figures in one phase, over the workers' threads
/// while they ran.
struct ExplainCall {
  std::string call;  ///< system call name, e.g. "pread64", "fsync"; ops mode: the op's, "read"
  std::uint64_t cache_hits = 0;      ///< calls that caused no block request (page cache hits)
  std::uint64_t block_requests = 0;  ///< block requests the calls submitted
  /// Calls whose measured layers exceeded their total and were clamped (fs_kernel_ns 0); kept so
  /// it is never hidden, expected 0.
  std::uint64_t clamped = 0;
  ExplainRequests requests;  ///< the block requests' own times
  ExplainSplit all;          ///< every call: its `mean()`s are the mean latency and its split
  /// The calls whose total fell in the histogram bucket (LatencyHistogram's buckets, <= 0.39 %
  /// wide) of the 50th / 99th percentile (nearest rank): their mean total is that percentile
  /// within the bucket's width, and their split adds up to it exactly.
  ExplainSplit p50;
  ExplainSplit p99;
};

/// `--explain`'s latency by layer for one phase (PhaseResult::explain_bpf).
struct ExplainBpfPhase {
  /// Empty: measured. Otherwise why not, e.g. "this build has no eBPF support (libbpf not
  /// found)", "no kernel BTF at /sys/kernel/btf/vmlinux", "loading the BPF program: Operation
  /// not permitted (needs root, or CAP_BPF and CAP_PERFMON)"; printed as
  /// "explain: unavailable: <reason>".
  std::string unavailable;
  /// The calls the workers made, most total time first (calls with no sample left out).
  std::vector<ExplainCall> calls;
  /// The workers' time off CPU outside the tracked calls (ns) and how many times they were
  /// switched out there: preempted in user space, or on the way back from a call (the kernel
  /// reschedules after a call's exit, so that wait is in iobench's op latency and not in any
  /// call's split). A loaded machine shows it here, not in the split.
  std::uint64_t off_cpu_outside_calls_ns = 0;
  std::uint64_t switches_outside_calls = 0;
  /// What `calls` are: iobench's ops (their totals are its op latencies, so the means agree by
  /// construction; off CPU between back-to-back ops is inside them) or system calls. JSON
  /// "split_of": "ops" | "system_calls" (absent in results written before: system calls).
  ExplainMode split_of = ExplainMode::kSyscalls;
};

/// Whether this build has `--explain`'s BPF program: "" if it has, else the reason CMake gave
/// (IOBENCH_BPF, cmake/IobenchBpf.cmake).
[[nodiscard]] std::string explain_bpf_build_gap();

}  // namespace iobench
