#pragma once

#include <atomic>
#include <cstdint>
#include <iobench/metrics.hpp>
#include <iobench/workload.hpp>

namespace iobench::detail {

/// What one worker publishes, in shared memory (threads and forked processes alike). The worker
/// is the only writer of everything but nothing here is read by it from others; the runner reads
/// the live counters while it runs and the rest after `finished` was bumped.
struct WorkerSlot {
  std::atomic<std::uint64_t> live_bytes{0};
  std::atomic<std::uint64_t> live_ops{0};
  std::uint64_t start_ns = 0;  ///< measure start as this worker saw it
  std::uint64_t end_ns = 0;
  CpuTimes cpu_start;                ///< thread CPU at start_ns
  CpuTimes cpu;                      ///< thread CPU consumed between start_ns and end_ns
  std::uint64_t ops_limit_base = 0;  ///< live_ops at measure start (op limits count from there)
  std::uint64_t counters[kMaxCounters] = {};
  std::int32_t failed = 0;  ///< 1: the worker's setup or run threw
  char message[1024] = {};  ///< what() of the failure, NUL-terminated
};

/// State shared by all workers of a phase.
struct PhaseShared {
  std::atomic<std::uint32_t> state{kWaiting};  ///< PhaseState
  std::atomic<std::uint32_t> ready{0};         ///< workers past make_worker()
  std::atomic<std::uint32_t> finished{0};      ///< workers whose run() returned or threw
};

}  // namespace iobench::detail
