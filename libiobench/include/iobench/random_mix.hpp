#pragma once

/// SplitMix64 (Steele, Lea, Flood 2014): the one 64-bit mixer iobench and its workloads use to
/// expand seeds and draw cheap reproducible random numbers (worker seeds, data patterns, latency
/// sampling positions, dbench's random values, bonnie++'s random names).

#include <cstdint>

namespace iobench {

/// SplitMix64's output function: a bijective 64-bit mix of `z` (every input bit affects every
/// output bit), for hashing a seed with a salt or counter.
[[nodiscard]] constexpr std::uint64_t splitmix64_mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// One SplitMix64 step: advances `state` by the golden-ratio increment and returns the mix of the
/// new state; successive calls give a full-period 64-bit sequence reproducible from the seed.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  state += 0x9E3779B97F4A7C15ULL;
  return splitmix64_mix(state);
}

}  // namespace iobench
