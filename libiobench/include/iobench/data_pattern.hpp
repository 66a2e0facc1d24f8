#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iobench/params.hpp>
#include <iobench/random_mix.hpp>
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
  /// fio's dedupe_percentage (kRandom and kCompressible; 0: none, else 1..99): that share of
  /// blocks repeats an earlier block's content exactly, the rest are unique. Which blocks
  /// repeat is a function of the block number alone: block n repeats iff
  /// floor((n + 1) * PCT / 100) > floor(n * PCT / 100), so any N consecutive blocks from block 0
  /// hold exactly floor(N * PCT / 100) repeats; the block it repeats is drawn from the seed
  /// among the unique blocks before it.
  std::uint32_t dedupe_percent = 0;

  /// Parses `random`, `zeros`, `compressible:PCT` (PCT 1..99), `bonnie`, `dedupe:PCT` (random
  /// with PCT 1..99 % repeated blocks) or `compressible:PCT,dedupe:PCT` (both, either order).
  /// Throws ConfigError naming `field`, the value and the accepted forms.
  [[nodiscard]] static DataPattern parse(std::string_view text, std::string_view field);
  /// The form parse() reads: "random", "zeros", "compressible:50", "bonnie", "dedupe:25",
  /// "compressible:50,dedupe:25".
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
/// With dedupe, n is replaced by the block's content number (a repeat takes the one of the
/// unique block it copies): a few integer operations and one splitmix64_mix per block.
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
    // With dedupe, a repeated block takes an earlier unique block's content number.
    const std::uint64_t content = pattern_.dedupe_percent == 0 ? n : content_of(n);
    std::byte* window = data_ + (content & window_mask_) * window_stride_;
    std::uint64_t stamp = key_ ^ (content * 0x9E3779B97F4A7C15ULL);
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
  /// dedupe: the content number of block n: its ordinal among the unique blocks, or for a
  /// repeat the ordinal of the unique block before it that it copies (drawn from the seed).
  [[nodiscard]] std::uint64_t content_of(std::uint64_t n) const noexcept {
    const std::uint64_t p = pattern_.dedupe_percent;
    // floor(n * p / 100) without overflow: repeats among blocks [0, n).
    const auto repeats_before = [p](std::uint64_t k) { return k / 100 * p + k % 100 * p / 100; };
    const std::uint64_t before = repeats_before(n);
    const std::uint64_t unique_before = n - before;
    if (repeats_before(n + 1) == before) return unique_before;  // unique: the next ordinal
    return splitmix64_mix(dedupe_key_ ^ n) % unique_before;     // block 0 is always unique
  }

  DataPattern pattern_;
  std::size_t block_bytes_ = 0;
  std::byte* data_ = nullptr;
  std::size_t allocated_ = 0;
  std::uint64_t window_mask_ = 0;  ///< windows - 1 (a power of two less one)
  std::size_t window_stride_ = 0;
  std::size_t stamps_ = 0;  ///< stamped segments per block (0: none fit)
  std::uint64_t key_ = 0;
  std::uint64_t dedupe_key_ = 0;
};

}  // namespace iobench
