#pragma once

#include <bit>
#include <cstdint>
#include <iobench/random_mix.hpp>

namespace iobench::plugins::disk {

/// A pseudo-random permutation of [0, n) in O(1) memory: a 4-round Feistel network over the
/// smallest even number of bits covering n, with cycle-walking for values >= n. Visiting
/// at(0..n-1) touches every block exactly once in random order (the seeds' "seek once per block"),
/// without a table that would grow with the working set.
class BlockPermutation {
 public:
  /// REQUIRES: n >= 1.
  BlockPermutation(std::uint64_t n, std::uint64_t seed) noexcept : n_(n) {
    unsigned bits = static_cast<unsigned>(std::bit_width(n > 1 ? n - 1 : 1));
    if (bits % 2) ++bits;
    half_bits_ = bits / 2;
    half_mask_ = (1ULL << half_bits_) - 1;
    for (auto& key : keys_) key = splitmix64(seed);
  }

  /// The i-th block of the permutation. REQUIRES: i < n.
  [[nodiscard]] std::uint64_t at(std::uint64_t i) const noexcept {
    std::uint64_t x = i;
    do {
      x = encrypt(x);
    } while (x >= n_);  // cycle-walk: stays a bijection on [0, n)
    return x;
  }

 private:
  [[nodiscard]] std::uint64_t encrypt(std::uint64_t x) const noexcept {
    std::uint64_t left = x >> half_bits_;
    std::uint64_t right = x & half_mask_;
    for (const std::uint64_t key : keys_) {
      std::uint64_t mix = right ^ key;
      mix *= 0xD6E8FEB86659FD93ULL;
      mix ^= mix >> 32;
      const std::uint64_t next = left ^ (mix & half_mask_);
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  std::uint64_t n_;
  unsigned half_bits_ = 1;
  std::uint64_t half_mask_ = 1;
  std::uint64_t keys_[4] = {};
};

/// Uniform block numbers in [0, n) with repetition (Lemire's multiply-shift bound; the bias is at
/// most n / 2^64, far below anything measurable).
class UniformBlocks {
 public:
  UniformBlocks(std::uint64_t n, std::uint64_t seed) noexcept : n_(n), state_(seed) {}
  [[nodiscard]] std::uint64_t next() noexcept {
    return static_cast<std::uint64_t>((static_cast<Uint128>(splitmix64(state_)) * n_) >> 64);
  }

 private:
  __extension__ typedef unsigned __int128 Uint128;  // GCC/Clang extension; -Wpedantic knows
  std::uint64_t n_;
  std::uint64_t state_;
};

}  // namespace iobench::plugins::disk
