// The bytes each writing workload puts in its files under every `data` pattern, and what it
// writes by default (what its original tool writes), read back from the files.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <iobench/engine.hpp>
#include <iobench/runner.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <unordered_set>
#include <variant>

#include "plugins/bonnie/file_workers.hpp"
#include "plugins/bonnie/io_workers.hpp"
#include "tests/data/direct_context.hpp"
#include "tests/support/compression.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kFsBlock = 4096;

std::string attribute(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  return value != nullptr && std::holds_alternative<std::string>(*value)
             ? std::get<std::string>(*value)
             : std::string("<none>");
}

// Runs `workload` with `params` on a fresh directory, keeping the files; returns the step and
// the content of the file named `file` somewhere under the run directory.
struct Written {
  StepResult step;
  std::string bytes;
};

Written run_and_read(const std::string& workload, std::map<std::string, std::string> params,
                     const std::string& file, std::uint64_t seed = 0) {
  test::TempDir dir("data");
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  const RunResult run = Runner(registry, RunOptions{.keep_files = true})
                            .run(std::vector<Step>{Step{.workload = workload,
                                                        .params = std::move(params),
                                                        .targets = {dir.path()},
                                                        .seed = seed}},
                                 reporter);
  REQUIRE(run.steps.size() == 1);
  INFO(run.steps.front().message);
  REQUIRE(run.status == Status::kOk);
  Written written{run.steps.front(), {}};
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    if (entry.path().filename() == file) written.bytes = test::read_file(entry.path());
  }
  REQUIRE_FALSE(written.bytes.empty());
  return written;
}

// Checks `bytes` against what `pattern` must produce.
void check_bytes(const std::string& bytes, const std::string& pattern) {
  INFO("data=" << pattern << ", " << bytes.size() << " bytes");
  const double ratio = test::zlib_ratio(bytes);
  if (pattern == "zeros") {
    CHECK(std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; }));
  } else if (pattern == "random") {
    CHECK(ratio > 0.99);
    // No two filesystem blocks alike: nothing for deduplication.
    std::vector<std::string> blocks;
    for (std::size_t at = 0; at + kFsBlock <= bytes.size(); at += kFsBlock) {
      blocks.push_back(bytes.substr(at, kFsBlock));
    }
    std::sort(blocks.begin(), blocks.end());
    CHECK(std::adjacent_find(blocks.begin(), blocks.end()) == blocks.end());
  } else if (pattern == "compressible:50") {
    CHECK(ratio == Approx(0.5).margin(0.03));
  }
}

// bonnie++'s block output: chunk i holds, at byte j, how often byte j was incremented by the
// writes 0..i (`buf[k % chunk]++` before write k).
void check_bonnie_blocks(const std::string& bytes, std::size_t chunk) {
  REQUIRE(bytes.size() % chunk == 0);
  for (std::size_t i = 0; i < bytes.size() / chunk; ++i) {
    for (std::size_t j = 0; j < chunk; ++j) {
      const std::size_t bumps = j <= i ? (i - j) / chunk + 1 : 0;
      if (static_cast<unsigned char>(bytes[i * chunk + j]) != (bumps & 0xFF)) {
        FAIL("chunk " << i << " byte " << j << " is not bonnie++'s");
      }
    }
  }
}

using test::DirectContext;

}  // namespace

TEST_CASE("disk writes each data pattern, random by default", "[data]") {
  for (const std::string pattern : {"random", "zeros", "compressible:50"}) {
    const Written w =
        run_and_read("disk", {{"bs", "4k"}, {"size", "2m"}, {"data", pattern}}, "bigfile");
    CHECK(attribute(w.step, "data") == pattern);
    check_bytes(w.bytes, pattern);
  }
  const Written by_default = run_and_read("disk", {{"bs", "64k"}, {"size", "2m"}}, "bigfile");
  CHECK(attribute(by_default.step, "data") == "random");
  check_bytes(by_default.bytes, "random");
  // A read phase's file, created untimed, holds the pattern too.
  const Written read = run_and_read(
      "disk", {{"operation", "read"}, {"bs", "4k"}, {"size", "2m"}, {"data", "compressible:50"}},
      "bigfile");
  check_bytes(read.bytes, "compressible:50");
}

namespace {

// Distinct 4 KiB blocks of `bytes` (hashed), and the fewest zero bytes in any of them.
struct BlockCensus {
  std::size_t distinct = 0;
  std::size_t fewest_zeros = SIZE_MAX;
};
BlockCensus census(const std::string& bytes) {
  std::unordered_set<std::string> blocks;
  BlockCensus result;
  for (std::size_t at = 0; at + kFsBlock <= bytes.size(); at += kFsBlock) {
    const std::string block = bytes.substr(at, kFsBlock);
    result.fewest_zeros = std::min<std::size_t>(
        result.fewest_zeros, static_cast<std::size_t>(std::count(block.begin(), block.end(), 0)));
    blocks.insert(block);
  }
  result.distinct = blocks.size();
  return result;
}

}  // namespace

