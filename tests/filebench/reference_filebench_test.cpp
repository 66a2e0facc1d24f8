// iobench's example personalities run by filebench itself: each examples/filebench/*.f must be
// filebench Workload Model Language that filebench 1.5-alpha3 accepts and runs (no syntax error;
// an IO Summary at the end, or filebench's own early stop), with its fileset paths moved into a
// temporary directory and its `run N` shortened to 1 s. Needs filebench
// (IOBENCH_FILEBENCH=/path/to/filebench, built from its public source with its cvars installed) and
// setarch (filebench crashes under address randomisation); without them the test says so and checks
// nothing else.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;

TEST_CASE("filebench itself runs every example personality", "[filebench][reference]") {
  const char* filebench = filebench_test::filebench_binary_or_skip();
  if (filebench == nullptr) return;
  const fs::path examples = fs::path(IOBENCH_SOURCE_DIR) / "examples" / "filebench";
  std::size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(examples)) {
    if (entry.path().extension() != ".f") continue;
    INFO(entry.path().filename());
    const iobench::test::TempDir dir("fbref");
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string wml =
        std::regex_replace(text.str(), std::regex("path=[^,\\n]*"), "path=" + dir.path().string());
    wml = std::regex_replace(wml, std::regex("\\nrun [0-9]+"), "\nrun 1");
    const fs::path copy = dir.path() / entry.path().filename();
    filebench_test::write_file(copy, wml);
    const auto r = iobench::test::run_command({"setarch", "-R", filebench, "-f", copy.string()});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("syntax error") == std::string::npos);
    // filebench ran it: its summary, or its own early stop (1.5-alpha3 stops varmail's 1 s run
    // when a createfile finds no free entry of the 200, a race between its threads).
    CHECK((r.out.find("IO Summary:") != std::string::npos ||
           r.out.find("Run stopped early") != std::string::npos));
    ++checked;
  }
  CHECK(checked >= 4);
}
