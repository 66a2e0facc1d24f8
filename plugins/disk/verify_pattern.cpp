#include "plugins/disk/verify_pattern.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <iobench/random_mix.hpp>

namespace iobench::plugins::disk {
namespace {

constexpr std::uint64_t kMagic = 0x3176'7266'7962'6f69ULL;  // "iobvrfv1"

// The stamp at the start of each block, little-endian as the host stores it.
struct Header {
  std::uint64_t magic;
  std::uint64_t offset;
  std::uint64_t seed;
  std::uint32_t generation;
  std::uint32_t target;
  std::uint64_t checksum;
};
static_assert(sizeof(Header) == VerifyPattern::kHeaderBytes);
constexpr std::size_t kChecksumAt = offsetof(Header, checksum);

// A 64-bit checksum of `block` with its checksum field read as zero: four independent
// xor-multiply lanes over 8-byte words (each step is a bijection of the lane, so any one changed
// word changes the result), mixed at the end.
std::uint64_t checksum(std::span<const std::byte> block) noexcept {
  constexpr std::uint64_t kPrime = 0x9E37'79B9'7F4A'7C15ULL;
  std::array<std::uint64_t, 4> lanes{1, 2, 3, 4};
  const std::size_t words = block.size() / 8;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t word = 0;
    if (i * 8 != kChecksumAt) std::memcpy(&word, block.data() + i * 8, 8);
    std::uint64_t& lane = lanes[i & 3];
    lane = (lane ^ word) * kPrime;
    lane ^= lane >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, block.data() + words * 8, block.size() - words * 8);
  std::uint64_t sum = splitmix64_mix(tail ^ block.size());
  for (const std::uint64_t lane : lanes) sum = splitmix64_mix(sum ^ lane);
  return sum;
}

Header header_of(std::span<const std::byte> block) noexcept {
  Header header{};
  std::memcpy(&header, block.data(), sizeof header);
  return header;
}

}  // namespace

std::string_view failure_name(VerifyFailure failure) noexcept {
  switch (failure) {
    case VerifyFailure::kNone:
      return "ok";
    case VerifyFailure::kMisplaced:
      return "misplaced write";
    case VerifyFailure::kLost:
      return "lost write";
    case VerifyFailure::kCorrupted:
      return "corrupted";
  }
  return "corrupted";
}

VerifyPattern::VerifyPattern(std::uint64_t seed, std::size_t target, std::size_t block_size,
                             const DataPattern& data)
    : seed_(seed),
      target_(static_cast<std::uint32_t>(target)),
      block_size_(block_size),
      data_(data, block_size, splitmix64_mix(seed ^ (0x7665'7269'6679ULL * (target + 1)))),
      expected_(block_size) {}

void VerifyPattern::fill(std::span<std::byte> block, std::uint64_t offset,
                         std::uint32_t generation) noexcept {
  const std::span<const std::byte> data = data_.block(offset / block_size_);
  std::memcpy(block.data(), data.data(), block_size_);
  const Header header{.magic = kMagic,
                      .offset = offset,
                      .seed = seed_,
                      .generation = generation,
                      .target = target_,
                      .checksum = 0};
  std::memcpy(block.data(), &header, sizeof header);
  const std::uint64_t sum = checksum(block.first(block_size_));
  std::memcpy(block.data() + kChecksumAt, &sum, sizeof sum);
}

std::uint32_t VerifyPattern::generation_of(std::span<const std::byte> block) noexcept {
  return header_of(block).generation;
}

VerifyFinding VerifyPattern::check(std::span<const std::byte> block, std::uint64_t offset,
                                   std::uint32_t expected) {
  const Header h = header_of(block);
  const bool intact = h.magic == kMagic && h.checksum == checksum(block);
  const bool any = expected == kAnyGeneration;
  if (intact && h.seed == seed_ && h.target == target_ && h.offset == offset &&
      (any || h.generation == expected)) {
    return {};
  }
  if (intact && h.seed != seed_) {
    return {VerifyFailure::kLost,
            fmt::format("holds a block another run wrote (seed {}, offset {}): the device kept "
                        "an older version",
                        h.seed, h.offset)};
  }
  if (intact && (h.target != target_ || h.offset != offset)) {
    return {
        VerifyFailure::kMisplaced,
        h.target != target_
            ? fmt::format("holds the block of target {} at offset {} (generation {})", h.target,
                          h.offset, h.generation)
            : fmt::format("holds the block of offset {} (generation {})", h.offset, h.generation)};
  }
  if (intact && h.generation < expected) {
    return {VerifyFailure::kLost,
            fmt::format("holds generation {}, but the last write was generation {}: the device "
                        "kept an older version",
                        h.generation, expected)};
  }
  if (intact) {
    return {VerifyFailure::kCorrupted,
            fmt::format("holds generation {}, newer than the last write (generation {})",
                        h.generation, expected)};
  }
  if (std::all_of(block.begin(), block.end(), [](std::byte b) { return b == std::byte{0}; })) {
    return {VerifyFailure::kLost, "reads as zeros: the write never reached it"};
  }
  // Garbage: the first byte that differs from what the last write (or, not known, the
  // generation the block claims) put there.
  fill(expected_, offset, any ? h.generation : expected);
  const auto differs = std::mismatch(block.begin(), block.end(), expected_.begin()).first;
  const auto at = static_cast<std::uint64_t>(differs - block.begin());
  return {VerifyFailure::kCorrupted,
          fmt::format("fails its checksum; first byte differing from what was written at offset "
                      "{}",
                      offset + at)};
}

}  // namespace iobench::plugins::disk
