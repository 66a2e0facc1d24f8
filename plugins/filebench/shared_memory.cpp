#include "plugins/filebench/shared_memory.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <ctime>
#include <iobench/error.hpp>

namespace iobench::plugins::filebench {

SharedMapping::SharedMapping(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw IoError(errno, "mmap", "filebench shared state");
  data_ = p;
}

SharedMapping::~SharedMapping() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
}

SharedMapping& SharedMapping::operator=(SharedMapping&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

SharedMutex::SharedMutex() {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&mutex_, &attr);
  pthread_mutexattr_destroy(&attr);
}

SharedMutex::~SharedMutex() { pthread_mutex_destroy(&mutex_); }

void SharedMutex::lock() noexcept {
  // Its holder died (a worker process killed): the state it guards is counters and flags that
  // each update leaves whole, so it is taken over as it is.
  if (pthread_mutex_lock(&mutex_) == EOWNERDEAD) pthread_mutex_consistent(&mutex_);
}

void SharedMutex::unlock() noexcept { pthread_mutex_unlock(&mutex_); }

SharedCondition::SharedCondition() {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&cond_, &attr);
  pthread_condattr_destroy(&attr);
}

SharedCondition::~SharedCondition() { pthread_cond_destroy(&cond_); }

void SharedCondition::wait_for(std::unique_lock<SharedMutex>& lock,
                               std::chrono::nanoseconds timeout) noexcept {
  timespec until{};
  ::clock_gettime(CLOCK_MONOTONIC, &until);
  const std::int64_t ns = until.tv_nsec + timeout.count();
  until.tv_sec += static_cast<time_t>(ns / 1'000'000'000);
  until.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  pthread_mutex_t* m = lock.mutex()->native();
  if (pthread_cond_timedwait(&cond_, m, &until) == EOWNERDEAD) pthread_mutex_consistent(m);
}

void SharedCondition::notify_all() noexcept { pthread_cond_broadcast(&cond_); }

}  // namespace iobench::plugins::filebench
