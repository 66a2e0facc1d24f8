// Progress lines use iobench's one convention (MiB = 2^20 bytes) and parse back consistently.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/test_support.hpp"

using iobench::test::read_file;
using iobench::test::run_cli;
using iobench::test::TempDir;

TEST_CASE("progress lines state MiB and agree with the ops they count", "[suite][units]") {
  TempDir dir("progress");
  TempDir out("progress-out");
  const auto json_path = out.path() / "r.json";
  // 4 KiB page-cache reads for 0.6 s, progress every 100 ms.
  const auto run =
      run_cli({"run", "disk", "-d", dir.path().string(), "operation=read", "bs=4k", "size=1m",
               "seek=random", "prime=true", "iterations=100000000", "--time", "600ms", "--progress",
               "100ms", "--format", "json", "-o", json_path.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(read_file(json_path));
  const auto& phase = doc.at("steps").at(0).at("phases").at(0);
  const double total_mib = phase.at("bytes").get<double>() / 1048576.0;

  const std::regex line(
      R"(\] read: measuring, ([0-9]+)s, ([0-9.]+) (B|KiB|MiB|GiB), ([0-9.]+) MiB/s, ([0-9]+)(k?) IOPS)");
  std::istringstream lines(run.err);
  std::size_t seen = 0;
  for (std::string text; std::getline(lines, text);) {
    std::smatch m;
    if (!std::regex_search(text, m, line)) continue;
    const std::string unit = m[3];
    const double scale = unit == "GiB"   ? 1024
                         : unit == "MiB" ? 1
                         : unit == "KiB" ? 1 / 1024.0
                                         : 1 / 1048576.0;
    const double mib = std::stod(m[2]) * scale;  // 3 significant digits: within 0.5%
    const double mib_per_s = std::stod(m[4]);
    const double iops = std::stod(m[5]) * (m[6] == "k" ? 1000 : 1);
    // Bytes so far never exceed what the phase moved in all; every op moved 4 KiB, so the
    // interval's MiB/s is its IOPS x 4096 / 2^20 (both rounded as printed).
    CHECK(mib <= total_mib * 1.005 + 0.05);
    if (iops >= 1000)
      CHECK(mib_per_s == Approx(iops * 4096 / 1048576.0).epsilon(0.01).margin(0.01));
    ++seen;
  }
  CHECK(seen >= 2);
  CHECK(run.err.find("MB/s") == std::string::npos);
}
