#pragma once

/// Bounds iobench puts on what a .f file may ask for, so that every size, time and count the
/// interpreter computes stays in range (no overflow in bytes or nanoseconds), and the check of a
/// name used as a path in the run directory.

#include <cstdint>
#include <string_view>

namespace iobench::plugins::filebench {

/// Largest file size, fixed or a cvar's mean: 2^44 bytes (16 TiB).
inline constexpr std::uint64_t kMaxSizeBytes = 1ULL << 44;
/// Longest delay flowop: one day, in seconds.
inline constexpr double kMaxDelaySeconds = 86400;
/// Longest `run N`: 30 days, in seconds.
inline constexpr std::uint64_t kMaxRunSeconds = 30ULL * 86400;
/// Most iterations of a hog flowop (about a second of CPU at 1 ns each).
inline constexpr std::uint64_t kMaxHogIterations = 1'000'000'000;
/// Most thread instances of a file (processes x instances x thread instances).
inline constexpr std::uint64_t kMaxThreads = 4096;

/// Why `name` cannot name a fileset, a file or a flowop, or "" if it can. A path name (fileset
/// or file) is one path component: not empty, no '/', not "." or ".."; no name holds a control
/// byte, nor (the formatter joins flowop names with commas) a ','.
[[nodiscard]] inline std::string_view bad_name(std::string_view name, bool path) noexcept {
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return "holds a control byte";
    if (c == ',') return "holds a ','";
    if (path && c == '/') return "holds a '/'; give one path component";
  }
  if (path && (name == "." || name == "..")) return "is '.' or '..'; give a plain file name";
  return {};
}

}  // namespace iobench::plugins::filebench
