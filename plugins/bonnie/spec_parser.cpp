#include "plugins/bonnie/spec_parser.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cctype>
#include <iobench/error.hpp>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace iobench::plugins::bonnie {
namespace {

constexpr std::uint64_t kKi = 1024;

/// One suffix letter a field accepts and what it multiplies by.
struct Suffix {
  char letter;  // lower case; upper case is accepted too
  std::uint64_t multiplier;
};

/// Reports a bad field: "<field>: '<text>': <what>; <fix>".
[[noreturn]] void fail(std::string_view field, std::string_view text, const std::string& what,
                       std::string_view fix) {
  throw ConfigError(fmt::format("bonnie: {}='{}': {}; {}", field, text, what, fix));
}

/// Splits on ':' keeping empty parts (so they can be rejected).
std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = text.find(':', start);
    if (colon == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
}

/// Digits with an optional single suffix from `suffixes`; nullopt if malformed or overflowing.
std::optional<std::uint64_t> parse_number(std::string_view part, std::span<const Suffix> suffixes) {
  if (part.empty()) return std::nullopt;
  std::uint64_t multiplier = 1;
  const char last = part.back();
  if (std::isalpha(static_cast<unsigned char>(last)) != 0) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(last)));
    bool known = false;
    for (const Suffix& s : suffixes) {
      if (s.letter == lower) {
        multiplier = s.multiplier;
        known = true;
      }
    }
    if (!known) return std::nullopt;
    part.remove_suffix(1);
  }
  if (part.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : part) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (value != 0 && multiplier > std::numeric_limits<std::uint64_t>::max() / value) {
    return std::nullopt;
  }
  return value * multiplier;
}

void reject_empty_fields(std::string_view field, std::string_view text,
                         const std::vector<std::string_view>& parts, std::string_view shape) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) {
      fail(field, text, fmt::format("field {} of {} is empty", i + 1, shape),
           "write every field up to the last one you set, e.g. the default value (bonnie++ "
           "would silently shift the later fields)");
    }
  }
}

constexpr std::array kSizeSuffixes{Suffix{'m', 1}, Suffix{'g', kKi}, Suffix{'t', kKi* kKi}};
constexpr std::array kChunkSuffixes{Suffix{'k', kKi}, Suffix{'m', kKi* kKi}};
constexpr std::array kCountKSuffixes{Suffix{'k', kKi}};
constexpr std::array kNumFilesSuffixes{Suffix{'m', kKi}};
constexpr std::array kBytesSuffixes{Suffix{'k', kKi}, Suffix{'m', kKi* kKi},
                                    Suffix{'g', kKi* kKi* kKi}};
constexpr std::span<const Suffix> kNoSuffixes{};

/// Largest I/O file: its size in bytes must fit a signed 64-bit offset.
constexpr std::uint64_t kMaxSizeMib = std::uint64_t{1} << 42;
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 40;
constexpr std::uint32_t kMaxFileChunkBytes = 64 * 1024 * 1024;

}  // namespace

IoSpec parse_io_spec(std::string_view text, std::string_view field) {
  constexpr std::string_view kShape = "size[:chunk[:seeks[:seekers]]]";
  const auto parts = split_fields(text);
  if (parts.size() > 4) {
    fail(field, text, fmt::format("{} fields, at most 4 ({})", parts.size(), kShape),
         "e.g. 2g:8k:8192:5");
  }
  reject_empty_fields(field, text, parts, kShape);

  IoSpec spec;
  const auto size = parse_number(parts[0], kSizeSuffixes);
  if (!size || *size > kMaxSizeMib) {
    fail(field, text, fmt::format("size '{}' is not a size in MiB", parts[0]),
         "use MiB with an optional suffix m, g or t, e.g. 512, 2g (0 turns the I/O tests off)");
  }
  spec.size_mib = *size;
  if (spec.size_mib == 0) {
    if (parts.size() > 1) {
      fail(field, text, "size 0 turns the I/O tests off and takes no other field", "write 0");
    }
    return spec;
  }
  if (parts.size() > 1) {
    const auto chunk = parse_number(parts[1], kChunkSuffixes);
    if (!chunk || *chunk < kMinChunkBytes || *chunk > kMaxChunkBytes ||
        !std::has_single_bit(*chunk)) {
      fail(field, text,
           fmt::format("chunk '{}' is not a power of two between 256 and 1m bytes", parts[1]),
           "use e.g. 4k, 8k (the default) or 64k");
    }
    spec.chunk_bytes = static_cast<std::uint32_t>(*chunk);
  }
  if (parts.size() > 2) {
    const auto seeks = parse_number(parts[2], kCountKSuffixes);
    if (!seeks || *seeks > kMaxSeeks) {
      fail(field, text, fmt::format("seeks '{}' is not a count", parts[2]),
           "use a whole number with an optional suffix k (x1024), e.g. 8192 or 8k");
    }
    spec.seeks = *seeks;
  }
  if (parts.size() > 3) {
    const auto seekers = parse_number(parts[3], kNoSuffixes);
    if (!seekers || *seekers > kMaxSeekers) {
      fail(field, text, fmt::format("seekers '{}' is not a count from 0 to 1024", parts[3]),
           "use e.g. 5 (the default)");
    }
    spec.seekers = static_cast<std::uint32_t>(*seekers);
  }
  if (spec.size_mib * kKi * kKi < spec.chunk_bytes) {
    fail(field, text, "the file is smaller than one chunk", "use a larger size or a smaller chunk");
  }
  return spec;
}

