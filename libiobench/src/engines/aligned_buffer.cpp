#include <cstdlib>
#include <iobench/engine.hpp>
#include <new>
#include <utility>

namespace iobench {

AlignedBuffer::AlignedBuffer(std::size_t size_bytes) {
  const std::size_t rounded = (size_bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (memory == nullptr) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(memory);
  size_ = size_bytes;
  // xorshift bytes: incompressible, so compressing or deduplicating filesystems are not flattered.
  std::uint64_t x = 0x9E3779B97F4A7C15ULL ^ size_bytes;
  for (std::size_t i = 0; i < rounded; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    data_[i] = static_cast<std::byte>(x);
  }
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

}  // namespace iobench
