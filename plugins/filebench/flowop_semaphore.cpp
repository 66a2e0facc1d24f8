#include "plugins/filebench/flowop_semaphore.hpp"

#include <chrono>

namespace iobench::plugins::filebench {

bool FlowopSemaphore::block(std::uint64_t value, const std::function<bool()>& keep_waiting) {
  std::unique_lock lock(mutex_);
  high_ += value;
  changed_.notify_all();
  while (low_ < value) {
    if (!keep_waiting()) return false;
    changed_.wait_for(lock, std::chrono::milliseconds(10));
  }
  low_ -= value;
  return true;
}

bool FlowopSemaphore::post(std::uint64_t value, bool blocking,
                           const std::function<bool()>& keep_waiting) {
  std::unique_lock lock(mutex_);
  if (blocking) {
    while (high_ < value) {
      if (!keep_waiting()) return false;
      changed_.wait_for(lock, std::chrono::milliseconds(10));
    }
    high_ -= value;
  }
  low_ += value;
  changed_.notify_all();
  return true;
}

std::uint64_t FlowopSemaphore::low() const {
  const std::lock_guard lock(mutex_);
  return low_;
}

}  // namespace iobench::plugins::filebench
