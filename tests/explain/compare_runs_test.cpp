// compare's explain block on two real runs of the iobench CLI on ext4 over a loop device: a
// 16 MiB buffered read primed into the page cache (prime=true) against the same read of a file
// created and evicted by the run. The differing finding is said first, and the side-by-side
// figures are each document's own.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <iobench/format.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace {

namespace test = iobench::test;
using Json = nlohmann::json;

// The read phase's explain object of a result file written by `iobench run ... -o`.
Json read_explain(const std::filesystem::path& result) {
  const Json doc = Json::parse(test::read_file(result));
  return doc.at("steps").at(0).at("phases").at(0).at("explain");
}

// The cells of the text block's row `title` (cells are separated by two or more spaces).
std::vector<std::string> figures_row(const std::string& text, const std::string& title) {
  const std::size_t at = text.find("\n  " + title + "  ");
  if (at == std::string::npos) return {};
  const std::string line = text.substr(at + 3, text.find('\n', at + 1) - at - 3);
  std::vector<std::string> cells;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const std::size_t gap = line.find("  ", pos);
    cells.push_back(line.substr(pos, gap - pos));
    if (gap == std::string::npos) break;
    pos = line.find_first_not_of(' ', gap);
  }
  return cells;
}

}  // namespace

TEST_CASE("compare of a cached and an uncached read on a loop fs names the device reads first",
          "[explain][compare][kernel]") {
  const test::LoopFs loop(64 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const test::TempDir out("explain-compare");
  const auto run = [&](const std::string& prime, const std::filesystem::path& result) {
    const test::CliResult r =
        test::run_cli({"run", "disk", "-d", loop.mount_point().string(), "operation=read", "bs=1m",
                       "size=16m", "prime=" + prime, "--format", "json", "-o", result.string()});
    REQUIRE(r.exit_code == 0);
  };
  const auto cached = out.path() / "cached.json";
  const auto dropped = out.path() / "dropped.json";
  run("true", cached);
  run("false", dropped);
  const Json a = read_explain(cached);
  const Json b = read_explain(dropped);
  const std::uint64_t a_read = a.at("derived").at("device_read_bytes");
  const std::uint64_t b_read = b.at("derived").at("device_read_bytes");
  // prime=true read the file before the phase; the other run evicted it after creating it.
  CHECK(a_read < test::kMiB);
  CHECK(b_read >= 16 * test::kMiB);

  const test::CliResult text = test::run_cli({"compare", cached.string(), dropped.string()});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Matchers::Contains(
                           "findings that differ first):\n  #1's reads came from the device "
                           "(device_reads), #0's from the page cache (page_cache_reads)\n"));
  using Cells = std::vector<std::string>;
  CHECK(figures_row(text.out, "device read") ==
        Cells{"device read", iobench::format_bytes(a_read), iobench::format_bytes(b_read)});
  CHECK(figures_row(text.out, "page cache reads") ==
        Cells{"page cache reads",
              fmt::format("{:.1f} %", a.at("derived").at("page_cache_read_percent").get<double>()),
              "0.0 %"});
  const std::string storage = "ext4 on " + loop.name() + " > ";
  const Cells storage_row = figures_row(text.out, "storage");
  REQUIRE(storage_row.size() == 3);
  CHECK(storage_row[1].starts_with(storage));
  CHECK(storage_row[2] == storage_row[1]);

  const test::CliResult json =
      test::run_cli({"compare", cached.string(), dropped.string(), "--format", "json"});
  REQUIRE(json.exit_code == 0);
  const Json e = Json::parse(json.out).at("phases").at(0).at("explain");
  CHECK(e.at("inputs").at(0).at("device_read_bytes") == a_read);
  CHECK(e.at("inputs").at(1).at("device_read_bytes") == b_read);
  CHECK(e.at("inputs").at(1).at("storage").get<std::string>().starts_with(storage));
  const Json& contrast = e.at("differences").at(0).at("contrasts").at(0);
  CHECK(contrast.at("input_finding") == "device_reads");
  CHECK(contrast.at("baseline_finding") == "page_cache_reads");
}
