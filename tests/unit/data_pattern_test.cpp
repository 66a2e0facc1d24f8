#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <vector>

#include "tests/support/compression.hpp"

using iobench::DataPattern;
using iobench::PatternBuffer;
using Kind = iobench::DataPattern::Kind;

namespace {

// `blocks` consecutive blocks 0, 1, 2... as a file written with the buffer would hold them.
std::vector<std::byte> file_of(PatternBuffer& buffer, std::size_t blocks) {
  std::vector<std::byte> file;
  for (std::size_t n = 0; n < blocks; ++n) {
    const auto block = buffer.block(n);
    file.insert(file.end(), block.begin(), block.end());
  }
  return file;
}

std::vector<std::byte> copy(std::span<const std::byte> block) {
  return {block.begin(), block.end()};
}

}  // namespace

TEST_CASE("data patterns parse and print their text form", "[unit][data]") {
  CHECK(DataPattern::parse("random", "data") == DataPattern{Kind::kRandom, 0});
  CHECK(DataPattern::parse("zeros", "data") == DataPattern{Kind::kZeros, 0});
  CHECK(DataPattern::parse("bonnie", "data") == DataPattern{Kind::kBonnie, 0});
  CHECK(DataPattern::parse("compressible:50", "data") == DataPattern{Kind::kCompressible, 50});
  for (const char* text : {"random", "zeros", "bonnie", "compressible:1", "compressible:99"}) {
    CHECK(DataPattern::parse(text, "data").to_string() == text);
  }
  CHECK_THROWS_WITH(DataPattern::parse("zero", "data"),
                    Catch::StartsWith("data: 'zero' is not a data pattern; use random, zeros, "
                                      "compressible:PCT"));
  CHECK_THROWS_WITH(DataPattern::parse("compressible:", "d"), Catch::Contains("no whole percent"));
  CHECK_THROWS_WITH(DataPattern::parse("compressible:5x", "d"),
                    Catch::Contains("no whole percent"));
  CHECK_THROWS_WITH(DataPattern::parse("compressible:0", "d"), Catch::Contains("use random"));
  CHECK_THROWS_WITH(DataPattern::parse("compressible:100", "d"), Catch::Contains("use zeros"));
  CHECK_THROWS_WITH(DataPattern::parse("compressible:150", "d"), Catch::Contains("more than 100"));
  CHECK_THROWS_AS(DataPattern::parse("compressible:-5", "d"), iobench::ConfigError);
}

TEST_CASE("dedupe:PCT parses alone and with compressible, refusing bad percents", "[unit][data]") {
  const DataPattern dedupe = DataPattern::parse("dedupe:25", "data");
  CHECK(dedupe.kind == Kind::kRandom);
  CHECK(dedupe.dedupe_percent == 25);
  const DataPattern both = DataPattern::parse("compressible:50,dedupe:25", "data");
  CHECK(both.kind == Kind::kCompressible);
  CHECK(both.compress_percent == 50);
  CHECK(both.dedupe_percent == 25);
  CHECK(DataPattern::parse("dedupe:25,compressible:50", "data") == both);
  CHECK(DataPattern::parse("random,dedupe:10", "data").to_string() == "dedupe:10");
  for (const char* text : {"dedupe:1", "dedupe:99", "compressible:50,dedupe:25"}) {
    CHECK(DataPattern::parse(text, "data").to_string() == text);
  }
  CHECK_THROWS_WITH(DataPattern::parse("dedupe:0", "data"),
                    Catch::StartsWith("data: 'dedupe:0' repeats no block"));
  CHECK_THROWS_WITH(DataPattern::parse("dedupe:100", "data"),
                    Catch::StartsWith("data: 'dedupe:100' repeats every block"));
  CHECK_THROWS_WITH(DataPattern::parse("dedupe:x", "data"),
                    Catch::StartsWith("data: 'dedupe:x' has no whole percent after 'dedupe:'"));
  CHECK_THROWS_WITH(DataPattern::parse("dedupe:150", "d"), Catch::Contains("more than 100"));
  CHECK_THROWS_WITH(DataPattern::parse("dedupe:5,dedupe:6", "d"), Catch::Contains("twice"));
  CHECK_THROWS_WITH(DataPattern::parse("zeros,dedupe:5", "d"), Catch::Contains("already repeat"));
  CHECK_THROWS_WITH(DataPattern::parse("random,zeros", "d"), Catch::Contains("two data patterns"));
  CHECK_THROWS_WITH(DataPattern::parse("random,", "d"), Catch::Contains("empty item"));
}

TEST_CASE("dedupe:PCT repeats exactly PCT percent of blocks, each an earlier one", "[unit][data]") {
  for (const std::uint32_t percent : {1U, 25U, 50U, 99U}) {
    INFO("dedupe:" << percent);
    PatternBuffer buffer({Kind::kRandom, 0, percent}, 4096, 7);
    std::vector<std::vector<std::byte>> seen;
    std::uint64_t repeats = 0;
    for (std::uint64_t n = 0; n < 1000; ++n) {
      std::vector<std::byte> block = copy(buffer.block(n));
      if (std::find(seen.begin(), seen.end(), block) != seen.end()) {
        ++repeats;  // equal to an earlier block: a repeat
      } else {
        seen.push_back(std::move(block));
      }
    }
    // floor(1000 * PCT / 100) repeats, exactly: the pick is a function of the block number.
    CHECK(repeats == 1000 * percent / 100);
    CHECK(seen.size() == 1000 - 1000 * percent / 100);
  }
  // Block n's bytes depend on the seed and n only, not on the order blocks are asked for.
  PatternBuffer forward({Kind::kRandom, 0, 25}, 4096, 7);
  PatternBuffer backward({Kind::kRandom, 0, 25}, 4096, 7);
  std::vector<std::vector<std::byte>> ahead;
  for (std::uint64_t n = 0; n < 300; ++n) ahead.push_back(copy(forward.block(n)));
  for (std::uint64_t n = 300; n-- > 0;) CHECK(copy(backward.block(n)) == ahead[n]);
}

