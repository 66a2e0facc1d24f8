#pragma once

// IOR's default data pattern (its "timestamp" dataPacketType), shared by the families that write
// it and check it: IO500's ior and mdtest write phases write it and its read phases check it
// (ior-easy-read and ior-hard-read run `ior -r -R`, every 8-byte word of every transfer
// compared; mdtest-hard-read runs `mdtest -E -X`, every 3901-byte file's content compared), and
// the mdtest workload writes it into every file it creates and, with verify_read (mdtest -X),
// checks every byte its read phase reads.
//
// The pattern of rank R with seed S: 64-bit word i of a buffer (i from 0 at the buffer's first
// byte) is (R << 32) | (S + i), stored in the machine's byte order; a buffer whose size is not a
// multiple of 8 ends with bytes b = 8 x words ... size - 1, each (b mod 256). It depends on the
// rank and the seed only: every transfer of a rank holds the same bytes (IOR's offsets and item
// numbers enter only its other packet types), so that a block of the shared ior-hard file is
// told from its neighbours by the rank that wrote it, and a rank's data read at another rank's
// place shows in every word. IO500 gives each of ior-easy, ior-hard and mdtest-hard its own seed
// (ior -G / mdtest -G, a hash of the phase's name and the run's timestamp); iobench derives its
// own from the same two things (pattern_seed()).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace iobench::plugins {

/// The pattern one rank writes: its rank (IOR's "pretend rank", the rank whose data it is) and
/// the phase's seed. IOR takes the seed as a C int and adds the word index to it in 64 bits, so
/// a seed of 2^31 or more (IO500's 32-bit hash is one about half the time: its result.txt shows
/// e.g. mdtest -G=-1556288259) is negative there, sign-extended, and sets the whole high half of
/// every word, hiding the rank. Seeds from pattern_seed() are below 2^31, where IOR's sum is the
/// unsigned one used here and every word carries the rank.
struct IorPattern {
  std::uint32_t rank = 0;
  std::uint32_t seed = 0;

  /// Word `i` of a buffer: (rank << 32) | (seed + i), the sum taken in 64 bits.
  [[nodiscard]] constexpr std::uint64_t word(std::uint64_t i) const noexcept {
    return (std::uint64_t{rank} << 32) | (std::uint64_t{seed} + i);
  }
  /// Byte `b` of the partial word at the end of a buffer (b >= 8 x whole words): b mod 256.
  [[nodiscard]] static constexpr std::byte tail_byte(std::size_t b) noexcept {
    return static_cast<std::byte>(b & 0xff);
  }
};

/// Fills `buf` with `pattern` (the words, then the tail bytes of a partial last word). A word
/// loop the compiler vectorises: 20-21 GB/s of CPU measured (tests/bench/io500_pattern_bench).
void fill_pattern(std::span<std::byte> buf, const IorPattern& pattern) noexcept;

/// Whether `buf` holds `pattern` exactly, every word and every tail byte compared (what IOR's
/// -R and mdtest's -X compare per transfer or file). Reads all of `buf` whatever it finds, so its
/// cost does not depend on the data; a vectorised word loop (tests/bench/io500_pattern_bench
/// measures its cost per MiB).
[[nodiscard]] bool matches_pattern(std::span<const std::byte> buf,
                                   const IorPattern& pattern) noexcept;

/// How many words of `buf`, plus tail bytes, differ from `pattern` (0 when matches_pattern()):
/// for reporting how much of a transfer was wrong; slower than matches_pattern().
[[nodiscard]] std::uint64_t count_pattern_differences(std::span<const std::byte> buf,
                                                      const IorPattern& pattern) noexcept;

/// The byte offset in `buf` of its first byte that differs from `pattern` (words and tail bytes
/// as fill_pattern() writes a buffer of buf.size()), or buf.size() when it matches: where a
/// check that failed (matches_pattern() false) names the damage. Stops at the first difference.
[[nodiscard]] std::size_t first_pattern_difference(std::span<const std::byte> buf,
                                                   const IorPattern& pattern) noexcept;

/// The seed of one phase group's pattern ("ior-easy", "ior-hard", "mdtest-hard"): a hash of the
/// group's name and the run's timestamp (seconds, nanoseconds), so that the write phase and the
/// read phase of one run agree (on every process of an mpirun: they share the timestamp) and a
/// file left by another run or another group does not match. In [1, 2^31).
[[nodiscard]] std::uint32_t pattern_seed(std::string_view group, std::int64_t timestamp_sec,
                                         std::int64_t timestamp_nsec) noexcept;

}  // namespace iobench::plugins
