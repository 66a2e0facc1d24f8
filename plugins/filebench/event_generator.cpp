#include "plugins/filebench/event_generator.hpp"

#include <algorithm>
#include <chrono>
#include <iobench/clock.hpp>
#include <thread>

namespace iobench::plugins::filebench {

namespace {
constexpr std::uint64_t kNsPerS = 1'000'000'000;
}  // namespace

void EventGenerator::start(std::uint64_t now_ns) noexcept {
  const std::lock_guard lock(mutex_);
  if (started_) return;
  started_ = true;
  start_ns_ = now_ns;
}

void EventGenerator::post(std::uint64_t now_ns, std::uint64_t wanted) noexcept {
  const std::uint64_t elapsed = now_ns > start_ns_ ? now_ns - start_ns_ : 0;
  // rate <= 10^6 and the remainder < 10^9: each product stays below 2^64.
  const std::uint64_t due = elapsed / kNsPerS * rate_ + elapsed % kNsPerS * rate_ / kNsPerS;
  if (due <= posted_) return;
  const std::uint64_t cap = std::max(5 * rate_, wanted);
  queue_ = std::min(cap, queue_ + (due - posted_));
  posted_ = due;
}

bool EventGenerator::try_take(std::uint64_t n, std::uint64_t now_ns) noexcept {
  const std::lock_guard lock(mutex_);
  if (!started_) return false;
  post(now_ns, n);
  if (queue_ < n) return false;
  queue_ -= n;
  return true;
}

bool EventGenerator::take(std::uint64_t n, const std::function<bool()>& keep_waiting) {
  for (;;) {
    std::uint64_t missing = 0;
    {
      const std::lock_guard lock(mutex_);
      if (started_) {
        post(monotonic_ns(), n);
        if (queue_ >= n) {
          queue_ -= n;
          return true;
        }
        missing = n - queue_;
      }
    }
    if (!keep_waiting()) return false;
    // The missing events are due in missing / rate seconds; wake at least every 10 ms to see
    // the phase's end.
    std::uint64_t wait_ns = 10'000'000;
    if (missing == 0) wait_ns = 1'000'000;  // not started yet
    if (missing > 0 && missing < rate_)     // then missing x 10^9 < 10^15: no overflow
      wait_ns = std::min<std::uint64_t>(wait_ns, missing * kNsPerS / rate_ + 1);
    std::this_thread::sleep_for(std::chrono::nanoseconds(wait_ns));
  }
}

std::uint64_t EventGenerator::queued() const {
  const std::lock_guard lock(mutex_);
  return queue_;
}

}  // namespace iobench::plugins::filebench
