#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace iobench::plugins::tiotest {

/// The data the consistency check (tiotest -c) writes and expects back. tiotest fills one random
/// block per thread and compares CRC32s; here every block is a per-thread pseudo-random pattern
/// whose first 8 bytes are replaced by a stamp of the block's own offset, so a read detects not
/// only flipped bytes but also data that landed at the wrong offset or came from another thread's
/// file. Comparison is byte for byte (memcmp), not by checksum.
class BlockPattern {
 public:
  /// Size of the offset stamp at the start of each block (shorter blocks keep a prefix of it).
  static constexpr std::size_t kStampBytes = 8;

  /// Builds the pattern of the thread identified by `tag` (any value; distinct per thread and
  /// run) for blocks of `block_size` bytes. Allocates block_size bytes.
  BlockPattern(std::uint64_t tag, std::size_t block_size);

  /// Writes the full expected block for `offset` into `block` (size block_size()).
  void fill(std::span<std::byte> block, std::uint64_t offset) const noexcept;
  /// Rewrites only the stamp of `block` for `offset`; the rest must already hold the pattern
  /// (from fill()). This is the per-write cost: 8 bytes.
  void stamp(std::span<std::byte> block, std::uint64_t offset) const noexcept;
  /// True if `block` is exactly what fill(offset) produces.
  [[nodiscard]] bool matches(std::span<const std::byte> block, std::uint64_t offset) const noexcept;

  [[nodiscard]] std::size_t block_size() const noexcept { return pattern_.size(); }

 private:
  [[nodiscard]] std::uint64_t stamp_value(std::uint64_t offset) const noexcept;
  std::uint64_t tag_;
  std::vector<std::byte> pattern_;
};

}  // namespace iobench::plugins::tiotest
