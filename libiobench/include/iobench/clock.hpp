#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace iobench {

namespace detail {

/// How monotonic_ns() turns the CPU's time-stamp counter into nanoseconds. Written once per
/// process (src/metrics/run_clock.cpp) before `ns_per_tick_q32` is published; read-only after.
struct TscScale {
  std::uint64_t anchor_ticks = 0;  ///< TSC at the anchor
  std::uint64_t anchor_ns = 0;     ///< CLOCK_MONOTONIC at the anchor, ns
  /// ns per tick, times 2^32; 0 until the clock is chosen, and for good where the TSC is not used.
  std::atomic<std::uint64_t> ns_per_tick_q32{0};
};
extern TscScale tsc_scale;

/// monotonic_ns() until the TSC is in use: chooses the clock on the first call (calibrating
/// the TSC against CLOCK_MONOTONIC_RAW), then reads CLOCK_MONOTONIC where the TSC is not used.
[[nodiscard]] std::uint64_t monotonic_ns_slow() noexcept;

}  // namespace detail

/// The run clock, in nanoseconds: the only clock iobench measures with (op latencies, phase
/// times, time limits, the time series); wall-clock time appears only as the run's start
/// timestamp. It reads as CLOCK_MONOTONIC does, from the same origin:
/// - where the CPU's time-stamp counter is invariant, the kernel itself keeps time from it
///   (clocksource tsc, kvm-clock or hyperv_clocksource_tsc_page) and still lists "tsc" among
///   its available clocksources (not booted with tsc=unstable), it is the TSC scaled to ns
///   (as fio's default clocksource=cpu): its rate measured once per process against
///   CLOCK_MONOTONIC_RAW, which NTP never slews, its readings counted from CLOCK_MONOTONIC's
///   origin. A read is an LFENCE and an RDTSC, about 20 ns back to back on an AMD EPYC VM where
///   clock_gettime() costs 35 ns (more just after a system call);
/// - elsewhere, or with IOBENCH_CLOCK=monotonic in the environment, clock_gettime(CLOCK_MONOTONIC).
///   IOBENCH_CLOCK=tsc uses the TSC wherever it is invariant, whatever the kernel's clocksource.
/// Differences of readings are exact to the calibration (a few ppm); the TSC clock does not
/// follow NTP's slewing of CLOCK_MONOTONIC, so pass durations, never its readings, to the
/// kernel (sleeps, timeouts). run_clock_description() says which clock a process uses.
[[nodiscard]] inline std::uint64_t monotonic_ns() noexcept {
#if defined(__x86_64__)
  const std::uint64_t scale = detail::tsc_scale.ns_per_tick_q32.load(std::memory_order_acquire);
  if (scale != 0) [[likely]] {
    // LFENCE first, as the kernel's own clock_gettime() does: RDTSC alone may execute before
    // earlier loads complete (a completion seen in a ring, another thread's reading), so a
    // thread could time a moment before one it has already observed.
    __builtin_ia32_lfence();
    // A CPU whose counter trails the anchor's by a few ticks reads the anchor, not 2^64 ns.
    const std::uint64_t now = __builtin_ia32_rdtsc();
    const std::uint64_t ticks =
        now > detail::tsc_scale.anchor_ticks ? now - detail::tsc_scale.anchor_ticks : 0;
    __extension__ typedef unsigned __int128 Uint128;
    return detail::tsc_scale.anchor_ns +
           static_cast<std::uint64_t>((static_cast<Uint128>(ticks) * scale) >> 32);
  }
#endif
  return detail::monotonic_ns_slow();
}

/// Checks IOBENCH_CLOCK, which monotonic_ns() reads on its first call: it may be unset, empty,
/// "tsc" or "monotonic". Anything else throws ConfigError naming the variable, its value and
/// the values it takes (monotonic_ns(), which cannot throw, takes such a value as unset).
void check_run_clock_environment();

/// The run clock of this process, for results: "tsc (2095.997 MHz, calibrated against
/// CLOCK_MONOTONIC_RAW over 5.0 ms)" or "CLOCK_MONOTONIC" with the reason the TSC is not used.
/// Chooses the clock if nothing has read it yet.
[[nodiscard]] std::string run_clock_description();

}  // namespace iobench