TEST_CASE("disk writes dedupe:PCT with exactly PCT percent repeated blocks, seeded", "[data]") {
  // 1000 blocks of 4 KiB in random order: floor(1000 x 25 %) = 250 repeat an earlier block.
  const std::map<std::string, std::string> params{
      {"bs", "4k"}, {"blocks", "1000"}, {"seek", "random"}, {"data", "dedupe:25"}};
  const Written dedupe = run_and_read("disk", params, "bigfile", 11);
  CHECK(attribute(dedupe.step, "data") == "dedupe:25");
  REQUIRE(dedupe.bytes.size() == 1000 * kFsBlock);
  const BlockCensus plain = census(dedupe.bytes);
  CHECK(plain.distinct == 750);
  // The unique blocks stay incompressible; zlib's 32 KiB window catches only the few repeats
  // of a block just before them.
  CHECK(test::zlib_ratio(dedupe.bytes) > 0.95);
  // The same seed writes the same bytes; another seed others.
  CHECK(run_and_read("disk", params, "bigfile", 11).bytes == dedupe.bytes);
  CHECK(run_and_read("disk", params, "bigfile", 12).bytes != dedupe.bytes);

  // Both: 750 distinct blocks, each with compressible:50's 2048 zero bytes per 4 KiB (and only
  // the few random bytes that happen to be zero besides).
  auto both_params = params;
  both_params["data"] = "compressible:50,dedupe:25";
  const Written both = run_and_read("disk", both_params, "bigfile", 11);
  CHECK(attribute(both.step, "data") == "compressible:50,dedupe:25");
  const BlockCensus mixed = census(both.bytes);
  CHECK(mixed.distinct == 750);
  CHECK(mixed.fewest_zeros >= 2048);
  CHECK(mixed.fewest_zeros < 2048 + 64);
}

TEST_CASE("bad dedupe percents are refused with exit 2 naming the field", "[data]") {
  test::TempDir dir("data-dedupe-refused");
  for (const char* value : {"dedupe:0", "dedupe:100", "dedupe:x", "compressible:50,dedupe:0"}) {
    INFO(value);
    const test::CliResult cli = test::run_cli({"run", "disk", "-d", dir.path().string(), "size=64k",
                                               "bs=4k", std::string("data=") + value});
    CHECK(cli.exit_code == 2);
    CHECK_THAT(cli.err, Catch::Contains(fmt::format("data: '{}'", value)));
    CHECK(test::TempDir::list(dir.path()).empty());  // nothing written
  }
}

TEST_CASE("tiotest writes each data pattern, zeros by default as tiotest", "[data]") {
  const std::map<std::string, std::string> base{{"threads", "1"},
                                                {"size", "2m"},
                                                {"block_size", "4k"},
                                                {"random_ops", "64"},
                                                {"skip", "read,random_read"}};
  for (const std::string pattern : {"random", "zeros", "compressible:50"}) {
    auto params = base;
    params["data"] = pattern;
    const Written w = run_and_read("tiotest", params, "_tiotest.thr0");
    CHECK(attribute(w.step, "data") == pattern);
    check_bytes(w.bytes, pattern);
  }
  const Written by_default = run_and_read("tiotest", base, "_tiotest.thr0");
  CHECK(attribute(by_default.step, "data") == "zeros");
  check_bytes(by_default.bytes, "zeros");
  // tiotest -c writes random bytes: so does the consistency check, and verifies them.
  auto verify = base;
  verify["consistency_check"] = "true";
  verify["skip"] = "";
  const Written checked = run_and_read("tiotest", verify, "_tiotest.thr0");
  CHECK(attribute(checked.step, "data") == "random");
  check_bytes(checked.bytes, "random");
  verify["data"] = "zeros";
  const Registry registry = test::make_full_registry();
  test::TempDir dir("data");
  CHECK_THROWS_WITH(
      Runner(registry, {})
          .validate(std::vector<Step>{
              Step{.workload = "tiotest", .params = verify, .targets = {dir.path()}}}),
      Catch::Contains("data: consistency_check verifies every block read against random data"));
}

