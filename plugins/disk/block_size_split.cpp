#include "plugins/disk/block_size_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iobench/error.hpp>
#include <iobench/units.hpp>

namespace iobench::plugins::disk {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

struct Entry {
  std::uint64_t size = 0;
  int percent = -1;  // -1: shares the rest
};

}  // namespace

BlockSizeSplit BlockSizeSplit::parse(std::string_view text, std::string_view param,
                                     std::uint64_t max_size_bytes, std::uint64_t multiple_of) {
  const auto fail = [&](std::string_view why) {
    return ConfigError(fmt::format(
        "disk: {}='{}': {}; use SIZE/PERCENT entries joined by ':' with percentages summing to "
        "100 (e.g. {}=4k/50:64k/40:1m/10), optionally separate read,write,trim lists",
        param, text, why, param));
  };
  BlockSizeSplit split_result;
  split_result.text_ = std::string(text);
  const std::vector<std::string_view> lists = split(text, ',');
  if (lists.size() > 3) throw fail("more than 3 comma-separated lists (read,write,trim)");
  std::vector<std::vector<Entry>> parsed;
  for (const std::string_view list : lists) {
    if (list.empty()) throw fail("an empty list");
    std::vector<Entry> entries;
    int given = 0;
    int open = 0;
    for (const std::string_view item : split(list, ':')) {
      const std::size_t slash = item.find('/');
      const std::string_view size_text = item.substr(0, slash);
      Entry entry;
      if (size_text.empty()) throw fail(fmt::format("entry '{}' has no size", item));
      try {
        entry.size = parse_size(size_text, param);
      } catch (const ConfigError&) {
        throw fail(fmt::format("'{}' is not a size", size_text));
      }
      if (entry.size == 0 || entry.size > max_size_bytes) {
        throw fail(fmt::format("block size {} is out of range (1 to {} bytes)", size_text,
                               max_size_bytes));
      }
      if (entry.size % multiple_of != 0) {
        throw fail(fmt::format("block size {} is not a multiple of {} bytes (mode=direct)",
                               size_text, multiple_of));
      }
      if (slash != std::string_view::npos && slash + 1 < item.size()) {
        const std::string_view pct = item.substr(slash + 1);
        int value = -1;
        const auto [end, ec] = std::from_chars(pct.data(), pct.data() + pct.size(), value);
        if (ec != std::errc() || end != pct.data() + pct.size() || value < 0 || value > 100) {
          throw fail(fmt::format("'{}' is not a percentage from 0 to 100", pct));
        }
        entry.percent = value;
        given += value;
      } else {
        ++open;
      }
      entries.push_back(entry);
    }
    if (given > 100) throw fail(fmt::format("the percentages sum to {}, not 100", given));
    if (open == 0 && given != 100) {
      throw fail(fmt::format("the percentages sum to {}, not 100", given));
    }
    // Sizes without a percentage share the rest evenly; the first of them takes the remainder.
    int rest = 100 - given;
    for (Entry& entry : entries) {
      if (entry.percent >= 0) continue;
      entry.percent = rest / open + (rest % open != 0 ? 1 : 0);
      rest -= entry.percent;
      --open;
    }
    parsed.push_back(std::move(entries));
  }
  for (const auto& entries : parsed) {
    for (const Entry& entry : entries) split_result.sizes_.push_back(entry.size);
  }
  auto& sizes = split_result.sizes_;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.size() > kMaxSizes) {
    throw fail(fmt::format("{} distinct block sizes, more than {}", sizes.size(), kMaxSizes));
  }
  for (std::size_t list = 0; list < 3; ++list) {
    const auto& entries = parsed[std::min(list, parsed.size() - 1)];
    std::size_t slot = 0;
    for (const Entry& entry : entries) {
      const auto index = static_cast<std::uint8_t>(
          std::lower_bound(sizes.begin(), sizes.end(), entry.size) - sizes.begin());
      for (int i = 0; i < entry.percent; ++i) split_result.tables_[list][slot++] = index;
    }
  }
  return split_result;
}

double BlockSizeSplit::mean_size(List list) const noexcept {
  if (sizes_.empty()) return 0;
  double sum = 0;
  for (const std::uint8_t index : tables_[static_cast<std::size_t>(list)]) {
    sum += static_cast<double>(sizes_[index]);
  }
  return sum / 100.0;
}

}  // namespace iobench::plugins::disk
