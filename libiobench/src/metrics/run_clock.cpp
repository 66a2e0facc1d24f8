// The run clock (clock.hpp): the choice between the TSC and CLOCK_MONOTONIC, and the TSC's
// calibration. The anchor pairs are read when the library loads; the rate is measured on the
// first reading of the clock, at least kCalibrationNs later, so that a process that never times
// anything (list, validate, report) pays nothing, and one that does pays at most that once. The
// rate is measured against CLOCK_MONOTONIC_RAW, which NTP never slews (chrony may slew
// CLOCK_MONOTONIC by up to 8 % for a while, which 5 ms of calibration would keep for good); the
// readings start from CLOCK_MONOTONIC's anchor, so that they read as CLOCK_MONOTONIC does.
#include <fmt/format.h>
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <mutex>
#include <optional>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace iobench {
namespace detail {

TscScale tsc_scale;

}  // namespace detail

namespace {

// Long enough that the two pairs' reading errors (tens of ns each) leave the rate within a few
// ppm; short enough not to be noticed when it has to be waited for.
constexpr std::uint64_t kCalibrationNs = 5'000'000;

std::uint64_t clock_ns(clockid_t id) noexcept {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t clock_monotonic_ns() noexcept { return clock_ns(CLOCK_MONOTONIC); }

// What IOBENCH_CLOCK asks for: empty (the default), "tsc" or "monotonic"; nullopt for any
// other value.
std::optional<std::string> clock_asked() {
  const char* asked = std::getenv("IOBENCH_CLOCK");
  const std::string wanted = asked == nullptr ? "" : asked;
  if (wanted.empty() || wanted == "tsc" || wanted == "monotonic") return wanted;
  return std::nullopt;
}

struct Choice {
  bool use_tsc = false;
  double tsc_hz = 0;
  std::uint64_t calibration_ns = 0;
  std::string why_not;  // the reason CLOCK_MONOTONIC is used
};

Choice choice;
std::once_flag chosen;
// Set (release) once `choice` is final: every read after the first skips std::call_once, whose
// libstdc++ code sets two of its thread-locals on each call, through __tls_get_addr from this
// shared library (perf: 2 % of a 4 KiB page-cache read's time with CLOCK_MONOTONIC; without
// it iobench's own time per op in bench/engine_proof.py fell from 144 to 112 ns).
std::atomic<bool> choice_made{false};

#if defined(__x86_64__)

// The TSC and a kernel clock at one moment: the TSC read just before and just after
// clock_gettime, taking the tightest of a few tries (an interrupt can land in any one) and the
// midpoint of its two reads.
struct ClockPair {
  std::uint64_t ticks = 0;
  std::uint64_t ns = 0;
};

ClockPair read_pair(clockid_t id) noexcept {
  ClockPair best;
  std::uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < 16; ++i) {
    __builtin_ia32_lfence();  // each RDTSC in program order, as monotonic_ns() reads it
    const std::uint64_t before = __builtin_ia32_rdtsc();
    const std::uint64_t ns = clock_ns(id);
    __builtin_ia32_lfence();
    const std::uint64_t after = __builtin_ia32_rdtsc();
    if (after >= before && after - before < best_width) {
      best_width = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

ClockPair anchor;      // CLOCK_MONOTONIC: where readings start from
ClockPair raw_anchor;  // CLOCK_MONOTONIC_RAW: where the rate is measured from

[[gnu::constructor]] void read_anchors() noexcept {
  anchor = read_pair(CLOCK_MONOTONIC);
  raw_anchor = read_pair(CLOCK_MONOTONIC_RAW);
}

// CPUID 8000_0007h EDX bit 8: the TSC ticks at a constant rate in every P-, C- and T-state.
bool tsc_is_invariant() noexcept {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000U, &a, &b, &c, &d) == 0 || a < 0x80000007U) return false;
  if (__get_cpuid(0x80000007U, &a, &b, &c, &d) == 0) return false;
  return (d & (1U << 8)) != 0;
}

std::string current_clocksource() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  in >> name;
  return name;
}

// The kernel lists the TSC among its clocksources only while it trusts it: booted with
// tsc=unstable (as VMs that may be restored on another host are), or once its watchdog has seen
// the TSC drift, the TSC is no longer valid for high-resolution timekeeping and drops out.
bool kernel_lists_tsc() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  std::string name;
  while (in >> name) {
    if (name == "tsc") return true;
  }
  return false;
}

