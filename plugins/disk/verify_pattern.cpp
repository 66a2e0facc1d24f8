#include "plugins/disk/verify_pattern.hpp"

#include <algorithm>
#include <cstring>

#include "plugins/disk/block_order.hpp"

namespace iobench::plugins::disk {

VerifyPattern::VerifyPattern(std::uint64_t seed, std::size_t target, std::size_t block_size)
    : pattern_(block_size) {
  std::uint64_t state = seed ^ (0x7665'7269'6679ULL * (target + 1));
  tag_ = splitmix64(state);
  for (std::size_t i = 0; i < pattern_.size(); i += 8) {
    const std::uint64_t word = splitmix64(state);
    std::memcpy(pattern_.data() + i, &word, std::min<std::size_t>(8, pattern_.size() - i));
  }
}

void VerifyPattern::fill(std::span<std::byte> block, std::uint64_t offset) const noexcept {
  std::memcpy(block.data(), pattern_.data(), std::min(block.size(), pattern_.size()));
  stamp(block, offset);
}

void VerifyPattern::stamp(std::span<std::byte> block, std::uint64_t offset) const noexcept {
  for (std::size_t at = 0; at < block.size(); at += kSectorBytes) {
    const std::uint64_t value = stamp_value(offset + at);
    std::memcpy(block.data() + at, &value, std::min(kStampBytes, block.size() - at));
  }
}

std::uint64_t VerifyPattern::first_mismatch(std::span<const std::byte> block,
                                            std::uint64_t offset) const noexcept {
  for (std::size_t at = 0; at < block.size(); at += kSectorBytes) {
    const std::size_t len = std::min(kSectorBytes, block.size() - at);
    const std::uint64_t value = stamp_value(offset + at);
    const std::size_t stamp_len = std::min(kStampBytes, len);
    if (std::memcmp(block.data() + at, &value, stamp_len) != 0 ||
        std::memcmp(block.data() + at + stamp_len, pattern_.data() + at + stamp_len,
                    len - stamp_len) != 0) {
      return offset + at;
    }
  }
  return UINT64_MAX;
}

}  // namespace iobench::plugins::disk
