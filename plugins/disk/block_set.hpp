#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace iobench::plugins::disk {

/// A set of block indexes in [0, blocks): one bit per block (blocks / 8 bytes), so recording a
/// write costs a shift and an or, and memory follows the working set, not the op count.
class BlockSet {
 public:
  BlockSet() = default;
  explicit BlockSet(std::uint64_t blocks) : words_((blocks + 63) / 64, 0) {}

  /// REQUIRES: block < the constructor's `blocks`.
  void insert(std::uint64_t block) noexcept {
    std::uint64_t& word = words_[block >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (block & 63);
    count_ += (word & bit) == 0 ? 1 : 0;
    word |= bit;
  }
  [[nodiscard]] bool contains(std::uint64_t block) const noexcept {
    return (block >> 6) < words_.size() && ((words_[block >> 6] >> (block & 63)) & 1) != 0;
  }
  /// Number of blocks in the set.
  [[nodiscard]] std::uint64_t size() const noexcept { return count_; }

 private:
  std::vector<std::uint64_t> words_;
  std::uint64_t count_ = 0;
};

}  // namespace iobench::plugins::disk
