#pragma once

#include <time.h>

#include <cstdint>

namespace iobench {

/// Nanoseconds from CLOCK_MONOTONIC (a vDSO call, about 20 ns). The only clock used for measuring;
/// wall-clock time appears only as the run's start timestamp.
[[nodiscard]] inline std::uint64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace iobench
