#include "plugins/bonnie/file_names.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace iobench::plugins::bonnie;

namespace {

std::string path(const FileNamer& namer, std::uint64_t i) {
  NameBuffer buf;
  const std::size_t length = namer.path_of(i, buf);
  CHECK(std::strlen(buf.data()) == length);
  return std::string(buf.data(), length);
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string hex10(std::uint64_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010llx", static_cast<unsigned long long>(i));
  return buf;
}

}  // namespace

TEST_CASE("bonnie sequential names start with the hex index", "[bonnie][names]") {
  const FileNamer namer(42, 1024, 1, false, 0, 0);
  std::set<std::size_t> extra_lengths;
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < 1024; ++i) {
    const std::string name = path(namer, i);
    REQUIRE(name.size() >= 10);
    REQUIRE(name.size() <= 22);
    CHECK(name.substr(0, 10) == hex10(i));
    CHECK(std::all_of(name.begin() + 10, name.end(), is_name_char));
    extra_lengths.insert(name.size() - 10);
    names.insert(name);
  }
  CHECK(names.size() == 1024);
  CHECK(extra_lengths.size() == 13);  // every random length 0..12 occurs
  CHECK(path(namer, 0xabcdef).substr(0, 10) == "0000abcdef");
}

TEST_CASE("bonnie random names end with the hex index", "[bonnie][names]") {
  const FileNamer namer(42, 2048, 1, true, 0, 0);
  for (std::uint64_t i = 0; i < 2048; ++i) {
    const std::string name = path(namer, i);
    REQUIRE(name.size() >= 10);
    CHECK(name.substr(name.size() - 10) == hex10(i));
    CHECK(std::all_of(name.begin(), name.end() - 10, is_name_char));
  }
}

TEST_CASE("bonnie names depend only on seed and index", "[bonnie][names]") {
  const FileNamer a(7, 4096, 1, false, 0, 0);
  const FileNamer b(7, 4096, 1, false, 0, 0);
  const FileNamer other_seed(8, 4096, 1, false, 0, 0);
  int differing = 0;
  for (std::uint64_t i = 0; i < 4096; i += 17) {
    CHECK(path(a, i) == path(b, i));
    differing += path(a, i) != path(other_seed, i) ? 1 : 0;
  }
  CHECK(differing > 200);
}

TEST_CASE("bonnie spreads files over directories in index order", "[bonnie][names]") {
  const FileNamer namer(1, 1024, 3, false, 0, 0);
  std::vector<int> per_dir(3, 0);
  std::uint32_t last_dir = 0;
  for (std::uint64_t i = 0; i < 1024; ++i) {
    const std::uint32_t dir = namer.dir_of(i);
    REQUIRE(dir < 3);
    CHECK(dir >= last_dir);
    last_dir = dir;
    ++per_dir[dir];
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%05u/", dir);
    CHECK(path(namer, i).substr(0, 6) == prefix);
    CHECK(path(namer, i).substr(6, 10) == hex10(i));
  }
  CHECK(per_dir == std::vector<int>{342, 342, 340});  // N/dirs + 1 per directory
  NameBuffer name;
  CHECK(FileNamer::dir_name(42, name) == 5);
  CHECK(std::string(name.data()) == "00042");
  // More directories than files: one file each, the rest empty.
  const FileNamer sparse(1, 4, 10, true, 0, 0);
  for (std::uint64_t i = 0; i < 4; ++i) CHECK(sparse.dir_of(i) == i);
}

TEST_CASE("bonnie file sizes stay within min and max", "[bonnie][names]") {
  const FileNamer ranged(3, 2048, 1, false, 100, 200);
  std::set<std::uint64_t> sizes;
  for (std::uint64_t i = 0; i < 2048; ++i) {
    const std::uint64_t size = ranged.size_of(i);
    CHECK(size >= 100);
    CHECK(size <= 200);
    sizes.insert(size);
  }
  CHECK(sizes.size() > 90);
  CHECK(sizes.count(100) == 1);
  CHECK(sizes.count(200) == 1);
  CHECK(FileNamer(3, 10, 1, false, 4096, 4096).size_of(5) == 4096);
  CHECK(FileNamer(3, 10, 1, false, 0, 0).size_of(5) == 0);
}

TEST_CASE("bonnie random order is a permutation", "[bonnie][names]") {
  for (const std::uint64_t n : {1ULL, 2ULL, 3ULL, 5ULL, 1000ULL, 1024ULL, 1025ULL, 16384ULL}) {
    const Permutation perm(n, 99);
    std::vector<bool> seen(n, false);
    std::uint64_t fixed_points = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t v = perm.at(k);
      REQUIRE(v < n);
      REQUIRE_FALSE(seen[v]);
      seen[v] = true;
      fixed_points += v == k ? 1 : 0;
    }
    if (n >= 1000) CHECK(fixed_points < n / 50);
  }
  const Permutation a(1024, 1);
  const Permutation b(1024, 2);
  int same = 0;
  for (std::uint64_t k = 0; k < 1024; ++k) same += a.at(k) == b.at(k) ? 1 : 0;
  CHECK(same < 20);
}
