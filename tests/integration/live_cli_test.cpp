// --live and --live-csv from the command line, off a terminal (the pty tests are in
// tests/progress/live_pty_test.cpp).
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

}  // namespace

TEST_CASE("run --live-csv: rows parse and their last byte counts are the result's",
          "[integration][live]") {
  TempDir a("livecsvA"), b("livecsvB"), files("livecsv-files");
  const auto csv_path = files.path() / "live.csv";
  const auto json_path = files.path() / "run.json";
  const auto result = run_cli({"run", "disk", "-d", a.path().string(), "-d", b.path().string(),
                               "bs=64k", "blocks=32", "--format", "json", "-o", json_path.string(),
                               "--progress", "100ms", "--live-csv", csv_path.string()});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto doc = nlohmann::json::parse(iobench::test::read_file(json_path));
  std::istringstream csv(iobench::test::read_file(csv_path));
  std::string line;
  REQUIRE(std::getline(csv, line));
  const std::vector<std::string> header = split(line);
  REQUIRE(header.size() == 16);
  CHECK(header[7] == "bytes");
  CHECK(header[9] == "throughput_MiB_per_s");
  // The last row of each phase and worker: what it had done when the phase ended.
  std::map<std::pair<std::string, std::string>, std::uint64_t> last_bytes;
  std::size_t rows = 0;
  double last_time = 0;
  while (std::getline(csv, line)) {
    const std::vector<std::string> fields = split(line);
    REQUIRE(fields.size() == header.size());
    const double time = std::stod(fields[0]);
    CHECK(time >= last_time);  // in order
    last_time = time;
    CHECK(fields[1] == "1");
    CHECK(fields[2] == "disk");
    if (fields[4].empty()) continue;  // the step's own set-up and clean-up
    last_bytes[{fields[4], fields[5]}] = std::stoull(fields[7]);
    ++rows;
  }
  CHECK(rows >= 3);
  const auto& phase = doc.at("steps").at(0).at("phases").at(0);
  REQUIRE(phase.at("name") == "write");
  CHECK(last_bytes.at({"write", "total"}) == phase.at("bytes").get<std::uint64_t>());
  CHECK(last_bytes.at({"write", "total"}) == 2 * 32 * 65536);
  for (const std::string worker : {"0", "1"}) {
    CHECK(last_bytes.at({"write", worker}) == 32 * 65536);
  }
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
}

TEST_CASE("run --live off a terminal says so once and the run goes on", "[integration][live]") {
  TempDir dir("live-off");
  const auto result = run_cli({"run", "disk", "-d", dir.path().string(), "bs=4k", "blocks=16",
                               "--live", "--progress", "100ms", "--format", "json"});
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.err,
             Catch::Contains("iobench: --live: stderr is not a terminal; no live view\n"));
  std::size_t notes = 0;
  for (std::size_t at = 0; (at = result.err.find("--live:", at)) != std::string::npos; ++at) {
    ++notes;
  }
  CHECK(notes == 1);
  // The plain progress lines and the results are still there.
  CHECK(nlohmann::json::parse(result.out).at("steps").at(0).at("phases").at(0).at("bytes") ==
        16 * 4096);
  CHECK(dir.entries().empty());
}

TEST_CASE("run --live with -q or --progress 0, and --live-csv in a bad place, are refused",
          "[integration][live]") {
  TempDir dir("live-bad");
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--live", "-q"},
        std::vector<std::string>{"--live", "--progress", "0"},
        std::vector<std::string>{"--live-csv", "x.csv", "--progress", "0"},
        std::vector<std::string>{"--live-csv", "/nonexistent/dir/live.csv"},
        std::vector<std::string>{"--live-csv", ""}}) {
    std::vector<std::string> args{"run", "disk", "-d", dir.path().string(), "blocks=16"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = run_cli(args);
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK_THAT(result.err, Catch::StartsWith("iobench: error: "));
    CHECK_THAT(result.err,
               Catch::StartsWith("iobench: error: --live") || Catch::Contains("and --live"));
    CHECK(dir.entries().empty());
  }
  CHECK_FALSE(std::filesystem::exists("x.csv"));
}