FileSpec parse_file_spec(std::string_view text, std::string_view field) {
  constexpr std::string_view kShape = "num[:max[:min[:dirs[:chunk]]]]";
  const auto parts = split_fields(text);
  if (parts.size() > 5) {
    fail(field, text, fmt::format("{} fields, at most 5 ({})", parts.size(), kShape),
         "e.g. 16:4k:1k:4:8k");
  }
  reject_empty_fields(field, text, parts, kShape);

  FileSpec spec;
  const auto num = parse_number(parts[0], kNumFilesSuffixes);
  if (!num) {
    fail(field, text, fmt::format("num '{}' is not a count of 1024-file units", parts[0]),
         "use e.g. 16 (16384 files) or 1m (1024 x 1024 files); 0 turns the file tests off");
  }
  if (*num > kMaxNumFilesK) {
    fail(field, text,
         fmt::format("num {} (x1024 files) is more than bonnie++ can name ({} at most)", *num,
                     kMaxNumFilesK),
         "use fewer files");
  }
  spec.num_k = *num;
  if (spec.num_k == 0) {
    if (parts.size() > 1) {
      fail(field, text, "num 0 turns the file tests off and takes no other field", "write 0");
    }
    return spec;
  }
  if (parts.size() > 1) {
    const std::string_view max = parts[1];
    if (max == "-1" || max == "link") {
      spec.kind = FileKind::kHardLink;
    } else if (max == "-2" || max == "symlink") {
      spec.kind = FileKind::kSymlink;
    } else {
      const auto bytes = parse_number(max, kBytesSuffixes);
      if (!bytes || *bytes > kMaxFileBytes) {
        fail(field, text, fmt::format("max '{}' is not a file size", max),
             "use bytes with an optional suffix k, m or g, or -1 (hard links) or -2 "
             "(symlinks)");
      }
      spec.max_bytes = *bytes;
    }
  }
  if (parts.size() > 2) {
    const auto bytes = parse_number(parts[2], kBytesSuffixes);
    if (!bytes) {
      fail(field, text, fmt::format("min '{}' is not a file size", parts[2]),
           "use bytes with an optional suffix k, m or g");
    }
    if (spec.kind != FileKind::kRegular && *bytes != 0) {
      fail(field, text, "min has no meaning with links or symlinks", "leave min out or give 0");
    }
    if (*bytes > spec.max_bytes) {
      fail(field, text, fmt::format("min {} is larger than max {}", *bytes, spec.max_bytes),
           "give min <= max");
    }
    spec.min_bytes = *bytes;
  }
  if (parts.size() > 3) {
    const auto dirs = parse_number(parts[3], kCountKSuffixes);
    if (!dirs || *dirs == 0 || *dirs > kMaxDirs) {
      fail(field, text, fmt::format("dirs '{}' is not a directory count from 1 to 99999", parts[3]),
           "use e.g. 1 (all files in one directory) or 64");
    }
    spec.dirs = static_cast<std::uint32_t>(*dirs);
  }
  if (parts.size() > 4) {
    const auto chunk = parse_number(parts[4], kBytesSuffixes);
    if (!chunk || *chunk == 0 || *chunk > kMaxFileChunkBytes) {
      fail(field, text, fmt::format("chunk '{}' is not a size from 1 byte to 64m", parts[4]),
           "use e.g. 8k (the default)");
    }
    spec.chunk_bytes = static_cast<std::uint32_t>(*chunk);
  }
  return spec;
}

}  // namespace iobench::plugins::bonnie
