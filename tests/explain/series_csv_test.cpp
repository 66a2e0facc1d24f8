// Issue 29 per interval in --time-series-csv: each block device of the run's series gets six
// columns after the application's, filled on the "all" rows from the point's /proc/diskstats
// deltas. Run through the CLI, the CSV is read back beside the same run's JSON.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace {

using namespace iobench;
using Json = nlohmann::json;

// The columns the CSV had before the devices' (csv_outputs.hpp), which stay first and in order.
constexpr std::size_t kApplicationColumns = 20;

std::size_t column(const test::CsvRecord& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  FAIL("no column " << name);
  return 0;
}

// The point's device `name` in the JSON, or null.
Json json_device(const Json& point, const std::string& name) {
  if (!point.contains("devices")) return nullptr;
  for (const Json& d : point["devices"]) {
    if (d["name"] == name) return d;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the time-series CSV's device columns add up to the phase's device writes in its JSON",
          "[explain][series][csv]") {
  const test::LoopFs loop(64 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  constexpr std::uint64_t kBytes = 8 * test::kMiB;
  const test::TempDir out("series_csv");
  const std::filesystem::path csv = out.path() / "series.csv";
  // 16 MiB/s: the 8 MiB of O_DIRECT 4 KiB writes take about half a second, several points.
  const test::CliResult r =
      test::run_cli({"run", "disk", "-d", loop.mount_point().string(), "operation=write",
                     "mode=direct", "bs=4k", "size=8m", "rate_bytes=16m", "--interval", "100ms",
                     "-f", "json", "-q", "--time-series-csv", csv.string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);
  const Json& phase = j["steps"][0]["phases"][0];
  const Json& points = phase.at("time_series").at("points");
  REQUIRE(points.size() >= 2);
  std::uint64_t phase_device = 0;
  for (const Json& d : phase.at("explain").at("devices")) {
    if (d["name"] == loop.name()) phase_device = d["write_bytes"].get<std::uint64_t>();
  }
  REQUIRE(phase_device >= kBytes);

  const std::vector<test::CsvRecord> rows = test::parse_csv(test::read_file(csv));
  REQUIRE(rows.size() == 1 + 2 * points.size());  // one worker and the all row per point
  const test::CsvRecord& header = rows[0];
  CHECK(header.at(kApplicationColumns - 1) == "lat_p99_9_ns");
  // The loop device is the file system's: its columns come first, the backing device's after.
  const std::string prefix = "dev_" + loop.name() + "_";
  REQUIRE(header.size() >= kApplicationColumns + 6);
  CHECK(header[kApplicationColumns] == prefix + "read_bytes");
  const std::vector<std::string> fields = {"read_bytes", "write_bytes", "util_percent",
                                           "aqu_sz",     "r_await_ms",  "w_await_ms"};
  for (std::size_t f = 0; f < fields.size(); ++f) {
    CHECK(header[kApplicationColumns + f] == prefix + fields[f]);
  }
  CHECK((header.size() - kApplicationColumns) % 6 == 0);

  const std::size_t worker = column(header, "worker");
  const std::size_t point = column(header, "point");
  const std::size_t write_bytes = column(header, prefix + "write_bytes");
  std::uint64_t csv_sum = 0, json_sum = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const test::CsvRecord& row = rows[i];
    REQUIRE(row.size() == header.size());
    if (row[worker] != "all") {
      for (std::size_t c = kApplicationColumns; c < row.size(); ++c) CHECK(row[c].empty());
      continue;
    }
    const Json d = json_device(points.at(std::stoull(row[point])), loop.name());
    REQUIRE(d.is_object());
    CHECK(std::stoull(row[write_bytes]) == d["write_bytes"].get<std::uint64_t>());
    CHECK(std::stoull(row[column(header, prefix + "read_bytes")]) ==
          d["read_bytes"].get<std::uint64_t>());
    CHECK(std::stod(row[column(header, prefix + "util_percent")]) ==
          Approx(d["util_percent"].get<double>()).margin(0.005));
    CHECK(std::stod(row[column(header, prefix + "aqu_sz")]) ==
          Approx(d["avg_queue_size"].get<double>()).margin(0.0005));
    CHECK(std::stod(row[column(header, prefix + "w_await_ms")]) ==
          Approx(d["w_await_ms"].get<double>()).margin(0.0005));
    CHECK(std::stod(row[column(header, prefix + "r_await_ms")]) ==
          Approx(d["r_await_ms"].get<double>()).margin(0.0005));
    csv_sum += std::stoull(row[write_bytes]);
    json_sum += d["write_bytes"].get<std::uint64_t>();
  }
  CHECK(csv_sum == json_sum);
  CHECK(csv_sum >= kBytes);
  // The points' readings span the workers' run, the phase's snapshots the whole phase: within 1 %.
  CHECK(static_cast<double>(csv_sum) == Approx(static_cast<double>(phase_device)).epsilon(0.01));
}

TEST_CASE("the time-series CSV of a run on tmpfs has no device column", "[explain][series][csv]") {
  const test::ScopedTmpfs tmpfs("8m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  const test::TempDir out("series_csv_tmpfs");
  const std::filesystem::path csv = out.path() / "series.csv";
  const test::CliResult r =
      test::run_cli({"run", "disk", "-d", tmpfs.path().string(), "operation=write", "size=1m",
                     "--interval", "100ms", "-f", "json", "-q", "--time-series-csv", csv.string()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<test::CsvRecord> rows = test::parse_csv(test::read_file(csv));
  REQUIRE(rows.size() >= 3);
  CHECK(rows[0].size() == kApplicationColumns);
  CHECK(rows[0].back() == "lat_p99_9_ns");
  for (const test::CsvRecord& row : rows) CHECK(row.size() == kApplicationColumns);
}
