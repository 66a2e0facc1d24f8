#include "plugins/bonnie/file_names.hpp"

#include <bit>
#include <iobench/random_mix.hpp>

namespace iobench::plugins::bonnie {
namespace {

/// bonnie++'s alphabet for the random part of names, in its order.
constexpr std::string_view kNameChars =
    "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
/// Random characters per name: 0..kRandomExtra (bonnie++'s RandExtraLen).
constexpr std::uint64_t kRandomExtra = 12;
/// Base-62 characters one 64-bit value yields (62^10 < 2^60).
constexpr std::uint64_t kCharsPerValue = 10;
constexpr char kHexDigits[] = "0123456789abcdef";

/// Writes `value` as exactly 10 lower-case hex digits (bonnie++'s "%010x").
char* put_hex10(char* out, std::uint64_t value) noexcept {
  for (int shift = 36; shift >= 0; shift -= 4) {
    *out++ = kHexDigits[(value >> shift) & 0xf];
  }
  return out;
}

}  // namespace

std::uint64_t stream_value(std::uint64_t seed, std::uint64_t salt, std::uint64_t n) noexcept {
  return splitmix64_mix(splitmix64_mix(seed ^ salt) + 0x9e3779b97f4a7c15ULL * (n + 1));
}

FileNamer::FileNamer(std::uint64_t seed, std::uint64_t count, std::uint32_t dirs, bool random_names,
                     std::uint64_t min_bytes, std::uint64_t max_bytes) noexcept
    : seed_(seed),
      count_(count),
      dirs_(dirs == 0 ? 1 : dirs),
      per_dir_(count / (dirs == 0 ? 1 : dirs) + 1),
      random_names_(random_names),
      min_bytes_(min_bytes),
      max_bytes_(max_bytes) {}

std::uint32_t FileNamer::dir_of(std::uint64_t i) const noexcept {
  return dirs_ == 1 ? 0 : static_cast<std::uint32_t>(i / per_dir_);
}

std::size_t FileNamer::dir_name(std::uint32_t dir, NameBuffer& out) noexcept {
  std::uint32_t value = dir;
  for (int pos = 4; pos >= 0; --pos) {
    out[static_cast<std::size_t>(pos)] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out[5] = '\0';
  return 5;
}

std::size_t FileNamer::name_of(std::uint64_t i, NameBuffer& out) const noexcept {
  // Three values of the stream per name: the first gives the length of the random part, the
  // next two its characters (one value holds ten base-62 digits).
  const std::uint64_t salt = random_names_ ? kSaltRandNames : kSaltSeqNames;
  const std::uint64_t base = i * 3;
  const std::uint64_t extra = stream_value(seed_, salt, base) % (kRandomExtra + 1);
  std::uint64_t digits = stream_value(seed_, salt, base + 1);
  char* p = out.data();
  if (!random_names_) p = put_hex10(p, i);
  for (std::uint64_t c = 0; c < extra; ++c) {
    if (c == kCharsPerValue) digits = stream_value(seed_, salt, base + 2);
    *p++ = kNameChars[digits % kNameChars.size()];
    digits /= kNameChars.size();
  }
  if (random_names_) p = put_hex10(p, i);
  *p = '\0';
  return static_cast<std::size_t>(p - out.data());
}

std::size_t FileNamer::path_of(std::uint64_t i, NameBuffer& out) const noexcept {
  if (dirs_ == 1) return name_of(i, out);
  NameBuffer name;
  const std::size_t name_length = name_of(i, name);
  dir_name(dir_of(i), out);
  out[5] = '/';
  for (std::size_t k = 0; k <= name_length; ++k) out[6 + k] = name[k];
  return 6 + name_length;
}

std::uint64_t FileNamer::size_of(std::uint64_t i) const noexcept {
  if (max_bytes_ <= min_bytes_) return max_bytes_;
  const std::uint64_t salt = random_names_ ? kSaltRandSizes : kSaltSeqSizes;
  return min_bytes_ + stream_value(seed_, salt, i) % (max_bytes_ - min_bytes_ + 1);
}

Permutation::Permutation(std::uint64_t n, std::uint64_t key) noexcept
    : n_(n), key_(key), half_bits_(0), half_mask_(0) {
  const unsigned bits = n <= 1 ? 0 : static_cast<unsigned>(std::bit_width(n - 1));
  half_bits_ = (bits + 1) / 2;
  half_mask_ = (std::uint64_t{1} << half_bits_) - 1;
}

std::uint64_t Permutation::encrypt(std::uint64_t x) const noexcept {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & half_mask_;
  for (std::uint64_t round = 0; round < 4; ++round) {
    const std::uint64_t next = left ^ (stream_value(key_, round, right) & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

std::uint64_t Permutation::at(std::uint64_t k) const noexcept {
  if (n_ <= 1) return 0;
  std::uint64_t x = encrypt(k);
  while (x >= n_) x = encrypt(x);
  return x;
}

}  // namespace iobench::plugins::bonnie
