#pragma once

#include <cstdint>
#include <iobench/random_mix.hpp>

namespace iobench::plugins::tiotest {

/// Mixes `salt` into `seed` so that related inputs (worker seed and phase number) give unrelated
/// generator seeds.
[[nodiscard]] constexpr std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt) noexcept {
  std::uint64_t state = seed ^ (salt * 0xD6E8FEB86659FD93ULL);
  return splitmix64(state);
}

/// Block-aligned random offsets, uniform over one thread's file or region: offset =
/// base + k x block_size with k uniform in [0, blocks), drawn with repetition (as tiotest's
/// random phases do) from a xoshiro256** generator seeded through splitmix64. Unlike tiotest's
/// `rand_r() % blocks`, the draw is unbiased (Lemire's multiply-and-reject) and covers the last
/// block (tiotest 0.3.3 never chose it).
///
/// Deterministic: the same seed, blocks and block size give the same sequence. No allocation;
/// next() costs a few ns.
class RandomOffsets {
 public:
  /// REQUIRES: blocks >= 1.
  RandomOffsets(std::uint64_t seed, std::uint64_t blocks, std::uint64_t block_size,
                std::uint64_t base_offset) noexcept;

  /// The next offset in bytes.
  [[nodiscard]] std::uint64_t next() noexcept { return base_ + next_block() * block_size_; }
  /// The next block index in [0, blocks).
  [[nodiscard]] std::uint64_t next_block() noexcept {
    // Lemire, "Fast random integer generation in an interval" (2019): the high half of
    // x * blocks is uniform once the few low results below (2^64 mod blocks) are rejected.
    Uint128 m = static_cast<Uint128>(next_u64()) * blocks_;
    auto low = static_cast<std::uint64_t>(m);
    if (low < blocks_) [[unlikely]] {
      while (low < threshold_) {
        m = static_cast<Uint128>(next_u64()) * blocks_;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  /// One raw 64-bit output of xoshiro256** (Blackman, Vigna 2018).
  [[nodiscard]] std::uint64_t next_u64() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] std::uint64_t block_size() const noexcept { return block_size_; }
  [[nodiscard]] std::uint64_t base_offset() const noexcept { return base_; }

 private:
  __extension__ typedef unsigned __int128 Uint128;
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
  }
  std::uint64_t s_[4];
  std::uint64_t blocks_;
  std::uint64_t threshold_;  ///< 2^64 mod blocks_: low products below it are rejected
  std::uint64_t block_size_;
  std::uint64_t base_;
};

}  // namespace iobench::plugins::tiotest
