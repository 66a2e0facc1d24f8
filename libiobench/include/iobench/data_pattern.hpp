#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iobench/params.hpp>
#include <span>
#include <string>
#include <string_view>

namespace iobench {

/// What a writing workload puts in the bytes it writes: the `data` param of every workload that
/// writes (disk, tiotest, bonnie, dbench). A compressing or deduplicating filesystem (btrfs,
/// ZFS, some SSD controllers) stores zeros in almost no space and so writes them faster than
/// data it cannot shrink; the pattern is part of what a write test measures, and results record
/// it (step attribute "data").
struct DataPattern {
  enum class Kind : std::uint8_t {
    /// Incompressible: random bytes that do not repeat within 1 MiB (the compression unit of
    /// btrfs is 128 KiB, ZFS's largest default record 1 MiB), and an 8-byte stamp of the block
    /// number at the start of every 4 KiB, so no two blocks of a file are equal (nothing to
    /// deduplicate).
    kRandom,
    kZeros,  ///< all bytes zero (dbench 4 and tiotest write these)
    /// fio's buffer_compress_percentage=PCT method: each 4 KiB segment of a block (the block,
    /// if shorter) starts with (100 - PCT) % random bytes and ends with PCT % zeros, so zlib
    /// shrinks it by about PCT % (compressible:75 compresses to about 25 % of its size); not
    /// repeating within 1 MiB and stamped like kRandom. fio's segment is the block unless
    /// buffer_compress_chunk says otherwise; a fixed 4 KiB gives every compression unit size
    /// the same ratio.
    kCompressible,
    /// bonnie++ 2.00's block-output buffer: zeros, and before each write of block n the byte at
    /// n % block size is incremented (so the data is runs of one or two byte values).
    kBonnie,
  };
  Kind kind = Kind::kRandom;
  /// kCompressible only: the percent of each segment that is zeros, 1..99.
  std::uint32_t compress_percent = 0;

  /// Parses `random`, `zeros`, `compressible:PCT` (PCT 1..99) or `bonnie`. Throws ConfigError
  /// naming `field` and the accepted forms.
  [[nodiscard]] static DataPattern parse(std::string_view text, std::string_view field);
  /// The form parse() reads: "random", "zeros", "compressible:50", "bonnie".
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const DataPattern&, const DataPattern&) = default;
};

/// The `data` param of a writing workload: a string param with `default_value` (what the
/// original tool writes) and a help line naming the forms, ending in `origin` (e.g. "default:
/// zeros, as dbench 4 writes").
[[nodiscard]] ParamSpec data_param_spec(std::string default_value, std::string_view origin);

/// The write buffer of one worker: filled with a DataPattern once, untimed, when built; block(n)
/// then yields the bytes of block n at the cost of a few stores (no allocation, no generation).
/// Aligned for O_DIRECT (AlignedBuffer::kAlignment). Move-only; not thread-safe (one per
/// worker).
///
/// Memory: block_bytes for kBonnie; for kZeros block_bytes of address space only (mmap'd pages
/// never written: reading them maps the kernel's zero page, no resident memory); for kRandom and
/// kCompressible a ring of windows of round_up(block_bytes, 4 KiB) each, as many as fit in 1 MiB (a
/// power of two, at least one): block n is window n % windows with its stamps rewritten, so the
/// data does not repeat within the ring and block n's content is a function of (pattern,
/// block_bytes, seed, n) only, which lets a reader verify it (tiotest's consistency check).
class PatternBuffer {
 public:
  /// Bytes per segment: the unit of kCompressible's random/zero split and of the stamps.
  static constexpr std::size_t kSegmentBytes = 4096;
  /// Size the ring of kRandom and kCompressible aims at.
  static constexpr std::size_t kRingBytes = std::size_t{1} << 20;

  /// REQUIRES: block_bytes >= 1. `seed` picks the random bytes and stamps (give each worker its
  /// own, and the same one to the reader that verifies). Throws std::bad_alloc.
  PatternBuffer(const DataPattern& pattern, std::size_t block_bytes, std::uint64_t seed);
  PatternBuffer(PatternBuffer&& other) noexcept;
  PatternBuffer& operator=(PatternBuffer&& other) noexcept;
  PatternBuffer(const PatternBuffer&) = delete;
  PatternBuffer& operator=(const PatternBuffer&) = delete;
  ~PatternBuffer();

  /// The block_bytes() bytes to write as block `n` (any numbering unique per block of the
  /// file, e.g. offset / block size). Valid until the next call.
  [[nodiscard]] std::span<const std::byte> block(std::uint64_t n) noexcept {
    if (pattern_.kind == DataPattern::Kind::kZeros) return {data_, block_bytes_};
    if (pattern_.kind == DataPattern::Kind::kBonnie) {
      std::byte& b = data_[n % block_bytes_];
      b = static_cast<std::byte>(static_cast<unsigned char>(b) + 1);
      return {data_, block_bytes_};
    }
    std::byte* window = data_ + (n & window_mask_) * window_stride_;
    std::uint64_t stamp = key_ ^ (n * 0x9E3779B97F4A7C15ULL);
    for (std::size_t i = 0; i < stamps_; ++i, ++stamp) {
      std::memcpy(window + i * kSegmentBytes, &stamp, sizeof stamp);
    }
    return {window, block_bytes_};
  }

  [[nodiscard]] const DataPattern& pattern() const noexcept { return pattern_; }
  [[nodiscard]] std::size_t block_bytes() const noexcept { return block_bytes_; }
  /// Bytes allocated (the ring, or one block).
  [[nodiscard]] std::size_t allocated_bytes() const noexcept { return allocated_; }

 private:
  /// Frees data_ as it was allocated (kZeros: mmap'd pages, else aligned_alloc).
  void release() noexcept;

  DataPattern pattern_;
  std::size_t block_bytes_ = 0;
  std::byte* data_ = nullptr;
  std::size_t allocated_ = 0;
  std::uint64_t window_mask_ = 0;  ///< windows - 1 (a power of two less one)
  std::size_t window_stride_ = 0;
  std::size_t stamps_ = 0;  ///< stamped segments per block (0: none fit)
  std::uint64_t key_ = 0;
};

}  // namespace iobench
