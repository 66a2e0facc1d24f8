#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/data_pattern.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::disk {

/// What a block read back under verify=true turned out to hold.
enum class VerifyFailure : std::uint8_t {
  kNone,       ///< what the last write of this offset wrote
  kMisplaced,  ///< an intact block written for another offset (or target): a misdirected write
  kLost,       ///< an older version: an earlier generation, another run's block, or zeros
  kCorrupted,  ///< neither: bytes no write of this run produced (a failed checksum)
};

/// "misplaced write", "lost write", "corrupted".
[[nodiscard]] std::string_view failure_name(VerifyFailure failure) noexcept;

/// One block's verdict: kNone, or the failure and what the block holds instead.
struct VerifyFinding {
  VerifyFailure failure = VerifyFailure::kNone;
  std::string detail;  ///< e.g. "holds the block of offset 8192 (generation 1)"
};

/// What `verify=true` writes into each block and expects back: the step's data pattern (random,
/// zeros or compressible:PCT; PatternBuffer, from the run's seed and the target) with its first
/// kHeaderBytes replaced by a stamp: a magic number, the block's file offset, the run's seed,
/// the target index, the write's generation (its pass: 1 for the first pass of a write or
/// mixed phase, 0 for the untimed fill of a file to read) and a 64-bit checksum of the whole
/// block. A read then tells apart a block written for another offset (misplaced), an older
/// version of this one (lost write: an earlier generation, another run's seed, or zeros where
/// nothing was written) and bytes no write produced (corrupted, with the first byte that
/// differs). Per write: a copy of the block and one pass of the checksum, untimed.
class VerifyPattern {
 public:
  /// Stamp size: the bytes of each block that are not the data pattern's.
  static constexpr std::size_t kHeaderBytes = 40;
  /// check(): any generation is right (a block a mixed phase may or may not have rewritten).
  static constexpr std::uint32_t kAnyGeneration = UINT32_MAX;

  /// The pattern of run seed `seed` and target `target` for blocks of `block_size` bytes
  /// (REQUIRES: >= kHeaderBytes; make_disk_config refuses smaller) holding `data` (REQUIRES: not
  /// kBonnie, no dedupe). Throws std::bad_alloc.
  VerifyPattern(std::uint64_t seed, std::size_t target, std::size_t block_size,
                const DataPattern& data);

  /// Writes the whole content of generation `generation` of the block at `offset` into `block`
  /// (block_size bytes).
  void fill(std::span<std::byte> block, std::uint64_t offset, std::uint32_t generation) noexcept;
  /// The verdict on `block`, read at `offset`, whose last write was generation `expected`
  /// (kAnyGeneration: not known).
  [[nodiscard]] VerifyFinding check(std::span<const std::byte> block, std::uint64_t offset,
                                    std::uint32_t expected);
  /// The generation stamped in a block fill() wrote.
  [[nodiscard]] static std::uint32_t generation_of(std::span<const std::byte> block) noexcept;

 private:
  std::uint64_t seed_;
  std::uint32_t target_;
  std::size_t block_size_;
  PatternBuffer data_;
  std::vector<std::byte> expected_;  ///< check()'s regenerated block, for a corrupted one
};

}  // namespace iobench::plugins::disk
