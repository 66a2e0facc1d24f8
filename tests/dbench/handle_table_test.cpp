// The flat handle tables: HandleIndex gives the parser the dense ids a node-based map gave
// (first use order, same id for every later use), and HandleTable holds a client's handles by
// id with the semantics of the old one-slot-per-id vector (an id not held reads as HandleSlot{}).
#include "plugins/dbench/handle_table.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "plugins/dbench/loadfile_parser.hpp"

namespace dbench = iobench::plugins::dbench;
using dbench::HandleIndex;
using dbench::HandleSlot;
using dbench::HandleTable;

TEST_CASE("handle ids are given in first-use order and found again", "[dbench]") {
  HandleIndex index;
  std::vector<std::int64_t> numbers;
  bool inserted = false;
  CHECK(index.intern(9935, numbers, inserted) == 0);
  CHECK(inserted);
  CHECK(index.intern(16385, numbers, inserted) == 1);
  CHECK(inserted);
  CHECK(index.intern(-7, numbers, inserted) == 2);
  CHECK(index.intern(9935, numbers, inserted) == 0);
  CHECK_FALSE(inserted);
  CHECK(index.intern(-7, numbers, inserted) == 2);
  CHECK_FALSE(inserted);
  CHECK(numbers == std::vector<std::int64_t>{9935, 16385, -7});
}

TEST_CASE("many handle numbers get the ids a node-based map gives, through every growth",
          "[dbench]") {
  // 20,000 distinct numbers (consecutive runs, as traces have, and random 64-bit ones) used
  // 100,000 times in random order, against std::unordered_map as the old parser used it.
  std::mt19937_64 random(42);
  std::vector<std::int64_t> pool;
  for (std::int64_t n = 0; n < 10000; ++n) pool.push_back(10000 + n);
  for (int n = 0; n < 10000; ++n) pool.push_back(static_cast<std::int64_t>(random()));
  HandleIndex index;
  std::vector<std::int64_t> numbers;
  std::unordered_map<std::int64_t, std::uint32_t> expected;
  for (int use = 0; use < 100000; ++use) {
    const std::int64_t number = pool[random() % pool.size()];
    const auto [it, fresh] =
        expected.try_emplace(number, static_cast<std::uint32_t>(expected.size()));
    bool inserted = false;
    REQUIRE(index.intern(number, numbers, inserted) == it->second);
    REQUIRE(inserted == fresh);
  }
  CHECK(numbers.size() == expected.size());
  for (const auto& [number, id] : expected) CHECK(numbers[id] == number);
  // At most 3/4 full, 4 bytes a slot: under 16 bytes per handle here.
  CHECK(index.memory_bytes() <= 16 * expected.size());
  CHECK(index.memory_bytes() >= 4 * expected.size() * 4 / 3);
}

TEST_CASE("a reserved handle index keeps its ids and does not grow", "[dbench]") {
  HandleIndex index;
  std::vector<std::int64_t> numbers;
  bool inserted = false;
  CHECK(index.intern(5, numbers, inserted) == 0);
  index.reserve(4862, numbers);  // re-places the id already held
  const std::size_t bytes = index.memory_bytes();
  CHECK(bytes == 8192 * sizeof(std::uint32_t));
  for (std::int64_t n = 0; n < 4862; ++n) index.intern(n + 1, numbers, inserted);
  CHECK(index.intern(5, numbers, inserted) == 0);
  CHECK(index.intern(4862, numbers, inserted) == 4861);
  CHECK(numbers.size() == 4862);
  CHECK(index.memory_bytes() == bytes);
}

TEST_CASE("a client's handle table holds what a slot per id held, and only that", "[dbench]") {
  HandleTable table;
  CHECK(table.find(3) == nullptr);
  table.slot(3) = HandleSlot{7, 12, 0, 0};
  table.slot(1) = HandleSlot{-1, 4, 99, 2};  // a failed open, remembered
  table.slot(4862) = HandleSlot{8, 13, 0, 0};
  REQUIRE(table.find(3) != nullptr);
  CHECK(table.find(3)->fd == 7);
  CHECK(table.find(3)->path == 12);
  CHECK(table.find(1)->open_line == 99);
  CHECK(table.find(1)->open_errno == 2);
  CHECK(table.find(2) == nullptr);
  CHECK(table.size() == 3);
  table.erase(3);  // Close
  CHECK(table.find(3) == nullptr);
  table.erase(3);  // a second Close of it changes nothing
  CHECK(table.size() == 2);
  table.slot(3).fd = 9;  // the number is used again
  CHECK(table.find(3)->fd == 9);
  CHECK(table.find(3)->path == dbench::kNoId);
  std::vector<int> fds;
  table.for_each([&](const HandleSlot& s) { fds.push_back(s.fd); });
  CHECK(fds == std::vector<int>{-1, 9, 8});  // id order: 1, 3, 4862
}

TEST_CASE("a handle table under random opens and closes matches a slot per id", "[dbench]") {
  // The old table: a vector with one slot per id, a Close resetting it to HandleSlot{}.
  std::mt19937 random(7);
  std::vector<HandleSlot> old(5000);
  HandleTable table;
  std::size_t most = 0;
  for (int step = 0; step < 200000; ++step) {
    // Handles live a short while: ids drawn from a window of 50 that moves through all of them,
    // the one it leaves behind closed.
    if (step % 40 == 0 && step > 0) {
      const auto left = static_cast<std::uint32_t>((step / 40 - 1) % old.size());
      old[left] = HandleSlot{};
      table.erase(left);
    }
    const auto id = static_cast<std::uint32_t>((step / 40 + random() % 50) % old.size());
    if (random() % 2 == 0) {
      const HandleSlot opened{static_cast<int>(step), id, 0, 0};
      old[id] = opened;
      table.slot(id) = opened;
    } else {
      old[id] = HandleSlot{};
      table.erase(id);
    }
    most = std::max(most, table.size());
  }
  std::size_t held = 0;
  for (std::uint32_t id = 0; id < old.size(); ++id) {
    const HandleSlot* slot = table.find(id);
    const HandleSlot& got = slot != nullptr ? *slot : HandleSlot{};
    CHECK(got.fd == old[id].fd);
    CHECK(got.path == old[id].path);
    held += old[id].fd >= 0 ? 1 : 0;
  }
  CHECK(table.size() == held);
  CHECK(most <= 50);  // the handles open at once, not the 5,000 ids
}
