#include "plugins/filebench/flowop_block.hpp"

#include <chrono>

namespace iobench::plugins::filebench {

bool FlowopBlock::block(const std::function<bool()>& keep_waiting) {
  std::unique_lock lock(mutex_);
  const std::uint64_t began = generation_;
  ++waiting_;
  while (generation_ == began) {
    if (!keep_waiting()) {
      --waiting_;  // not released: no wake() counted this thread
      return false;
    }
    woken_.wait_for(lock, std::chrono::milliseconds(10));
  }
  return true;  // wake() counted this thread and took it off waiting_
}

std::uint64_t FlowopBlock::wake() {
  const std::lock_guard lock(mutex_);
  ++generation_;
  const std::uint64_t released = waiting_;
  waiting_ = 0;
  woken_.notify_all();
  return released;
}

std::uint64_t FlowopBlock::waiting() const {
  const std::lock_guard lock(mutex_);
  return waiting_;
}

}  // namespace iobench::plugins::filebench
