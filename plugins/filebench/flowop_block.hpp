#pragma once

/// The condition of filebench's block and wakeup flowops (flowoplib_block/_wakeup, a condition
/// variable per block flowop of each thread instance): block waits until a wakeup naming it
/// broadcasts; a wakeup that finds no thread blocked is lost, as a condition variable's broadcast
/// is. Unlike a bare condition variable a blocked thread passes only on a wakeup made after it
/// began to wait (a generation count, no spurious passes), so the wakeups that released someone
/// and the blocks that passed add up exactly.

#include <cstdint>
#include <functional>
#include <mutex>

#include "plugins/filebench/shared_memory.hpp"

namespace iobench::plugins::filebench {

/// Its state lies in the object itself: built in a SharedArray, it is shared by the worker
/// processes (as filebench's shared memory is).
class FlowopBlock {
 public:
  /// block: waits until a wake() made after this call began (true). False, nothing passed, when
  /// `keep_waiting()` turns false first (checked every 10 ms): the run's end, so that no thread
  /// stays blocked past it.
  bool block(const std::function<bool()>& keep_waiting);
  /// wakeup: releases every thread blocked now and returns how many (0: the wakeup is lost).
  std::uint64_t wake();
  /// Threads blocked now (tests).
  [[nodiscard]] std::uint64_t waiting() const;

 private:
  mutable SharedMutex mutex_;
  SharedCondition woken_;
  std::uint64_t generation_ = 0;  ///< wake() calls so far
  std::uint64_t waiting_ = 0;     ///< threads in block() not yet released
};

}  // namespace iobench::plugins::filebench
