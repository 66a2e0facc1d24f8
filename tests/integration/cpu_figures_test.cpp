// Every CPU figure iobench prints or writes covers only the measured window, so none exceeds
// what the machine's CPUs can do in that time (issue: a 64 KiB read after its file was created
// untimed printed "usr 3734.7%" on 2 CPUs).
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/test_support.hpp"

using iobench::test::run_cli;
using iobench::test::TempDir;

namespace {

// Wall time x threads, plus the accounting's granularity (see tests/core/cpu_window_test.cpp).
double most_cpu_ns(double wall_ns, double threads) { return wall_ns * threads * 1.001 + 5'000; }

std::uint64_t cpu_total(const nlohmann::json& cpu, const char* user, const char* system) {
  return cpu.at(user).get<std::uint64_t>() + cpu.at(system).get<std::uint64_t>();
}

// Checks every CPU figure of every phase in an iobench-result document; returns the CPU count.
unsigned check_json_cpu(const nlohmann::json& doc) {
  const unsigned cpus = doc.at("environment").at("cpu_count").get<unsigned>();
  REQUIRE(cpus >= 1);
  for (const nlohmann::json& step : doc.at("steps")) {
    for (const nlohmann::json& phase : step.at("phases")) {
      const auto wall = phase.at("wall_ns").get<double>();
      const nlohmann::json& cpu = phase.at("cpu");
      INFO(step.at("name") << " / " << phase.at("name") << ": " << phase.dump());
      const std::uint64_t process = cpu_total(cpu, "process_user_ns", "process_system_ns");
      const std::uint64_t workers = cpu_total(cpu, "workers_user_ns", "workers_system_ns");
      CHECK(static_cast<double>(process) <= most_cpu_ns(wall, cpus));
      CHECK(workers <= process);
      CHECK(cpu.at("system_busy_percent").get<double>() <= 100.0);
      for (const nlohmann::json& worker : phase.at("workers")) {
        const auto elapsed = worker.at("elapsed_ns").get<double>();
        CHECK(static_cast<double>(cpu_total(worker.at("cpu"), "user_ns", "system_ns")) <=
              most_cpu_ns(elapsed, 1));
      }
    }
  }
  return cpus;
}

nlohmann::json run_json(std::vector<std::string> args, std::string& text) {
  TempDir out("cpu-json");
  const auto path = out.path() / "r.json";
  args.insert(args.end(), {"--format", "json", "-o", path.string(), "-q"});
  const auto result = run_cli(args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  text = result.out;
  return nlohmann::json::parse(iobench::test::read_file(path));
}

}  // namespace

TEST_CASE("disk: the CPU line and JSON stay within wall time x CPUs", "[integration][cpu]") {
  TempDir dir("cpu-disk");
  const std::string d = dir.path().string();
  const std::vector<std::vector<std::string>> runs{
      // The issue's case: a tiny read whose 64 KiB file is first created (untimed).
      {"run", "disk", "-d", d, "operation=read", "size=64k", "bs=4k"},
      // A warm-up before a short measured time.
      {"run", "disk", "-d", d, "operation=read", "size=1m", "bs=4k", "seek=random",
       "iterations=1000000", "--warmup", "300ms", "--time", "50ms"},
      // Two targets, so two threads in one window.
      {"run", "disk", "-d", d, "-d", d, "operation=write", "size=256k", "bs=4k"},
  };
  for (const auto& args : runs) {
    std::string text;
    const nlohmann::json doc = run_json(args, text);
    const unsigned cpus = check_json_cpu(doc);
    const std::regex line(R"(cpu: usr ([0-9.]+)%, sys ([0-9.]+)% of one CPU)");
    std::smatch m;
    REQUIRE(std::regex_search(text, m, line));
    INFO(m.str(0));
    CHECK(std::stod(m[1]) + std::stod(m[2]) <= 100.0 * cpus + 0.2);  // 0.1 rounding each
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("a sweep table's CPU % stays within wall time x CPUs", "[integration][cpu]") {
  TempDir dir("cpu-sweep");
  TempDir files("cpu-sweep-suite");
  const auto suite = files.path() / "sweep.json";
  std::ofstream(suite) << R"({"steps": [{"name": "rd", "workload": "disk",
      "params": {"operation": "read", "size": "64k"},
      "sweep": {"param": "bs", "values": ["4k", "16k", "64k"]}}]})";
  std::string text;
  const nlohmann::json doc = run_json({"run", suite.string(), "-d", dir.path().string()}, text);
  const unsigned cpus = check_json_cpu(doc);
  const nlohmann::json& table = doc.at("suite").at("steps").at(0).at("sweep_table");
  REQUIRE(table.size() == 3);
  for (const nlohmann::json& row : table)
    CHECK(row.at("cpu_percent").get<double>() <= 100.0 * cpus);
  // The text table: "bs MB/s ops/s MB/s/worker max-lat p99-lat CPU% fairness".
  std::istringstream lines(text);
  int rows = 0;
  for (std::string l; std::getline(lines, l);) {
    std::istringstream fields(l);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    if (f.size() < 8 || (f[0] != "4k" && f[0] != "16k" && f[0] != "64k")) continue;
    ++rows;
    CHECK(std::stod(f[6]) <= 100.0 * cpus + 0.1);
  }
  CHECK(rows == 3);
}

TEST_CASE("tiotest's CPU columns and bonnie's JSON stay within wall time x CPUs",
          "[integration][cpu]") {
  TempDir dir("cpu-tio");
  std::string text;
  nlohmann::json doc = run_json({"run", "tiotest", "-d", dir.path().string(), "size=256k",
                                 "block_size=4k", "threads=2", "random_ops=50"},
                                text);
  check_json_cpu(doc);
  // "| Write           0 MBs |    0.0 s |  38.679 MB/s |   4.7 %  |   0.0 % |": tiotest's CPU
  // is the per-thread average in % of one CPU, so at most 100 %.
  const std::regex row(
      R"(\| (Write|Random Write|Read|Random Read) .*\| +([0-9.]+) %  \| +([0-9.]+) % \|)");
  int rows = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator();
       ++it) {
    ++rows;
    INFO((*it).str(0));
    CHECK(std::stod((*it)[2]) + std::stod((*it)[3]) <= 100.0 + 0.2);
  }
  CHECK(rows == 4);

  doc = run_json(
      {"run", "bonnie", "-d", dir.path().string(), "size=4m", "files=1", "ram=0", "per_char=1m"},
      text);
  check_json_cpu(doc);
  CHECK(dir.entries().empty());
}
