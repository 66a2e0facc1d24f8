#include "plugins/dbench/loadfile_index.hpp"

#include <algorithm>
#include <bit>
#include <functional>

#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

std::size_t HandleIndex::home(std::int64_t number) const noexcept {
  // splitmix64's finalizer: handle numbers are often consecutive, which would cluster.
  auto x = static_cast<std::uint64_t>(number);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return static_cast<std::size_t>(x) & (slots_.size() - 1);
}

void HandleIndex::rebuild(std::size_t slot_count, const std::vector<std::int64_t>& numbers) {
  slots_.assign(slot_count, kNoId);
  for (std::size_t id = 0; id < size_; ++id) {
    std::size_t i = home(numbers[id]);
    while (slots_[i] != kNoId) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = static_cast<std::uint32_t>(id);
  }
}

void HandleIndex::reserve(std::size_t count, const std::vector<std::int64_t>& numbers) {
  // At most 3/4 full: count * 4 / 3 slots, rounded up to a power of 2.
  const std::size_t wanted = std::bit_ceil(std::max<std::size_t>(16, count + count / 3 + 1));
  if (wanted > slots_.size()) rebuild(wanted, numbers);
}

std::uint32_t HandleIndex::find(std::int64_t number,
                                const std::vector<std::int64_t>& numbers) const noexcept {
  if (slots_.empty()) return kNoId;
  for (std::size_t i = home(number); slots_[i] != kNoId; i = (i + 1) & (slots_.size() - 1)) {
    if (numbers[slots_[i]] == number) return slots_[i];
  }
  return kNoId;
}

std::uint32_t HandleIndex::intern(std::int64_t number, std::vector<std::int64_t>& numbers,
                                  bool& inserted) {
  if ((size_ + 1) * 4 > slots_.size() * 3) {
    rebuild(std::max<std::size_t>(16, slots_.size() * 2), numbers);
  }
  std::size_t i = home(number);
  for (; slots_[i] != kNoId; i = (i + 1) & (slots_.size() - 1)) {
    if (numbers[slots_[i]] == number) {
      inserted = false;
      return slots_[i];
    }
  }
  const auto id = static_cast<std::uint32_t>(numbers.size());
  numbers.push_back(number);
  slots_[i] = id;
  ++size_;
  inserted = true;
  return id;
}

std::size_t PathIndex::home(std::string_view text, bool is_template) const noexcept {
  const std::size_t h = std::hash<std::string_view>{}(text) ^ (is_template ? 0x9E3779B9U : 0);
  return h & (slots_.size() - 1);
}

std::uint32_t PathIndex::find(std::string_view text, bool is_template,
                              const std::vector<PathEntry>& paths) const noexcept {
  if (slots_.empty()) return kNoId;
  for (std::size_t i = home(text, is_template); slots_[i] != kNoId;
       i = (i + 1) & (slots_.size() - 1)) {
    const PathEntry& entry = paths[slots_[i]];
    if (entry.is_template == is_template && entry.text == text) return slots_[i];
  }
  return kNoId;
}

void PathIndex::place(std::uint32_t id, const std::vector<PathEntry>& paths) noexcept {
  std::size_t i = home(paths[id].text, paths[id].is_template);
  while (slots_[i] != kNoId) i = (i + 1) & (slots_.size() - 1);
  slots_[i] = id;
}

void PathIndex::insert(const std::vector<PathEntry>& paths) {
  if ((size_ + 1) * 4 > slots_.size() * 3) {  // at most 3/4 full
    slots_.assign(std::max<std::size_t>(16, slots_.size() * 2), kNoId);
    for (std::size_t id = 0; id < size_; ++id) place(static_cast<std::uint32_t>(id), paths);
  }
  place(static_cast<std::uint32_t>(paths.size() - 1), paths);
  ++size_;
}

}  // namespace iobench::plugins::dbench
