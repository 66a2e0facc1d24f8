#include "plugins/disk/block_order.hpp"

#include <catch2/catch.hpp>

using namespace iobench::plugins::disk;

TEST_CASE("the block permutation visits every block exactly once", "[disk]") {
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 64ULL, 1000ULL, 4097ULL, 51200ULL}) {
    const BlockPermutation order(n, 42 + n);
    std::vector<bool> seen(n, false);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t block = order.at(i);
      REQUIRE(block < n);
      REQUIRE_FALSE(seen[block]);
      seen[block] = true;
    }
  }
}

TEST_CASE("the block permutation is not sequential and depends on the seed", "[disk]") {
  const std::uint64_t n = 10000;
  const BlockPermutation a(n, 1), b(n, 2);
  std::uint64_t in_place = 0, same = 0, ascending = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    in_place += a.at(i) == i;
    same += a.at(i) == b.at(i);
    ascending += i > 0 && a.at(i) == a.at(i - 1) + 1;
  }
  // A random permutation has about one fixed point and one ascending successor on average.
  CHECK(in_place < 20);
  CHECK(same < 20);
  CHECK(ascending < 20);
}

TEST_CASE("uniform blocks stay in range and cover it evenly", "[disk]") {
  const std::uint64_t n = 100;
  UniformBlocks picks(n, 7);
  std::vector<std::uint64_t> histogram(n, 0);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t block = picks.next();
    REQUIRE(block < n);
    ++histogram[block];
  }
  // Expected 1000 per block; 5 sigma is about 160.
  for (std::uint64_t count : histogram) {
    CHECK(count > 840);
    CHECK(count < 1160);
  }
}
