#pragma once

#include <cstdint>
#include <iobench/metrics.hpp>

namespace iobench::detail {

/// One reading of the CPU time of the calling thread or process, for measuring a window.
///
/// getrusage(2) alone cannot measure a short window: the kernel brings a running task's CPU
/// time up to date only at its scheduler tick (1/CONFIG_HZ, 4 ms at HZ=250) or when it sleeps,
/// so a reading can lag by up to a tick and a 300 us window may show 1.1 ms. The CPU-time
/// clocks (CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID) update the caller's runtime first
/// and are exact to the nanosecond. A reading therefore keeps both: the exact runtime, and the
/// rusage user/system times, whose proportion splits the exact runtime (as the kernel's own
/// cputime_adjust() splits it). Reading order makes the CPU window lie inside the wall window:
/// take the clock first and the CPU reading second at a start, the other way round at an end.
struct CpuReading {
  std::uint64_t runtime_ns = 0;  ///< exact CPU time consumed so far (user + system)
  CpuTimes split;                ///< getrusage's user/system times (tick-sampled proportion)
};

/// The calling thread: CLOCK_THREAD_CPUTIME_ID and getrusage(RUSAGE_THREAD).
[[nodiscard]] CpuReading read_thread_cpu() noexcept;
/// The calling process: CLOCK_PROCESS_CPUTIME_ID and getrusage(RUSAGE_SELF). Exact for the
/// calling thread; other running threads of the process may lag by up to a tick.
[[nodiscard]] CpuReading read_process_cpu() noexcept;

/// CPU time between two readings of the same thread or process: user + system equals the exact
/// runtime difference; it is split in the proportion of the rusage differences, or, when no
/// tick fell inside the window, in the proportion of `end`'s totals (the task's life so far);
/// with no rusage at all it counts as system time. Zero if `end` precedes `begin`.
[[nodiscard]] CpuTimes cpu_between(const CpuReading& begin, const CpuReading& end) noexcept;

}  // namespace iobench::detail
