// bonnie++'s own converters must accept iobench's CSV and show its values. Skipped (with a printed
// reason) when Debian's bonnie++ package is not installed.

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "plugins/bonnie/csv_formatter.hpp"
#include "tests/bonnie/csv_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench::plugins::bonnie;
using namespace iobench::plugins::bonnie::test;

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `program < input`, capturing stdout and stderr.
ToolRun run_tool(const std::string& program, const std::string& input) {
  iobench::test::TempDir dir("bonnie_csv");
  const auto in_path = dir.path() / "in.csv";
  const auto err_path = dir.path() / "err.txt";
  std::ofstream(in_path) << input;
  const std::string command =
      program + " < '" + in_path.string() + "' 2> '" + err_path.string() + "'";
  ToolRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) run.out.append(buf, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.err = iobench::test::read_file(err_path);
  return run;
}

std::string csv_of(const StepBuilder& b) {
  std::ostringstream out;
  format_csv_step(b.step(), out);
  return out.str();
}

std::string all_fixtures_csv() {
  return csv_of(vm_fixture()) + csv_of(big_io_fixture()) + csv_of(files_fixture()) +
         csv_of(copies_fixture());
}

}  // namespace

TEST_CASE("bon_csv2txt reads iobench csv and shows its values", "[bonnie][csv][tools]") {
  if (!on_path("bon_csv2txt")) {
    WARN("bon_csv2txt is not installed (Debian package bonnie++); test skipped");
    return;
  }
  const ToolRun run = run_tool("bon_csv2txt", all_fixtures_csv());
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.err.empty());
  // I/O rows: bon_csv2txt joins size, chunk, seeks and seekers.
  // ("+++++" comes out as "0k": bon_csv2txt reformats every speed field.)
  CHECK(run.out.find("vm      64M::8192:5  964k  99    0k +++    0k +++ 1594k  99") !=
        std::string::npos);
  CHECK(run.out.find("Latency             12420us     174us     253us    9145us      57us    "
                     "7956us") != std::string::npos);
  CHECK(run.out.find("h       2G:1m:100:2            271m  99  2.7g  99") != std::string::npos);
  CHECK(run.out.find("host.1   1G::8192:5            100m  50") != std::string::npos);
  CHECK(run.out.find("host.2   1G::8192:5           50.0m  10") != std::string::npos);
  CHECK(run.out.find("host     1G::8192:5            150m  60") != std::string::npos);
  // File rows: num:max:min/dirs from their own columns.
  CHECK(run.out.find("h     1:4096:1024/3  1915  97 +++++ +++ +++++ +++  1469  96") !=
        std::string::npos);
  CHECK(run.out.find("Latency               874us     120us    1828us    1703us     160us    "
                     "7339us") != std::string::npos);
}

TEST_CASE("bon_csv2html reads iobench csv and shows its values", "[bonnie][csv][tools]") {
  if (!on_path("bon_csv2html")) {
    WARN("bon_csv2html is not installed (Debian package bonnie++); test skipped");
    return;
  }
  const ToolRun run = run_tool("bon_csv2html", all_fixtures_csv());
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.err.find("Can't process") == std::string::npos);
  CHECK(run.err.empty());
  const std::string& html = run.out;
  CHECK(html.find("</html>") != std::string::npos);
  CHECK(html.find("<font size=+1>vm</td>") != std::string::npos);
  CHECK(html.find("<font size=+1>host.1</td>") != std::string::npos);
  CHECK(html.find("<font size=+1>host.2</td>") != std::string::npos);
  // Sizes and the chunk column (shown because iobench fills it).
  CHECK(html.find(">2G</td>") != std::string::npos);
  CHECK(html.find(">1m</td>") != std::string::npos);
  // Block rates in MiB/s ((KiB/s + 512) / 1024), per-char in KiB/s (cells may be coloured).
  CHECK(html.find(">271</td>") != std::string::npos);
  CHECK(html.find(">2795</td>") != std::string::npos);
  CHECK(html.find(">964</td>") != std::string::npos);
  CHECK(html.find(">150</td>") != std::string::npos);
  // The file shape with the directory count in its column, the file rates and latencies.
  CHECK(html.find(">4096</td><td class=\"size\" bgcolor=\"#FFFFFF\">1024</td><td class=\"size\" "
                  "bgcolor=\"#FFFFFF\">3</td>") != std::string::npos);
  CHECK(html.find(">1915</td>") != std::string::npos);
  CHECK(html.find(">874us</td>") != std::string::npos);
  CHECK(html.find(">12420us</td>") != std::string::npos);
}

TEST_CASE("bon_csv2html skips the header of repeated runs", "[bonnie][csv][tools]") {
  if (!on_path("bon_csv2html")) {
    WARN("bon_csv2html is not installed (Debian package bonnie++); test skipped");
    return;
  }
  const std::string csv = csv_of(repetitions_fixture());
  REQUIRE(csv.rfind("format_version,", 0) == 0);
  const ToolRun run = run_tool("bon_csv2html", csv);
  CHECK(run.exit_code == 0);
  CHECK(run.err.empty());
  CHECK(run.out.find(">10</td>") != std::string::npos);  // 10240 KiB/s -> 10 MiB/s
  CHECK(run.out.find(">5</td>") != std::string::npos);
  CHECK(run.out.find("format_version") == std::string::npos);
}
