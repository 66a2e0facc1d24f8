#pragma once

#include <sys/mman.h>

#include <cerrno>
#include <cstddef>
#include <iobench/error.hpp>
#include <utility>

namespace iobench::detail {

/// Anonymous MAP_SHARED memory: visible to forked worker processes as well as threads. Zeroed.
class SharedRegion {
 public:
  SharedRegion() = default;
  explicit SharedRegion(std::size_t size_bytes) : size_(size_bytes) {
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw IoError(errno, "mmap", "(shared metrics region)");
    data_ = static_cast<std::byte*>(p);
  }
  SharedRegion(SharedRegion&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  SharedRegion& operator=(SharedRegion&&) = delete;
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  ~SharedRegion() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace iobench::detail