TEST_CASE("zeros are zero", "[unit][data]") {
  PatternBuffer buffer({Kind::kZeros, 0}, 10000, 1);
  for (std::uint64_t n : {0, 1, 77}) {
    const auto block = buffer.block(n);
    REQUIRE(block.size() == 10000);
    CHECK(std::all_of(block.begin(), block.end(), [](std::byte b) { return b == std::byte{0}; }));
  }
  CHECK(buffer.allocated_bytes() == 12288);  // one block, page-rounded
}

TEST_CASE("a zeros buffer holds no resident page, however large", "[unit][data]") {
  // dbench's WriteX buffer is a calloc'd one never written: it costs no memory, and neither may
  // this one (a memset would make every page resident). Reading it later maps the kernel's
  // shared zero page, not pages of the process's own.
  PatternBuffer buffer({Kind::kZeros, 0}, 256 * 1024, 1);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident(buffer.allocated_bytes() / page, 0xFF);
  const auto block = buffer.block(0);
  REQUIRE(::mincore(const_cast<std::byte*>(block.data()), buffer.allocated_bytes(),
                    resident.data()) == 0);
  CHECK(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1U; }) ==
        0);
  CHECK(std::all_of(block.begin(), block.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST_CASE("random blocks differ block to block and do not compress", "[unit][data]") {
  for (const std::size_t bs : {std::size_t{512}, std::size_t{4096}, std::size_t{65536},
                               std::size_t{3000}, std::size_t{2} << 20}) {
    INFO("block size " << bs);
    PatternBuffer buffer({Kind::kRandom, 0}, bs, 42);
    const std::size_t blocks = std::max<std::size_t>(4, (4 << 20) / bs);
    const auto file = file_of(buffer, blocks);
    CHECK(iobench::test::zlib_ratio(file) > 0.999);
    // Every block differs from every other one (no two equal blocks to deduplicate).
    std::vector<std::vector<std::byte>> seen;
    for (std::size_t n = 0; n < blocks; ++n) {
      seen.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(n * bs),
                        file.begin() + static_cast<std::ptrdiff_t>((n + 1) * bs));
    }
    std::sort(seen.begin(), seen.end());
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  }
}

TEST_CASE("random blocks are a function of the seed and the block number", "[unit][data]") {
  PatternBuffer a({Kind::kRandom, 0}, 8192, 7);
  PatternBuffer b({Kind::kRandom, 0}, 8192, 7);
  PatternBuffer other({Kind::kRandom, 0}, 8192, 8);
  const auto a5 = copy(a.block(5));
  (void)a.block(5 + 128);  // the same window, restamped
  CHECK(copy(a.block(5)) == a5);
  CHECK(copy(b.block(5)) == a5);
  CHECK(copy(other.block(5)) != a5);
  // Blocks sharing a window differ in their stamps, one per 4 KiB, and nowhere else.
  const auto a133 = copy(a.block(5 + 128));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a5.size(); ++i) differing += a5[i] != a133[i] ? 1 : 0;
  CHECK(differing > 0);
  CHECK(differing <= 16);
  // The ring: 1 MiB of 8 KiB windows.
  CHECK(a.allocated_bytes() == (1 << 20));
}

TEST_CASE("compressible:PCT compresses by about PCT percent with zlib", "[unit][data]") {
  for (const std::uint32_t percent : {25U, 50U, 90U}) {
    for (const std::size_t bs : {std::size_t{4096}, std::size_t{65536}, std::size_t{1000}}) {
      INFO("compressible:" << percent << ", block size " << bs);
      PatternBuffer buffer({Kind::kCompressible, percent}, bs, 3);
      const auto file = file_of(buffer, (4 << 20) / bs);
      const double expected = (100.0 - percent) / 100.0;
      CHECK(iobench::test::zlib_ratio(file) == Approx(expected).margin(0.03));
    }
  }
}

TEST_CASE("bonnie blocks are bonnie++'s zero buffer with one byte bumped per write",
          "[unit][data]") {
  PatternBuffer buffer({Kind::kBonnie, 0}, 8192, 1);
  (void)buffer.block(0);
  (void)buffer.block(1);
  const auto block = copy(buffer.block(8192 + 1));  // bonnie++: buf[i % chunk]++ per chunk i
  CHECK(block[0] == std::byte{1});
  CHECK(block[1] == std::byte{2});
  CHECK(std::all_of(block.begin() + 2, block.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST_CASE("pattern buffers are aligned for O_DIRECT", "[unit][data]") {
  for (const auto& pattern : {DataPattern{Kind::kRandom, 0}, DataPattern{Kind::kCompressible, 40},
                              DataPattern{Kind::kZeros, 0}, DataPattern{Kind::kBonnie, 0}}) {
    PatternBuffer buffer(pattern, 12288, 9);
    for (std::uint64_t n = 0; n < 200; ++n) {
      CHECK(reinterpret_cast<std::uintptr_t>(buffer.block(n).data()) %
                iobench::AlignedBuffer::kAlignment ==
            0);
    }
  }
}
