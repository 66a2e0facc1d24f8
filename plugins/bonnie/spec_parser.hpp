#pragma once

#include <cstdint>
#include <string_view>

namespace iobench::plugins::bonnie {

/// bonnie++'s defaults (bonnie.h of 1.96 to 2.00a).
inline constexpr std::uint32_t kDefaultChunkBytes = 8192;
inline constexpr std::uint64_t kDefaultSeeks = 8192;
inline constexpr std::uint32_t kDefaultSeekers = 5;
inline constexpr std::uint32_t kDefaultNumFilesK = 16;
/// Files are counted in units of 1024 (bonnie++'s DirectoryUnit).
inline constexpr std::uint64_t kFilesUnit = 1024;
/// bonnie++ refuses 100000 directories or more ("Can't have more than 99,999 directories").
inline constexpr std::uint32_t kMaxDirs = 99999;
/// I/O chunk limits: a power of two in [256, 1 MiB].
inline constexpr std::uint32_t kMinChunkBytes = 256;
inline constexpr std::uint32_t kMaxChunkBytes = 1024 * 1024;
/// Limits of the seeks and seekers fields.
inline constexpr std::uint64_t kMaxSeeks = std::uint64_t{1} << 40;
inline constexpr std::uint32_t kMaxSeekers = 1024;

/// The I/O test shape, bonnie++ `-s size[:chunk[:seeks[:seekers]]]`.
struct IoSpec {
  std::uint64_t size_mib = 0;  ///< file size in MiB; 0 = the I/O tests are off
  std::uint32_t chunk_bytes = kDefaultChunkBytes;
  std::uint64_t seeks = kDefaultSeeks;      ///< random seeks per copy
  std::uint32_t seekers = kDefaultSeekers;  ///< concurrent seeker workers per copy
  friend bool operator==(const IoSpec&, const IoSpec&) = default;
};

/// What the file tests create instead of regular files (bonnie++ max_size -1 / -2).
enum class FileKind {
  kRegular,   ///< files of min..max bytes
  kHardLink,  ///< one empty file, the others link(2)ed to it (max = -1)
  kSymlink,   ///< one empty file, the others symlink(2)s to it (max = -2)
};

/// The file test shape, bonnie++ `-n num[:max[:min[:dirs[:chunk]]]]`.
struct FileSpec {
  std::uint64_t num_k = kDefaultNumFilesK;  ///< files in units of 1024; 0 = file tests off
  FileKind kind = FileKind::kRegular;
  std::uint64_t max_bytes = 0;  ///< largest file; 0 = empty files (kRegular only)
  std::uint64_t min_bytes = 0;  ///< smallest file (kRegular only)
  std::uint32_t dirs = 1;       ///< subdirectories `00000`...; 1 = all files in the test directory
  std::uint32_t chunk_bytes = kDefaultChunkBytes;  ///< write/read piece size for file data
  /// Number of files (num_k x 1024).
  [[nodiscard]] std::uint64_t count() const noexcept { return num_k * kFilesUnit; }
  friend bool operator==(const FileSpec&, const FileSpec&) = default;
};

/// Parses bonnie++'s `-s` text "size[:chunk[:seeks[:seekers]]]".
/// - size: MiB, optional suffix m (MiB), g (GiB) or t (TiB), as bonnie++ reads it; "0" turns the
/// I/O
///   tests off and then takes no other field.
/// - chunk: bytes with optional suffix k or m; a power of two in [256, 1m] (bonnie++'s limits).
/// - seeks: count with optional suffix k (x1024); 0 skips the seeks phase.
/// - seekers: plain count, at most 1024; 0 skips the seeks phase.
/// Every field must be non-empty: bonnie++ reads "16::10" as size 16 and chunk 10 (its tokenizer
/// drops empty fields), which is never what was meant, so it is rejected here.
/// Throws ConfigError naming `field`, the text, the bad part and the fix.
[[nodiscard]] IoSpec parse_io_spec(std::string_view text, std::string_view field);

/// Parses bonnie++'s `-n` text "num[:max[:min[:dirs[:chunk]]]]".
/// - num: files in units of 1024, optional suffix m (x1024); at most 28339 (bonnie++'s name-table
///   limit); "0" turns the file tests off and then takes no other field.
/// - max: bytes with optional suffix k, m or g; or -1 / "link" (hard links), -2 / "symlink".
/// - min: bytes with optional suffix k, m or g; min <= max; only 0 with link or symlink.
/// - dirs: 1..99999, optional suffix k (x1024).
/// - chunk: bytes with optional suffix k, m or g; 1 byte .. 64 MiB.
/// Empty fields are rejected for the same reason as in parse_io_spec.
/// Throws ConfigError naming `field`, the text, the bad part and the fix.
[[nodiscard]] FileSpec parse_file_spec(std::string_view text, std::string_view field);

/// Largest `num` bonnie++ accepts whatever the RAM: num x 37 bytes of names (in KiB) must stay
/// under 1 GiB ("Not enough ram to test with %dK files").
inline constexpr std::uint64_t kMaxNumFilesK = (std::uint64_t{1} << 20) / 37;

}  // namespace iobench::plugins::bonnie
