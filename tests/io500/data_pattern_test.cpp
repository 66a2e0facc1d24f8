// IOR's data pattern as the io500 workload writes and checks it: word for word against values
// computed by hand, and the read phases' mismatch count (ior -R, mdtest -X) on files changed
// between the write phase and the read phase.

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/result.hpp>
#include <map>
#include <regex>
#include <span>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/io500/io500_report.hpp"
#include "tests/support/planting.hpp"
#include "tests/support/test_support.hpp"

using iobench::plugins::count_pattern_differences;
using iobench::plugins::fill_pattern;
using iobench::plugins::first_pattern_difference;
using iobench::plugins::IorPattern;
using iobench::plugins::matches_pattern;
using iobench::plugins::pattern_seed;

namespace {

std::vector<std::byte> filled(std::size_t bytes, IorPattern p) {
  std::vector<std::byte> buf(bytes);
  fill_pattern(buf, p);
  return buf;
}

std::vector<unsigned> as_unsigned(std::span<const std::byte> bytes) {
  std::vector<unsigned> out;
  for (const std::byte b : bytes) out.push_back(std::to_integer<unsigned>(b));
  return out;
}

std::uint64_t word_at(std::span<const std::byte> buf, std::size_t i) {
  std::uint64_t w = 0;
  std::memcpy(&w, buf.data() + i * 8, 8);
  return w;
}

}  // namespace

TEST_CASE("io500 data pattern words are rank << 32 | seed + i, as IOR's timestamp pattern") {
  const IorPattern p{.rank = 1, .seed = 1000};
  CHECK(p.word(0) == 0x00000001000003e8ULL);
  CHECK(p.word(5) == 0x00000001000003edULL);
  CHECK(IorPattern{.rank = 0, .seed = 7}.word(0) == 7);
  CHECK(IorPattern{.rank = 3, .seed = 0x7fffffff}.word(1) == 0x0000000380000000ULL);
  CHECK(IorPattern{.rank = 1023, .seed = 4711}.word(262143) ==
        0x000003ff00041266ULL);  // 4711 + 0x3ffff
  // In memory: each word in the machine's (x86's little-endian) byte order.
  const std::vector<std::byte> buf = filled(16, p);
  if constexpr (std::endian::native == std::endian::little) {
    CHECK(as_unsigned(buf) == std::vector<unsigned>{0xe8, 0x03, 0, 0, 1, 0, 0, 0,  //
                                                    0xe9, 0x03, 0, 0, 1, 0, 0, 0});
  }
  // A seed whose sum carries into the rank's bits: IOR's OR keeps the carry (word 1 is
  // 3 << 32 | 2^32), and the check agrees with the fill.
  const IorPattern carry{.rank = 3, .seed = 0xffffffffU};
  const std::vector<std::byte> carried = filled(16, carry);
  CHECK(word_at(carried, 0) == 0x00000003ffffffffULL);
  CHECK(word_at(carried, 1) == 0x0000000300000000ULL);
  CHECK(matches_pattern(carried, carry));
  // A 2 MiB transfer: every one of its 262144 words.
  const std::vector<std::byte> transfer = filled(2 << 20, IorPattern{.rank = 2, .seed = 99});
  bool all = true;
  for (std::size_t i = 0; i < transfer.size() / 8; ++i)
    all = all && word_at(transfer, i) == ((std::uint64_t{2} << 32) | (99 + i));
  CHECK(all);
}

TEST_CASE("io500 data pattern ends a 3901-byte file with bytes b mod 256 after 487 words") {
  const IorPattern p{.rank = 5, .seed = 123456};
  const std::vector<std::byte> buf = filled(3901, p);
  CHECK(word_at(buf, 0) == 0x000000050001e240ULL);
  CHECK(word_at(buf, 486) == 0x000000050001e426ULL);  // 123456 + 486 = 0x1e426
  CHECK(as_unsigned(std::span(buf).subspan(3896)) ==
        std::vector<unsigned>{0x38, 0x39, 0x3a, 0x3b, 0x3c});  // 3896 = 0xf38
  CHECK(matches_pattern(buf, p));
  CHECK(count_pattern_differences(buf, p) == 0);
}

