#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/random_mix.hpp>
#include <new>
#include <utility>

namespace iobench {
namespace {

constexpr std::string_view kCompressiblePrefix = "compressible:";

[[noreturn]] void bad_pattern(std::string_view text, std::string_view field, std::string_view why) {
  throw ConfigError(
      fmt::format("{}: '{}' {}; use random, zeros, compressible:PCT (PCT 1 to 99: "
                  "the percent of each 4 KiB that is zeros) or bonnie",
                  field, text, why));
}

void fill_random(std::byte* out, std::size_t bytes, std::uint64_t& state) noexcept {
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t word = splitmix64(state);
    std::memcpy(out + i, &word, std::min<std::size_t>(8, bytes - i));
  }
}

// Random bytes at the start of a compressible segment of `segment` bytes (fio's
// `segment * (100 - percentage) / 100`).
std::size_t random_part(std::size_t segment, std::uint32_t zero_percent) noexcept {
  return segment * (100 - zero_percent) / 100;
}

}  // namespace

DataPattern DataPattern::parse(std::string_view text, std::string_view field) {
  if (text == "random") return {Kind::kRandom, 0};
  if (text == "zeros") return {Kind::kZeros, 0};
  if (text == "bonnie") return {Kind::kBonnie, 0};
  if (text.substr(0, kCompressiblePrefix.size()) != kCompressiblePrefix) {
    bad_pattern(text, field, "is not a data pattern");
  }
  const std::string_view digits = text.substr(kCompressiblePrefix.size());
  std::uint32_t percent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    bad_pattern(text, field, "has no whole percent after 'compressible:'");
  }
  if (percent == 0) bad_pattern(text, field, "is not compressible (for 0 % zeros use random)");
  if (percent == 100) bad_pattern(text, field, "is all zeros (for 100 % zeros use zeros)");
  if (percent > 100) bad_pattern(text, field, "is more than 100 %");
  return {Kind::kCompressible, percent};
}

std::string DataPattern::to_string() const {
  switch (kind) {
    case Kind::kRandom:
      return "random";
    case Kind::kZeros:
      return "zeros";
    case Kind::kCompressible:
      return fmt::format("compressible:{}", compress_percent);
    case Kind::kBonnie:
      return "bonnie";
  }
  return "random";
}

ParamSpec data_param_spec(std::string default_value, std::string_view origin) {
  ParamSpec spec;
  spec.key = "data";
  spec.type = ParamType::kString;
  spec.default_value = std::move(default_value);
  spec.help = fmt::format(
      "bytes written: random, zeros, compressible:PCT (PCT % of each 4 KiB zero, as fio's "
      "buffer_compress_percentage) or bonnie (bonnie++'s buffer); {}",
      origin);
  return spec;
}

PatternBuffer::PatternBuffer(const DataPattern& pattern, std::size_t block_bytes,
                             std::uint64_t seed)
    : pattern_(pattern), block_bytes_(std::max<std::size_t>(block_bytes, 1)) {
  const std::size_t align = AlignedBuffer::kAlignment;
  const bool ring = pattern_.kind == DataPattern::Kind::kRandom ||
                    pattern_.kind == DataPattern::Kind::kCompressible;
  std::size_t windows = 1;
  if (ring) {
    window_stride_ = (block_bytes_ + kSegmentBytes - 1) / kSegmentBytes * kSegmentBytes;
    windows = std::bit_floor(std::max<std::size_t>(1, kRingBytes / window_stride_));
    window_mask_ = windows - 1;
  }
  const std::size_t bytes = ring ? windows * window_stride_ : block_bytes_;
  allocated_ = (bytes + align - 1) / align * align;
  if (pattern_.kind == DataPattern::Kind::kZeros) {
    // Pages the kernel gives zeroed and nobody writes: reads (a write(2) from them) map its
    // shared zero page, so the block costs no memory however large (as dbench's calloc'd one).
    void* memory =
        ::mmap(nullptr, allocated_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<std::byte*>(memory);
    return;
  }
  void* memory = std::aligned_alloc(align, allocated_);
  if (memory == nullptr) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(memory);
  std::memset(data_, 0, allocated_);
  if (!ring) return;

  std::uint64_t state = seed ^ 0x6461'7461'7061'7474ULL;  // "datapatt"
  key_ = splitmix64(state);
  const std::size_t segment = std::min(kSegmentBytes, block_bytes_);
  const std::uint32_t zeros =
      pattern_.kind == DataPattern::Kind::kCompressible ? pattern_.compress_percent : 0;
  for (std::size_t w = 0; w < windows; ++w) {
    std::byte* window = data_ + w * window_stride_;
    for (std::size_t at = 0; at < block_bytes_; at += segment) {
      const std::size_t length = std::min(segment, block_bytes_ - at);
      fill_random(window + at, random_part(length, zeros), state);
    }
  }
  // A stamp goes where the random part of a segment has room for it.
  const std::size_t full_segments = block_bytes_ / segment;
  const std::size_t tail = block_bytes_ % segment;
  if (random_part(segment, zeros) >= sizeof(std::uint64_t)) {
    stamps_ = full_segments + (random_part(tail, zeros) >= sizeof(std::uint64_t) ? 1 : 0);
  }
}

PatternBuffer::PatternBuffer(PatternBuffer&& other) noexcept
    : pattern_(other.pattern_),
      block_bytes_(other.block_bytes_),
      data_(std::exchange(other.data_, nullptr)),
      allocated_(std::exchange(other.allocated_, 0)),
      window_mask_(other.window_mask_),
      window_stride_(other.window_stride_),
      stamps_(other.stamps_),
      key_(other.key_) {}

PatternBuffer& PatternBuffer::operator=(PatternBuffer&& other) noexcept {
  if (this != &other) {
    release();
    pattern_ = other.pattern_;
    block_bytes_ = other.block_bytes_;
    data_ = std::exchange(other.data_, nullptr);
    allocated_ = std::exchange(other.allocated_, 0);
    window_mask_ = other.window_mask_;
    window_stride_ = other.window_stride_;
    stamps_ = other.stamps_;
    key_ = other.key_;
  }
  return *this;
}

void PatternBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (pattern_.kind == DataPattern::Kind::kZeros) {
    (void)::munmap(data_, allocated_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
}

PatternBuffer::~PatternBuffer() { release(); }

}  // namespace iobench