// Clocksources the kernel computes from the TSC itself: the kernel has checked that the TSC is
// synchronized across CPUs (or the hypervisor guarantees it), and leaves them when it is not.
bool kernel_keeps_time_from_tsc(const std::string& clocksource) noexcept {
  return clocksource == "tsc" || clocksource == "kvm-clock" ||
         clocksource == "hyperv_clocksource_tsc_page";
}

void calibrate(Choice& c) {
  const std::uint64_t elapsed = clock_ns(CLOCK_MONOTONIC_RAW) - raw_anchor.ns;
  if (elapsed < kCalibrationNs) {
    const std::uint64_t rest = kCalibrationNs - elapsed;
    timespec ts{.tv_sec = static_cast<time_t>(rest / 1'000'000'000ULL),
                .tv_nsec = static_cast<long>(rest % 1'000'000'000ULL)};
    while (::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
    }
  }
  const ClockPair end = read_pair(CLOCK_MONOTONIC_RAW);
  if (end.ticks <= raw_anchor.ticks || end.ns <= raw_anchor.ns) {
    c.why_not = "the TSC did not advance during its calibration";
    return;
  }
  const std::uint64_t ticks = end.ticks - raw_anchor.ticks;
  const std::uint64_t ns = end.ns - raw_anchor.ns;
  c.tsc_hz = static_cast<double>(ticks) * 1e9 / static_cast<double>(ns);
  if (c.tsc_hz < 1e8 || c.tsc_hz > 1e11) {
    c.why_not = fmt::format("the TSC calibrated to an implausible {:.0f} Hz", c.tsc_hz);
    return;
  }
  __extension__ typedef unsigned __int128 Uint128;
  const auto scale = static_cast<std::uint64_t>((static_cast<Uint128>(ns) << 32) / ticks);
  detail::tsc_scale.anchor_ticks = anchor.ticks;
  detail::tsc_scale.anchor_ns = anchor.ns;
  c.use_tsc = true;
  c.calibration_ns = ns;
  detail::tsc_scale.ns_per_tick_q32.store(scale, std::memory_order_release);
}

void choose(Choice& c) {
  // A value check_run_clock_environment() refuses is the default here (this is noexcept).
  const std::string wanted = clock_asked().value_or("");
  if (wanted == "monotonic") {
    c.why_not = "IOBENCH_CLOCK=monotonic";
    return;
  }
  if (!tsc_is_invariant()) {
    c.why_not = "the CPU's TSC is not invariant";
    return;
  }
  if (wanted != "tsc") {
    const std::string clocksource = current_clocksource();
    if (!kernel_keeps_time_from_tsc(clocksource)) {
      c.why_not =
          clocksource.empty()
              ? "the kernel's clocksource cannot be read"
              : fmt::format("the kernel keeps time with clocksource {}, not the TSC", clocksource);
      return;
    }
    if (!kernel_lists_tsc()) {
      c.why_not = "the kernel has marked the TSC unstable: it is not an available clocksource";
      return;
    }
  }
  calibrate(c);
}

#else

void choose(Choice& c) { c.why_not = "no TSC on this architecture"; }

#endif

}  // namespace

std::uint64_t detail::monotonic_ns_slow() noexcept {
  if (!choice_made.load(std::memory_order_acquire)) [[unlikely]] {
    std::call_once(chosen, [] {
      try {
        choose(choice);
      } catch (...) {  // std::bad_alloc of a reason's text: the clock still works
        choice.use_tsc = false;
      }
      choice_made.store(true, std::memory_order_release);
    });
  }
  if (choice.use_tsc) return monotonic_ns();
  return clock_monotonic_ns();
}

void check_run_clock_environment() {
  if (clock_asked()) return;
  throw ConfigError(fmt::format(
      "IOBENCH_CLOCK '{}': the run clock must be 'tsc' (the CPU's time-stamp counter wherever it "
      "is invariant) or 'monotonic' (clock_gettime(CLOCK_MONOTONIC)); unset it for the default",
      printable(std::getenv("IOBENCH_CLOCK"))));
}

std::string run_clock_description() {
  (void)detail::monotonic_ns_slow();
  if (choice.use_tsc) {
    return fmt::format("tsc ({:.3f} MHz, calibrated against CLOCK_MONOTONIC_RAW over {:.1f} ms)",
                       choice.tsc_hz / 1e6, static_cast<double>(choice.calibration_ns) / 1e6);
  }
  return choice.why_not.empty() ? std::string("CLOCK_MONOTONIC")
                                : fmt::format("CLOCK_MONOTONIC ({})", choice.why_not);
}

}  // namespace iobench
