#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/disk/block_order.hpp"

namespace iobench::plugins::disk {

/// fio's bssplit: the block size of each op drawn from a mix ("4k/50:64k/40:1m/10": 50 % of ops
/// 4 KiB, 40 % 64 KiB, 10 % 1 MiB), one list for all ops or, comma-separated as fio takes them,
/// one for reads, one for writes and one for trims ("4k/100,64k/50:1m/50"; a missing list is the
/// one before it). A size without a percentage shares what the others leave evenly (as in fio).
/// Each list is a 100-entry table of size indices, so picking a size is one multiply-shift and
/// one table lookup per op, with no allocation.
class BlockSizeSplit {
 public:
  /// The ops a list applies to.
  enum class List : std::uint8_t { kRead = 0, kWrite = 1, kTrim = 2 };
  /// At most this many distinct sizes over the lists (one result counter each).
  static constexpr std::size_t kMaxSizes = 12;

  BlockSizeSplit() = default;

  /// Parses `text` (the value of param `param`). Throws ConfigError naming the param, the value
  /// and the fix for: an entry that is not SIZE/PERCENT or SIZE, a size of 0 or above
  /// `max_size_bytes`, a size that is not a multiple of `multiple_of` (1: any), percentages that
  /// do not sum to 100 (or, with sizes without one, exceed 100), more than kMaxSizes sizes or more
  /// than 3 lists.
  [[nodiscard]] static BlockSizeSplit parse(std::string_view text, std::string_view param,
                                            std::uint64_t max_size_bytes,
                                            std::uint64_t multiple_of);

  /// True when no split was given (every op uses the step's single block size).
  [[nodiscard]] bool empty() const noexcept { return sizes_.empty(); }
  /// The distinct sizes, ascending, in bytes.
  [[nodiscard]] const std::vector<std::uint64_t>& sizes() const noexcept { return sizes_; }
  /// The largest size: the block grid ops start on.
  [[nodiscard]] std::uint64_t max_size() const noexcept {
    return sizes_.empty() ? 0 : sizes_.back();
  }
  /// Mean op size of `list` in bytes (what a pass of N ops moves, N x this, on average).
  [[nodiscard]] double mean_size(List list) const noexcept;

  /// Index into sizes() of the op size for random bits `random` (uniform 64 bits). Hot path.
  [[nodiscard]] std::uint8_t pick(List list, std::uint64_t random) const noexcept {
    const auto percent = static_cast<std::size_t>(((random >> 32) * 100) >> 32);  // [0, 100)
    return tables_[static_cast<std::size_t>(list)][percent];
  }

  /// "4k/50:64k/40:1m/10" as given, for the result's attributes.
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  std::vector<std::uint64_t> sizes_;
  std::array<std::array<std::uint8_t, 100>, 3> tables_{};
  std::string text_;
};

}  // namespace iobench::plugins::disk
