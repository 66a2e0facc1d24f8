#include "plugins/dbench/handle_table.hpp"

#include <bit>

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

}  // namespace iobench::plugins::dbench
