#pragma once

/// filebench's event generator (`eventgen rate=N`, eventgen.c): events are posted at N per
/// second and the rate-limit flowops (eventlimit, iopslimit, opslimit, bwlimit) of every thread
/// take them from one shared queue, blocking while too few are there. No mechanism shares them
/// equally among threads, as in filebench.

#include <cstdint>
#include <functional>
#include <mutex>

#include "plugins/filebench/shared_memory.hpp"

namespace iobench::plugins::filebench {

/// Largest `eventgen rate=N`: events per second.
inline constexpr std::uint64_t kMaxEventRate = 1'000'000;

/// The shared event queue (its state in the object itself: built in a SharedArray, the worker
/// processes share it, as filebench's eventgen in its shared memory). Events accrue from start() at
/// `rate` per second (floor of rate x elapsed, computed without overflow over 30 days); the queue
/// holds at most 5 s of events (the depth filebench keeps), or the count a waiting taker needs if
/// that is more. So over any run the events taken are at most rate x (seconds since start()).
class EventGenerator {
 public:
  /// `rate_per_s`: 1 to kMaxEventRate events per second.
  explicit EventGenerator(std::uint64_t rate_per_s) noexcept : rate_(rate_per_s) {}

  /// Starts the clock at `now_ns` (monotonic ns) with an empty queue; later calls do nothing,
  /// so every thread may call it when it starts.
  void start(std::uint64_t now_ns) noexcept;
  /// Takes `n` events if the queue holds them at `now_ns` (after posting those due since the
  /// last call); false leaves the queue as it is. Before start(): false.
  [[nodiscard]] bool try_take(std::uint64_t n, std::uint64_t now_ns) noexcept;
  /// Blocks until `n` events are taken (true), sleeping until they are due (at most 10 ms at a
  /// time), or until `keep_waiting()` turns false (false, nothing taken).
  [[nodiscard]] bool take(std::uint64_t n, const std::function<bool()>& keep_waiting);
  [[nodiscard]] std::uint64_t rate() const noexcept { return rate_; }
  /// Events in the queue at the last call (tests).
  [[nodiscard]] std::uint64_t queued() const;

 private:
  /// Posts the events due at `now_ns`, the queue capped at max(5 x rate, `wanted`). Under mutex_.
  void post(std::uint64_t now_ns, std::uint64_t wanted) noexcept;
  mutable SharedMutex mutex_;
  std::uint64_t rate_;
  bool started_ = false;
  std::uint64_t start_ns_ = 0;
  std::uint64_t posted_ = 0;  ///< events due since start (floor of rate x elapsed)
  std::uint64_t queue_ = 0;
};

}  // namespace iobench::plugins::filebench
