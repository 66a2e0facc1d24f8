// mdtest with --drop-caches, as root on a tmpfs: before every phase the page cache is dropped and
// what the drop left, /proc/meminfo's Buffers and Cached read right after it, goes with the
// step as the attributes cache_left_buffers_bytes.<phase> and cache_left_cached_bytes.<phase>,
// which the text report prints under mdtest's output. A tmpfs file no drop frees is in every
// Cached figure. Skipped with the reason where root or the mount is refused.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace test = iobench::test;
using Json = nlohmann::json;

TEST_CASE("mdtest --drop-caches keeps what each drop left: a tmpfs file stays in Cached",
          "[mdtest][kernel]") {
  if (::geteuid() != 0) {
    WARN("skipped: dropping the page cache needs root");
    return;
  }
  const test::ScopedTmpfs tmpfs("48m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs was refused");
    return;
  }
  // 16 MiB of file pages in the tmpfs: no drop frees them.
  constexpr std::uint64_t kFiller = 16 * test::kMiB;
  {
    std::ofstream filler(tmpfs.path() / "filler", std::ios::binary);
    const std::vector<char> block(test::kMiB, 'x');
    for (std::uint64_t n = 0; n < kFiller / test::kMiB; ++n) {
      filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    REQUIRE(filler.good());
  }
  const test::TempDir out("mdtest-drop");
  const std::string json = (out.path() / "r.json").string();
  const test::CliResult r =
      test::run_cli({"run", "mdtest", "-d", tmpfs.path().string(), "-q", "items=20",
                     "files_only=true", "--drop-caches", "-f", "json", "-o", json});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const Json step = Json::parse(test::read_file(json)).at("steps").at(0);
  const Json& attributes = step.at("attributes");
  std::size_t checked = 0;
  for (const Json& phase : step.at("phases")) {
    const std::string name = phase.at("name").get<std::string>();
    INFO(name);
    REQUIRE(attributes.contains("cache_left_buffers_bytes." + name));
    REQUIRE(attributes.contains("cache_left_cached_bytes." + name));
    CHECK(attributes.at("cache_left_buffers_bytes." + name).get<std::int64_t>() >= 0);
    CHECK(attributes.at("cache_left_cached_bytes." + name).get<std::uint64_t>() >= kFiller);
    // In the phase's block of the generic text mdtest's output starts with, under its header.
    const std::size_t header = r.out.find("\n-- phase " + name + ": ");
    REQUIRE(header != std::string::npos);
    const std::size_t next = r.out.find('\n', header + 1);
    REQUIRE(next != std::string::npos);
    CHECK_THAT(r.out.substr(next + 1),
               Catch::StartsWith("cache     page cache dropped before this phase; "));
    ++checked;
  }
  CHECK(checked == 6);  // Tree creation, File creation, stat, read, removal, Tree removal
  // Once each: not again under mdtest's own tables.
  std::size_t notes = 0;
  for (std::size_t at = r.out.find("page cache dropped before this phase"); at != std::string::npos;
       at = r.out.find("page cache dropped before this phase", at + 1))
    ++notes;
  CHECK(notes == 6);
}

TEST_CASE("mdtest without --drop-caches records no drop", "[mdtest]") {
  const test::TempDir dir("mdtest-nodrop");
  const test::CliResult r = test::run_cli({"run", "mdtest", "-d", dir.path().string(), "-q",
                                           "items=4", "files_only=true", "-f", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(Json::parse(r.out).at("steps").at(0).at("attributes").dump(),
             !Catch::Contains("cache_left_"));
}
