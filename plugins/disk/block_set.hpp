#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace iobench::plugins::disk {

/// A set of block indexes in [0, blocks): one bit per block (blocks / 8 bytes), so recording a
/// write costs a shift and an or, and memory follows the working set, not the op count.
class BlockSet {
 public:
  BlockSet() = default;
  /// `generations`: also keep each block's last write generation (insert(block, generation)),
  /// one byte per block more.
  explicit BlockSet(std::uint64_t blocks, bool generations = false)
      : words_((blocks + 63) / 64, 0), generations_(generations ? blocks : 0, 0) {}

  /// REQUIRES: block < the constructor's `blocks`.
  void insert(std::uint64_t block) noexcept {
    std::uint64_t& word = words_[block >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (block & 63);
    count_ += (word & bit) == 0 ? 1 : 0;
    word |= bit;
  }
  /// insert(block), recording `generation` as its last write's (REQUIRES: constructed with
  /// generations).
  void insert(std::uint64_t block, std::uint32_t generation) noexcept {
    insert(block);
    generations_[block] = static_cast<std::uint8_t>(generation);
    newest_ = std::max(newest_, generation);
  }
  /// The generation recorded last for `block`: the newest inserted that has the block's low
  /// byte, exact while a block's last write is less than 256 generations behind the newest.
  [[nodiscard]] std::uint32_t generation(std::uint64_t block) const noexcept {
    return newest_ - static_cast<std::uint8_t>(newest_ - generations_[block]);
  }
  [[nodiscard]] bool contains(std::uint64_t block) const noexcept {
    return (block >> 6) < words_.size() && ((words_[block >> 6] >> (block & 63)) & 1) != 0;
  }
  /// Number of blocks in the set.
  [[nodiscard]] std::uint64_t size() const noexcept { return count_; }

 private:
  std::vector<std::uint64_t> words_;
  std::vector<std::uint8_t> generations_;  ///< low bytes, with generations
  std::uint32_t newest_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace iobench::plugins::disk