TEST_CASE("dbench writes each data pattern, zeros by default as dbench 4", "[data]") {
  test::TempDir scratch("dbenchdata");
  const auto loadfile = scratch.path() / "write.load";
  {
    std::ofstream out(loadfile);
    out << "Mkdir \"\\clients\" NT_STATUS_OK\n"
           "Mkdir \"\\clients\\client1\" NT_STATUS_OK\n"
           "NTCreateX \"\\clients\\client1\\data.bin\" 0x40 0x2 9938 NT_STATUS_OK\n";
    for (int i = 0; i < 32; ++i) {
      out << "WriteX 9938 " << i * 65536 << " 65536 65536 NT_STATUS_OK\n";
    }
    out << "Close 9938 NT_STATUS_OK\n";
  }
  const std::map<std::string, std::string> base{{"loadfile", loadfile.string()},
                                                {"run_once", "true"},
                                                {"skip_cleanup", "true"},
                                                {"time_limit", "30s"},
                                                {"warmup", "0s"}};
  for (const std::string pattern : {"random", "zeros", "compressible:50"}) {
    auto params = base;
    params["data"] = pattern;
    const Written w = run_and_read("dbench", params, "data.bin");
    CHECK(attribute(w.step, "data") == pattern);
    CHECK(w.bytes.size() == 32 * 65536);
    check_bytes(w.bytes, pattern);
  }
  const Written by_default = run_and_read("dbench", base, "data.bin");
  CHECK(attribute(by_default.step, "data") == "zeros");
  check_bytes(by_default.bytes, "zeros");
}

TEST_CASE("bonnie's block output writes each data pattern, bonnie++'s buffer by default",
          "[data]") {
  test::TempDir dir("bonniedata");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  for (const std::string pattern : {"bonnie", "random", "zeros", "compressible:50"}) {
    const auto file = dir.path() / ("Bonnie." + pattern);
    plugins::bonnie::IoArgs args{.run_dir = confined,
                                 .name = "Bonnie." + pattern,
                                 .file = file,
                                 .chunk_bytes = 8192,
                                 .file_bytes = 2 << 20,
                                 .data = DataPattern::parse(pattern, "data"),
                                 .seed = 5};
    DirectContext direct;
    plugins::bonnie::make_io_worker(plugins::bonnie::PhaseId::kPutBlock, args)->run(direct.ctx);
    const std::string bytes = test::read_file(file);
    REQUIRE(bytes.size() == 2 << 20);
    if (pattern == "bonnie") {
      check_bonnie_blocks(bytes, 8192);
    } else {
      check_bytes(bytes, pattern);
    }
  }
  // The workload's default, recorded in the result.
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  const RunResult run = Runner(registry, {})
                            .run(std::vector<Step>{Step{.workload = "bonnie",
                                                        .params = {{"size", "2m"},
                                                                   {"files", "0"},
                                                                   {"ram", "0"},
                                                                   {"per_char", "0"},
                                                                   {"phases", "put_block"}},
                                                        .targets = {dir.path()}}},
                                 reporter);
  REQUIRE(run.status == Status::kOk);
  CHECK(attribute(run.steps.front(), "data") == "bonnie");
}

TEST_CASE("bonnie's file tests write the data pattern, zeros for bonnie++'s own", "[data]") {
  // On a tmpfs where possible: the create phase ends with sync(2), which would otherwise wait
  // for the 8 MiB each pattern writes to reach the disk.
  const test::ScopedTmpfs tmpfs("64m");
  test::TempDir fallback("bonniefiles");
  const fs::path dir = tmpfs.mounted() ? tmpfs.path() : fallback.path();
  // The file workers work beneath the run directory, as the runner opens it.
  const OwnedConfinedDir confined = test::open_confined(dir);
  for (const std::string pattern : {"bonnie", "random", "compressible:50"}) {
    const auto test_dir = dir / ("files." + pattern);
    plugins::bonnie::FileArgs args{.run_dir = confined,
                                   .test_name = "files." + pattern,
                                   .test_dir = test_dir,
                                   .spec = {.num_k = 1, .max_bytes = 8192, .min_bytes = 8192},
                                   .seed = 3,
                                   .data = DataPattern::parse(pattern, "data")};
    DirectContext direct;
    plugins::bonnie::make_file_worker(plugins::bonnie::PhaseId::kSeqCreate, args)->run(direct.ctx);
    // A filesystem compresses file by file: so does the check.
    std::string all;
    double compressed = 0;
    for (const auto& entry : fs::directory_iterator(test_dir)) {
      const std::string bytes = test::read_file(entry.path());
      compressed += test::zlib_ratio(bytes) * static_cast<double>(bytes.size());
      all += bytes;
    }
    REQUIRE(all.size() == 1024 * 8192);
    const double ratio = compressed / static_cast<double>(all.size());
    INFO("data=" << pattern << ", compressed file by file to " << ratio);
    if (pattern == "bonnie") {
      CHECK(std::all_of(all.begin(), all.end(), [](char c) { return c == 0; }));
    } else if (pattern == "random") {
      CHECK(ratio > 0.99);
      std::vector<std::string> blocks;
      for (std::size_t at = 0; at < all.size(); at += kFsBlock)
        blocks.push_back(all.substr(at, kFsBlock));
      std::sort(blocks.begin(), blocks.end());
      CHECK(std::adjacent_find(blocks.begin(), blocks.end()) == blocks.end());
    } else {
      CHECK(ratio == Approx(0.5).margin(0.03));
    }
  }
}