TEST_CASE("io500 data pattern check finds one changed byte anywhere, at any alignment") {
  const IorPattern p{.rank = 1, .seed = 2024};
  for (const std::size_t size : {std::size_t{47008}, std::size_t{3901}, std::size_t{2} << 20}) {
    INFO("size " << size);
    // One byte in, so the buffer's words are not 8-byte aligned.
    std::vector<std::byte> storage(size + 1);
    const std::span<std::byte> buf(storage.data() + 1, size);
    fill_pattern(buf, p);
    REQUIRE(matches_pattern(buf, p));
    for (const std::size_t at : {std::size_t{0}, size / 2 + 3, size - 1}) {
      buf[at] ^= std::byte{0x10};
      CHECK_FALSE(matches_pattern(buf, p));
      CHECK(count_pattern_differences(buf, p) == 1);
      CHECK(first_pattern_difference(buf, p) == at);
      buf[at] ^= std::byte{0x10};
    }
    CHECK(matches_pattern(buf, p));
    CHECK(first_pattern_difference(buf, p) == size);
    // Word 0 of rank 0's pattern differs from rank 1's in byte 4 (the rank's low byte, in x86's
    // little-endian order) first.
    if constexpr (std::endian::native == std::endian::little) {
      CHECK(first_pattern_difference(buf, IorPattern{.rank = 0, .seed = 2024}) == 4);
    }
    // Another rank's data, or another seed's: every word differs (not the tail bytes).
    CHECK_FALSE(matches_pattern(buf, IorPattern{.rank = 0, .seed = 2024}));
    CHECK(count_pattern_differences(buf, IorPattern{.rank = 0, .seed = 2024}) == size / 8);
    CHECK(count_pattern_differences(buf, IorPattern{.rank = 1, .seed = 2025}) == size / 8);
  }
}

TEST_CASE("io500 data pattern seeds differ by group and timestamp and stay below 2^31") {
  const std::uint32_t easy = pattern_seed("ior-easy", 1700000000, 5);
  CHECK(easy == pattern_seed("ior-easy", 1700000000, 5));
  CHECK(easy != pattern_seed("ior-hard", 1700000000, 5));
  CHECK(easy != pattern_seed("ior-easy", 1700000001, 5));
  CHECK(easy != pattern_seed("ior-easy", 1700000000, 6));
  for (std::int64_t t = 0; t < 1000; ++t) {
    const std::uint32_t s = pattern_seed("mdtest-hard", t, t * 7);
    CHECK(s >= 1);
    CHECK(s < 0x80000000U);
  }
}

