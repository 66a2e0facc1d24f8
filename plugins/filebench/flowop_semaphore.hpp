#pragma once

/// The semaphores of filebench's semblock/sempost flowops (flowoplib_semblock/_sempost with
/// System V semaphores): each thread instance's semblock flowop has a low-water count (posts
/// received, starting at 0) and a high-water count (starting at its highwater=). semblock adds
/// value to the high-water count, then waits until the low-water count holds value and takes
/// it; sempost adds value to the low-water count of every semblock of its target's name (all
/// thread instances), and with blocking first waits until the high-water count holds value and
/// takes it, so that posters run at most highwater (plus what the blockers gave back) ahead.

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "plugins/filebench/flowop_block.hpp"
#include "plugins/filebench/shared_memory.hpp"

namespace iobench::plugins::filebench {

/// Its state lies in the object itself: built in a SharedArray, it is shared by the worker
/// processes (as filebench's System V semaphores are).
class FlowopSemaphore {
 public:
  explicit FlowopSemaphore(std::uint64_t highwater) noexcept : high_(highwater) {}

  /// semblock: high += value, then waits for low >= value and takes it. False (nothing taken
  /// from low) when `keep_waiting()` turns false first (checked every 10 ms).
  bool block(std::uint64_t value, const std::function<bool()>& keep_waiting);
  /// sempost on this semaphore: low += value; with `blocking`, only once high >= value, taking
  /// it from high (false, nothing posted, when `keep_waiting()` turns false first).
  bool post(std::uint64_t value, bool blocking, const std::function<bool()>& keep_waiting);
  /// The low-water count (posts not yet taken), for tests.
  [[nodiscard]] std::uint64_t low() const;

 private:
  mutable SharedMutex mutex_;
  SharedCondition changed_;
  std::uint64_t low_ = 0;
  std::uint64_t high_;
};

/// A thread instance's synchronisation flowops by flowop index: `own[i]` for its semblock flowop
/// i, `posts[i]` the semaphores its sempost flowop i posts to; `blocks[i]` for its block flowop
/// i, `wakes[i]` the blocks its wakeup flowop i wakes (every thread instance's block of its
/// target's name); empty vectors when the file has none.
struct SemaphoreLinks {
  std::vector<FlowopSemaphore*> own;
  std::vector<std::vector<FlowopSemaphore*>> posts;
  std::vector<FlowopBlock*> blocks;
  std::vector<std::vector<FlowopBlock*>> wakes;
};

}  // namespace iobench::plugins::filebench
