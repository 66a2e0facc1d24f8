#include "plugins/common/ior_data_pattern.hpp"

#include <cstring>

namespace iobench::plugins {
namespace {

constexpr std::size_t kWordBytes = sizeof(std::uint64_t);

// Word i of `p`, unaligned (a buffer of any alignment; memcpy compiles to one load).
std::uint64_t load(const std::byte* p, std::size_t i) noexcept {
  std::uint64_t w = 0;
  std::memcpy(&w, p + i * kWordBytes, kWordBytes);
  return w;
}

void store(std::byte* p, std::size_t i, std::uint64_t w) noexcept {
  std::memcpy(p + i * kWordBytes, &w, kWordBytes);
}

// Whether seed + i stays below 2^32 for every word of a buffer of `words` words: then word i is
// word(0) + i (the rank's bits untouched by the sum), one add in the loops below instead of an
// add and an or (measured: 39 against 50 us/MiB checked). Always, short of a buffer of 2^31
// words (16 GiB) with a seed below 2^31.
bool no_carry(const IorPattern& pattern, std::size_t words) noexcept {
  return std::uint64_t{pattern.seed} + words <= (std::uint64_t{1} << 32);
}

}  // namespace

// The loops below are written for the vectoriser: no early exit, no branch, a running OR (or sum)
// that reassociates. GCC vectorises them at -O2 only with a cost model above its default
// "very-cheap" one, which CMakeLists.txt sets for this file.

void fill_pattern(std::span<std::byte> buf, const IorPattern& pattern) noexcept {
  const std::size_t words = buf.size() / kWordBytes;
  std::byte* const data = buf.data();
  if (no_carry(pattern, words)) {
    const std::uint64_t base = pattern.word(0);
    for (std::size_t i = 0; i < words; ++i) store(data, i, base + i);
  } else {
    for (std::size_t i = 0; i < words; ++i) store(data, i, pattern.word(i));
  }
  for (std::size_t b = words * kWordBytes; b < buf.size(); ++b) data[b] = IorPattern::tail_byte(b);
}

bool matches_pattern(std::span<const std::byte> buf, const IorPattern& pattern) noexcept {
  const std::size_t words = buf.size() / kWordBytes;
  const std::byte* const data = buf.data();
  std::uint64_t differ = 0;
  if (no_carry(pattern, words)) {
    const std::uint64_t base = pattern.word(0);
    for (std::size_t i = 0; i < words; ++i) differ |= load(data, i) ^ (base + i);
  } else {
    for (std::size_t i = 0; i < words; ++i) differ |= load(data, i) ^ pattern.word(i);
  }
  for (std::size_t b = words * kWordBytes; b < buf.size(); ++b)
    differ |= std::to_integer<std::uint64_t>(data[b] ^ IorPattern::tail_byte(b));
  return differ == 0;
}

std::uint64_t count_pattern_differences(std::span<const std::byte> buf,
                                        const IorPattern& pattern) noexcept {
  const std::size_t words = buf.size() / kWordBytes;
  const std::byte* const data = buf.data();
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < words; ++i) count += load(data, i) != pattern.word(i) ? 1 : 0;
  for (std::size_t b = words * kWordBytes; b < buf.size(); ++b)
    count += data[b] != IorPattern::tail_byte(b) ? 1 : 0;
  return count;
}

std::size_t first_pattern_difference(std::span<const std::byte> buf,
                                     const IorPattern& pattern) noexcept {
  const std::size_t words = buf.size() / kWordBytes;
  const std::byte* const data = buf.data();
  for (std::size_t i = 0; i < words; ++i) {
    const std::uint64_t want = pattern.word(i);
    if (load(data, i) == want) continue;
    std::byte bytes[kWordBytes];
    std::memcpy(bytes, &want, kWordBytes);
    for (std::size_t k = 0; k < kWordBytes; ++k) {
      if (data[i * kWordBytes + k] != bytes[k]) return i * kWordBytes + k;
    }
  }
  for (std::size_t b = words * kWordBytes; b < buf.size(); ++b) {
    if (data[b] != IorPattern::tail_byte(b)) return b;
  }
  return buf.size();
}

std::uint32_t pattern_seed(std::string_view group, std::int64_t timestamp_sec,
                           std::int64_t timestamp_nsec) noexcept {
  // 64-bit FNV-1a over the name and the two numbers' bytes, folded to 31 bits.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ULL;
  };
  for (const char c : group) mix(static_cast<unsigned char>(c));
  for (const std::int64_t v : {timestamp_sec, timestamp_nsec}) {
    const auto u = static_cast<std::uint64_t>(v);
    for (int shift = 0; shift < 64; shift += 8) mix(static_cast<unsigned char>(u >> shift));
  }
  const auto seed = static_cast<std::uint32_t>((h ^ (h >> 31) ^ (h >> 62)) & 0x7fffffffU);
  return seed == 0 ? 1 : seed;
}

}  // namespace iobench::plugins