namespace {

using iobench::StepResult;

constexpr std::uint64_t kEasyTransfer = 2 << 20;
constexpr std::uint64_t kHardTransfer = 47008;

const iobench::PhaseResult& result_phase(const StepResult& step, const std::string& name) {
  for (const iobench::PhaseResult& p : step.phases)
    if (p.name == name) return p;
  FAIL("no phase " << name);
  return step.phases.front();
}

std::uint64_t result_counter(const iobench::PhaseResult& p, std::size_t w,
                             const std::string& name) {
  for (std::size_t i = 0; i < p.counter_names.size(); ++i)
    if (p.counter_names[i] == name) return p.workers.at(w).counters.at(i);
  FAIL("phase " << p.name << " has no counter " << name);
  return 0;
}

std::uint32_t seed_attr(const StepResult& step, const std::string& group) {
  const iobench::AttributeValue* v = step.attribute("pattern_seed." + group);
  REQUIRE(v != nullptr);
  return static_cast<std::uint32_t>(std::get<std::int64_t>(*v));
}

std::vector<std::byte> read_at(const std::filesystem::path& path, std::uint64_t offset,
                               std::size_t bytes) {
  std::vector<std::byte> buf(bytes);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  const ssize_t n = ::pread(fd, buf.data(), bytes, static_cast<off_t>(offset));
  ::close(fd);
  REQUIRE(n == static_cast<ssize_t>(bytes));
  return buf;
}

void flip_byte(const std::filesystem::path& path, std::uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  unsigned char c = 0;
  REQUIRE(::pread(fd, &c, 1, static_cast<off_t>(offset)) == 1);
  c ^= 0x01;
  REQUIRE(::pwrite(fd, &c, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

// 2 ranks, 4 easy transfers and 8 hard segments each, 10 mdtest-hard files each.
const std::map<std::string, std::string> kParams = {{"ranks", "2"},
                                                    {"stonewall", "30s"},
                                                    {"ior_easy_size", "8m"},
                                                    {"ior_hard_segments", "8"},
                                                    {"mdtest_easy_items", "10"},
                                                    {"mdtest_hard_items", "10"},
                                                    {"quick", "true"}};

// Phase indices in the list's order.
constexpr std::size_t kIorEasyWrite = 0;
constexpr std::size_t kIorHardWrite = 2;
constexpr std::size_t kMdtestHardWrite = 3;

std::string io500_text(const StepResult& step) {
  std::ostringstream out;
  iobench::plugins::io500::format_io500_text(step, out);
  return out.str();
}

}  // namespace

TEST_CASE("io500 write phases write IOR's pattern of the writing rank, at IOR's offsets") {
  const iobench::test::TempDir dir("io500-pattern");
  std::vector<std::byte> easy1;    // rank 1's file: transfer 0's first words, transfer 3's
  std::vector<std::byte> hard;     // the shared file: segments 0 and 5, both ranks' blocks
  std::vector<std::byte> mdtest1;  // file.mdtest.1.7, whole
  const auto registry = iobench::test::registry_with_planting(
      "io500", [&](std::size_t phase, std::span<const iobench::Target> targets) {
        const std::filesystem::path data = targets.front().run_dir.path() / "datafiles";
        if (phase == kIorEasyWrite) {
          const auto f = data / "ior-easy" / "ior_file_easy.00000001";
          easy1 = read_at(f, 0, 16);
          const auto last = read_at(f, 3 * kEasyTransfer, kEasyTransfer);
          easy1.insert(easy1.end(), last.begin(), last.end());
        } else if (phase == kIorHardWrite) {
          const auto f = data / "ior-hard" / "file";
          hard = read_at(f, 0, 2 * kHardTransfer);
          const auto seg5 = read_at(f, 5 * 2 * kHardTransfer, 2 * kHardTransfer);
          hard.insert(hard.end(), seg5.begin(), seg5.end());
        } else if (phase == kMdtestHardWrite) {
          mdtest1 = read_at(
              data / "mdtest-hard" / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.7", 0, 3901);
        }
      });
  const StepResult step = iobench::test::run_planted(registry, kParams, {dir.path()});
  REQUIRE(step.phases.size() == 12);
  const std::uint32_t easy_seed = seed_attr(step, "ior-easy");
  const std::uint32_t hard_seed = seed_attr(step, "ior-hard");
  const std::uint32_t md_seed = seed_attr(step, "mdtest-hard");
  CHECK(easy_seed != hard_seed);
  REQUIRE(easy1.size() == 16 + kEasyTransfer);
  CHECK(word_at(easy1, 0) == ((std::uint64_t{1} << 32) | easy_seed));
  CHECK(word_at(easy1, 1) == ((std::uint64_t{1} << 32) | (easy_seed + 1)));
  // Transfer 3 holds the same words as transfer 0: the pattern does not depend on the offset.
  const std::span<const std::byte> last = std::span(easy1).subspan(16);
  CHECK(matches_pattern(last, IorPattern{.rank = 1, .seed = easy_seed}));
  CHECK(word_at(last, 262143) == ((std::uint64_t{1} << 32) | (easy_seed + 262143)));
  // ior-hard: segment i's block of rank r at (i x 2 + r) x 47008, in rank r's pattern.
  REQUIRE(hard.size() == 4 * kHardTransfer);
  for (std::size_t block = 0; block < 4; ++block) {
    const auto rank = static_cast<std::uint32_t>(block % 2);
    INFO("block " << block);
    const std::span<const std::byte> b =
        std::span(hard).subspan(block * kHardTransfer, kHardTransfer);
    CHECK(word_at(b, 0) == ((std::uint64_t{rank} << 32) | hard_seed));
    CHECK(word_at(b, 5875) == ((std::uint64_t{rank} << 32) | (hard_seed + 5875)));
    CHECK(matches_pattern(b, IorPattern{.rank = rank, .seed = hard_seed}));
  }
  REQUIRE(mdtest1.size() == 3901);
  CHECK(word_at(mdtest1, 0) == ((std::uint64_t{1} << 32) | md_seed));
  CHECK(as_unsigned(std::span(mdtest1).subspan(3896)) ==
        std::vector<unsigned>{0x38, 0x39, 0x3a, 0x3b, 0x3c});
  CHECK(matches_pattern(mdtest1, IorPattern{.rank = 1, .seed = md_seed}));
  // Nothing was changed: every read phase found what it expected.
  for (const char* name : {"ior-easy-read", "ior-hard-read", "mdtest-hard-read"}) {
    INFO(name);
    CHECK(result_phase(step, name).status == iobench::Status::kOk);
    CHECK(result_counter(result_phase(step, name), 0, "mismatches") == 0);
    CHECK(result_counter(result_phase(step, name), 1, "mismatches") == 0);
  }
}

TEST_CASE("io500 read phases count one mismatch for one changed byte and mark the phase INVALID") {
  const iobench::test::TempDir dir("io500-pattern");
  const auto registry = iobench::test::registry_with_planting(
      "io500", [&](std::size_t phase, std::span<const iobench::Target> targets) {
        const std::filesystem::path data = targets.front().run_dir.path() / "datafiles";
        if (phase == kIorEasyWrite) {  // rank 1's file, in its last transfer
          flip_byte(data / "ior-easy" / "ior_file_easy.00000001", 3 * kEasyTransfer + 12345);
        } else if (phase == kIorHardWrite) {  // rank 1's block of segment 6, its last byte
          flip_byte(data / "ior-hard" / "file", (6 * 2 + 1) * kHardTransfer + kHardTransfer - 1);
        } else if (phase == kMdtestHardWrite) {  // a tail byte of one of rank 1's files
          flip_byte(data / "mdtest-hard" / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.4",
                    3900);
        }
      });
  const StepResult step = iobench::test::run_planted(registry, kParams, {dir.path()});
  REQUIRE(step.phases.size() == 12);
  const std::string text = io500_text(step);
  INFO(text);
  for (const char* name : {"ior-easy-read", "ior-hard-read", "mdtest-hard-read"}) {
    INFO(name);
    const iobench::PhaseResult& p = result_phase(step, name);
    CHECK(p.status == iobench::Status::kOk);
    // Rank 0 reads rank 1's data (the rank shift): its one changed transfer or file.
    CHECK(result_counter(p, 0, "mismatches") == 1);
    CHECK(result_counter(p, 1, "mismatches") == 0);
    CHECK(std::regex_search(text, std::regex(std::string(R"(\[RESULT\] +)") + name +
                                             R"( +[0-9.]+ (GiB/s|kIOPS) : time [0-9.]+ )"
                                             R"(seconds \[INVALID\]\n)")));
  }
  CHECK_THAT(text, Catch::Contains("[INVALID] ior-easy-read: 1 transfer read did not hold the "
                                   "data pattern the write phase wrote (mismatches = 1)\n"));
  CHECK_THAT(text, Catch::Contains("[INVALID] ior-hard-read: 1 transfer read did not hold"));
  CHECK_THAT(text, Catch::Contains("[INVALID] mdtest-hard-read: 1 file read did not hold"));
  // The phases around them are not marked for it.
  CHECK_THAT(text, !Catch::Contains("[INVALID] mdtest-hard-stat"));
  CHECK_THAT(text, !Catch::Contains("[INVALID] mdtest-easy-stat"));
}

TEST_CASE("io500 ior-easy-read counts every transfer of a file holding another rank's data") {
  const iobench::test::TempDir dir("io500-pattern");
  const auto registry = iobench::test::registry_with_planting(
      "io500", [&](std::size_t phase, std::span<const iobench::Target> targets) {
        if (phase != kIorEasyWrite) return;
        // Rank 0's data put in rank 1's file: rank 0's read of it finds rank 0's words.
        const std::filesystem::path easy =
            targets.front().run_dir.path() / "datafiles" / "ior-easy";
        std::filesystem::copy_file(easy / "ior_file_easy.00000000", easy / "ior_file_easy.00000001",
                                   std::filesystem::copy_options::overwrite_existing);
      });
  const StepResult step = iobench::test::run_planted(registry, kParams, {dir.path()});
  REQUIRE(step.phases.size() == 12);
  const iobench::PhaseResult& read = result_phase(step, "ior-easy-read");
  CHECK(result_counter(read, 0, "done") == 4);
  CHECK(result_counter(read, 0, "mismatches") == 4);  // each of the file's 4 transfers
  CHECK(result_counter(read, 1, "mismatches") == 0);  // rank 0's own file is intact
  CHECK_THAT(io500_text(step), Catch::Contains("[INVALID] ior-easy-read: 4 transfers read did not "
                                               "hold the data pattern the write phase wrote "
                                               "(mismatches = 4)\n"));
}
