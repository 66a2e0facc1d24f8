#pragma once

/// State filebench keeps in its shared memory region (filebench_shm), shared here by the worker
/// processes of a run: mappings made MAP_SHARED before the runner forks them, and a mutex and
/// condition variable that work across processes (PTHREAD_PROCESS_SHARED, robust: a process
/// killed while it holds the mutex does not block the others). No address tricks: a mapping
/// made in the runner's process sits at the same address in every process forked after.

#include <pthread.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>

namespace iobench::plugins::filebench {

/// An anonymous MAP_SHARED mapping of `bytes` (zeroed), unmapped on destruction. Throws IoError
/// (mmap's errno) when it cannot be made.
class SharedMapping {
 public:
  SharedMapping() noexcept = default;
  explicit SharedMapping(std::size_t bytes);
  ~SharedMapping();
  SharedMapping(SharedMapping&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  SharedMapping& operator=(SharedMapping&& other) noexcept;
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;
  [[nodiscard]] void* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// `count` objects of T built in one shared mapping (T(args...) each), destroyed with it. T
/// must keep its state in itself (no heap pointers that a write in another process would need
/// to follow).
template <class T>
class SharedArray {
 public:
  SharedArray() noexcept = default;
  template <class... Args>
  explicit SharedArray(std::size_t count, const Args&... args)
      : mapping_(count == 0 ? 0 : count * sizeof(T)), count_(count) {
    for (std::size_t i = 0; i < count; ++i) new (data() + i) T(args...);
  }
  /// `count` objects, object i built by `build(place, i)` (a placement new at `place`).
  template <class Build>
  static SharedArray built(std::size_t count, Build build) {
    SharedArray out;
    out.mapping_ = SharedMapping(count * sizeof(T));
    for (; out.count_ < count; ++out.count_)
      build(static_cast<void*>(out.data() + out.count_), out.count_);
    return out;
  }
  ~SharedArray() { reset(); }
  SharedArray(SharedArray&& other) noexcept
      : mapping_(std::move(other.mapping_)), count_(std::exchange(other.count_, 0)) {}
  SharedArray& operator=(SharedArray&& other) noexcept {
    if (this != &other) {
      reset();
      mapping_ = std::move(other.mapping_);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;
  [[nodiscard]] T* data() const noexcept { return static_cast<T*>(mapping_.data()); }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  T& operator[](std::size_t i) const noexcept { return data()[i]; }
  T* begin() const noexcept { return data(); }
  T* end() const noexcept { return data() + count_; }

 private:
  void reset() noexcept {
    for (std::size_t i = 0; i < count_; ++i) data()[i].~T();
    count_ = 0;
  }
  SharedMapping mapping_;
  std::size_t count_ = 0;
};

/// A mutex that works across processes when it lies in a SharedMapping (and within one process
/// anywhere). Lockable: use it with std::lock_guard / std::unique_lock.
class SharedMutex {
 public:
  SharedMutex();
  ~SharedMutex();
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;
  void lock() noexcept;
  void unlock() noexcept;
  [[nodiscard]] pthread_mutex_t* native() noexcept { return &mutex_; }

 private:
  pthread_mutex_t mutex_;
};

/// A condition variable that works across processes with a SharedMutex (CLOCK_MONOTONIC).
class SharedCondition {
 public:
  SharedCondition();
  ~SharedCondition();
  SharedCondition(const SharedCondition&) = delete;
  SharedCondition& operator=(const SharedCondition&) = delete;
  /// Waits at most `timeout` for a notify (spurious wake-ups possible: callers loop).
  void wait_for(std::unique_lock<SharedMutex>& lock, std::chrono::nanoseconds timeout) noexcept;
  void notify_all() noexcept;

 private:
  pthread_cond_t cond_;
};

}  // namespace iobench::plugins::filebench
