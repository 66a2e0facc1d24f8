#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace iobench::plugins::disk {

/// What `verify=true` writes into each block and expects back: a per-run pseudo-random pattern
/// (from the step seed and the target) whose every 512-byte sector begins with an 8-byte stamp
/// of its own file offset mixed with the pattern's tag. A read then detects flipped bytes
/// (memcmp against the pattern), data written to or read from the wrong offset (a sector's
/// stamp), a torn block (some sectors old), and data left by another run or target (the tag).
/// Stamping costs 8 bytes per sector; checking is one memcmp per sector.
class VerifyPattern {
 public:
  static constexpr std::size_t kSectorBytes = 512;
  static constexpr std::size_t kStampBytes = 8;

  /// The pattern of run seed `seed` and target `target` for blocks of `block_size` bytes.
  VerifyPattern(std::uint64_t seed, std::size_t target, std::size_t block_size);

  /// Writes the whole expected content of the block at `offset` into `block`.
  void fill(std::span<std::byte> block, std::uint64_t offset) const noexcept;
  /// Rewrites only the stamps of `block` (which must hold a fill() of any offset) for `offset`.
  void stamp(std::span<std::byte> block, std::uint64_t offset) const noexcept;
  /// The offset of the first sector of `block` (read at `offset`) that differs from what
  /// fill(offset) writes, or UINT64_MAX if the whole block matches.
  [[nodiscard]] std::uint64_t first_mismatch(std::span<const std::byte> block,
                                             std::uint64_t offset) const noexcept;

 private:
  [[nodiscard]] std::uint64_t stamp_value(std::uint64_t sector_offset) const noexcept {
    return sector_offset ^ tag_;
  }
  std::uint64_t tag_;
  std::vector<std::byte> pattern_;
};

}  // namespace iobench::plugins::disk
