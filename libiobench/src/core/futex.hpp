#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace iobench::detail {

// Shared (non-private) futex operations: the words live in MAP_SHARED memory and are waited on
// by forked worker processes too, which std::atomic::wait (private futexes) would not wake.

/// Sleeps while `word` == `expected`, at most `timeout` (spurious wake-ups possible).
inline void futex_wait(const std::atomic<std::uint32_t>& word, std::uint32_t expected,
                       std::chrono::nanoseconds timeout) noexcept {
  timespec ts{static_cast<time_t>(timeout.count() / 1'000'000'000),
              static_cast<long>(timeout.count() % 1'000'000'000)};
  ::syscall(SYS_futex, &word, FUTEX_WAIT, expected, &ts, nullptr, 0);
}

/// Wakes every waiter on `word`.
inline void futex_wake_all(const std::atomic<std::uint32_t>& word) noexcept {
  ::syscall(SYS_futex, &word, FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

}  // namespace iobench::detail
