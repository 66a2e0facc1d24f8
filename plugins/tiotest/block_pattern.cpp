#include "plugins/tiotest/block_pattern.hpp"

#include <algorithm>
#include <cstring>

#include "plugins/tiotest/random_offsets.hpp"

namespace iobench::plugins::tiotest {

BlockPattern::BlockPattern(std::uint64_t tag, std::size_t block_size)
    : tag_(mix_seed(tag, 0x7469'6f74'6573'74ULL)), pattern_(block_size) {
  std::uint64_t state = tag_;
  std::size_t i = 0;
  while (i < pattern_.size()) {
    const std::uint64_t word = splitmix64(state);
    const std::size_t n = std::min<std::size_t>(8, pattern_.size() - i);
    std::memcpy(pattern_.data() + i, &word, n);
    i += n;
  }
}

std::uint64_t BlockPattern::stamp_value(std::uint64_t offset) const noexcept {
  // Any offset gives a different stamp (xor with a fixed tag is a bijection), and the tag
  // differs between threads, so a block from another thread's file does not match either.
  return offset ^ tag_;
}

void BlockPattern::fill(std::span<std::byte> block, std::uint64_t offset) const noexcept {
  std::memcpy(block.data(), pattern_.data(), std::min(block.size(), pattern_.size()));
  stamp(block, offset);
}

void BlockPattern::stamp(std::span<std::byte> block, std::uint64_t offset) const noexcept {
  const std::uint64_t value = stamp_value(offset);
  std::memcpy(block.data(), &value, std::min(kStampBytes, block.size()));
}

bool BlockPattern::matches(std::span<const std::byte> block, std::uint64_t offset) const noexcept {
  if (block.size() != pattern_.size()) return false;
  const std::uint64_t value = stamp_value(offset);
  const std::size_t stamp_bytes = std::min(kStampBytes, block.size());
  if (std::memcmp(block.data(), &value, stamp_bytes) != 0) return false;
  return std::memcmp(block.data() + stamp_bytes, pattern_.data() + stamp_bytes,
                     block.size() - stamp_bytes) == 0;
}

}  // namespace iobench::plugins::tiotest
