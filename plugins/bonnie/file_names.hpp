#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace iobench::plugins::bonnie {

/// A counter-based random stream: value `n` of stream (`seed`, `salt`) is a pure function of its
/// arguments (SplitMix64 finaliser), so every worker, process and repetition can recompute any
/// name, size or seek offset without storing or sharing generator state. bonnie++ re-seeds its
/// generator with the same seed for each repetition (-x), so repetitions see identical names and
/// offsets; this gives the same.
[[nodiscard]] std::uint64_t stream_value(std::uint64_t seed, std::uint64_t salt,
                                         std::uint64_t n) noexcept;

/// Longest relative path name_of() writes: "%05d/" (6) + 10 hex digits + 12 random characters.
inline constexpr std::size_t kMaxNameLength = 6 + 10 + 12;
/// Buffer for one name plus its terminating NUL (the names go straight to *at(2) calls).
using NameBuffer = std::array<char, kMaxNameLength + 1>;

/// bonnie++'s file names and layout for one file test (sequential or random names), computed on
/// demand. Memory is constant whatever the file count (bonnie++ keeps a 37-byte-per-file table).
///
/// Layout, as bonnie++ 1.96-2.00a makes it:
/// - name i = 10 lower-case hex digits of i then 0..12 random characters ("sequential"), or the
///   random characters first ("random"); the characters come from [a-z0-9A-Z], the length from
///   the same stream (uniform 0..12).
/// - with dirs > 1 a name is prefixed by its directory "%05d/"; files go to directories in index
///   order, N/dirs + 1 per directory until the files run out (1024 files in 3 directories:
///   342, 342, 340).
/// - file size: max when min == max, else min + uniform(0 .. max-min).
class FileNamer {
 public:
  /// `count` files (N), `dirs` >= 1, `random_names` chooses the random-prefixed form. `seed`
  /// fixes the random parts.
  FileNamer(std::uint64_t seed, std::uint64_t count, std::uint32_t dirs, bool random_names,
            std::uint64_t min_bytes, std::uint64_t max_bytes) noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint32_t dirs() const noexcept { return dirs_; }
  /// Directory index of file `i` (0 when dirs == 1).
  [[nodiscard]] std::uint32_t dir_of(std::uint64_t i) const noexcept;
  /// Writes the path of file `i` relative to the test directory, NUL-terminated, into `out`;
  /// returns its length. Allocation-free.
  std::size_t path_of(std::uint64_t i, NameBuffer& out) const noexcept;
  /// The file name of file `i` without its directory prefix.
  std::size_t name_of(std::uint64_t i, NameBuffer& out) const noexcept;
  /// Size in bytes file `i` is created with.
  [[nodiscard]] std::uint64_t size_of(std::uint64_t i) const noexcept;
  /// Writes directory `dir`'s name "%05d" (NUL-terminated) into `out`; returns its length.
  static std::size_t dir_name(std::uint32_t dir, NameBuffer& out) noexcept;

 private:
  std::uint64_t seed_;
  std::uint64_t count_;
  std::uint32_t dirs_;
  std::uint64_t per_dir_;  // files per directory: count / dirs + 1
  bool random_names_;
  std::uint64_t min_bytes_;
  std::uint64_t max_bytes_;
};

/// A pseudo-random permutation of 0..n-1 with constant memory: a 4-round Feistel network over
/// the smallest even-bit domain >= n, cycle-walking values >= n (at most 4x the domain, so about
/// 2 rounds of walking on average). Stands in for bonnie++'s in-place shuffle of its name table
/// before the random stat and random delete tests (same seed: same order).
class Permutation {
 public:
  Permutation(std::uint64_t n, std::uint64_t key) noexcept;
  /// The k-th element, k < n.
  [[nodiscard]] std::uint64_t at(std::uint64_t k) const noexcept;
  [[nodiscard]] std::uint64_t size() const noexcept { return n_; }

 private:
  [[nodiscard]] std::uint64_t encrypt(std::uint64_t x) const noexcept;
  std::uint64_t n_;
  std::uint64_t key_;
  unsigned half_bits_;
  std::uint64_t half_mask_;
};

/// Salts of the streams the workload draws from (distinct streams for distinct purposes).
inline constexpr std::uint64_t kSaltSeqNames = 0x5345514e414d4553ULL;
inline constexpr std::uint64_t kSaltRandNames = 0x52414e4e414d4553ULL;
inline constexpr std::uint64_t kSaltSeqSizes = 0x53455153495a4553ULL;
inline constexpr std::uint64_t kSaltRandSizes = 0x52414e53495a4553ULL;
inline constexpr std::uint64_t kSaltStatOrder = 0x535441544f524452ULL;
inline constexpr std::uint64_t kSaltDeleteOrder = 0x44454c4f52444552ULL;
inline constexpr std::uint64_t kSaltSeeks = 0x5345454b5449434bULL;

}  // namespace iobench::plugins::bonnie
