#include "plugins/tiotest/random_offsets.hpp"

namespace iobench::plugins::tiotest {

RandomOffsets::RandomOffsets(std::uint64_t seed, std::uint64_t blocks, std::uint64_t block_size,
                             std::uint64_t base_offset) noexcept
    : blocks_(blocks == 0 ? 1 : blocks),
      threshold_((0 - blocks_) % blocks_),
      block_size_(block_size),
      base_(base_offset) {
  // xoshiro256** must not start from the all-zero state; splitmix64 outputs of any seed are
  // never all zero in four consecutive draws.
  std::uint64_t state = seed;
  for (std::uint64_t& word : s_) word = splitmix64(state);
}

}  // namespace iobench::plugins::tiotest
