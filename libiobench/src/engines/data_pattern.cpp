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
constexpr std::string_view kDedupePrefix = "dedupe:";

[[noreturn]] void bad_pattern(std::string_view text, std::string_view field, std::string_view why) {
  throw ConfigError(
      fmt::format("{}: '{}' {}; use random, zeros, compressible:PCT (PCT 1 to 99: "
                  "the percent of each 4 KiB that is zeros), bonnie, dedupe:PCT (PCT 1 to 99: "
                  "the percent of blocks that repeat an earlier one) or "
                  "compressible:PCT,dedupe:PCT",
                  field, text, why));
}

// The PCT of `prefix`PCT in `item` (1..99), or a ConfigError naming `text` and `field`.
std::uint32_t parse_percent(std::string_view item, std::string_view prefix, std::string_view text,
                            std::string_view field) {
  const std::string_view digits = item.substr(prefix.size());
  std::uint32_t percent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    bad_pattern(text, field, fmt::format("has no whole percent after '{}'", prefix));
  }
  const bool dedupe = prefix == kDedupePrefix;
  if (percent == 0) {
    bad_pattern(text, field,
                dedupe ? "repeats no block (for 0 % repeated blocks use random)"
                       : "is not compressible (for 0 % zeros use random)");
  }
  if (percent == 100) {
    bad_pattern(text, field,
                dedupe ? "repeats every block, but the first block has none to repeat (use 1 "
                         "to 99)"
                       : "is all zeros (for 100 % zeros use zeros)");
  }
  if (percent > 100) bad_pattern(text, field, "is more than 100 %");
  return percent;
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
  // Up to two comma-separated items: a base pattern and dedupe:PCT (random when alone).
  DataPattern pattern{Kind::kRandom, 0};
  bool base = false;
  bool dedupe = false;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) bad_pattern(text, field, "has an empty item");
    if (item.substr(0, kDedupePrefix.size()) == kDedupePrefix) {
      if (dedupe) bad_pattern(text, field, "gives dedupe twice");
      dedupe = true;
      pattern.dedupe_percent = parse_percent(item, kDedupePrefix, text, field);
      continue;
    }
    if (base) bad_pattern(text, field, "gives two data patterns; only dedupe:PCT combines");
    base = true;
    if (item == "random") {
      pattern.kind = Kind::kRandom;
    } else if (item == "zeros") {
      pattern.kind = Kind::kZeros;
    } else if (item == "bonnie") {
      pattern.kind = Kind::kBonnie;
    } else if (item.substr(0, kCompressiblePrefix.size()) == kCompressiblePrefix) {
      pattern.kind = Kind::kCompressible;
      pattern.compress_percent = parse_percent(item, kCompressiblePrefix, text, field);
    } else {
      bad_pattern(text, field, "is not a data pattern");
    }
  }
  if (dedupe && (pattern.kind == Kind::kZeros || pattern.kind == Kind::kBonnie)) {
    bad_pattern(text, field,
                "combines dedupe with a pattern whose blocks already repeat; dedupe:PCT goes "
                "with random or compressible:PCT");
  }
  return pattern;
}

std::string DataPattern::to_string() const {
  switch (kind) {
    case Kind::kRandom:
      return dedupe_percent == 0 ? "random" : fmt::format("dedupe:{}", dedupe_percent);
    case Kind::kZeros:
      return "zeros";
    case Kind::kCompressible:
      return dedupe_percent == 0
                 ? fmt::format("compressible:{}", compress_percent)
                 : fmt::format("compressible:{},dedupe:{}", compress_percent, dedupe_percent);
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
      "buffer_compress_percentage), bonnie (bonnie++'s buffer), dedupe:PCT (PCT % of blocks "
      "repeat an earlier block exactly, as fio's dedupe_percentage) or "
      "compressible:PCT,dedupe:PCT (both); {}",
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
  // From key_, not the stream: the bytes of every other pattern stay what they were.
  dedupe_key_ = splitmix64_mix(key_ ^ 0x6465'6475'7065ULL);  // "dedupe"
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
      key_(other.key_),
      dedupe_key_(other.dedupe_key_) {}

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
    dedupe_key_ = other.dedupe_key_;
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
