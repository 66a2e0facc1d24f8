#pragma once

// Golden-file comparison for reporter output. Goldens live in tests/report/golden/; a mismatch
// writes the actual output next to the test binary (<name>.actual) and names the first differing
// line. Set IOBENCH_UPDATE_GOLDEN=1 to rewrite the goldens (then review the diff before
// committing).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace iobench::test {

inline std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string golden_text(const std::string& name) {
  return read_whole_file(std::filesystem::path(IOBENCH_REPORT_GOLDEN_DIR) / name);
}

inline void check_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path golden = std::filesystem::path(IOBENCH_REPORT_GOLDEN_DIR) / name;
  if (std::getenv("IOBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << actual;
    WARN("rewrote golden " << golden);
    return;
  }
  REQUIRE(std::filesystem::exists(golden));
  const std::string expected = read_whole_file(golden);
  if (expected == actual) {
    SUCCEED("output equals golden " << golden);
    return;
  }
  const std::filesystem::path dump =
      std::filesystem::path(IOBENCH_REPORT_ACTUAL_DIR) / (name + ".actual");
  std::ofstream(dump, std::ios::binary) << actual;
  INFO("golden " << golden << " differs from the output; actual output in " << dump);
  std::istringstream want(expected);
  std::istringstream got(actual);
  std::string want_line;
  std::string got_line;
  for (int line = 1;; ++line) {
    const bool more_want = static_cast<bool>(std::getline(want, want_line));
    const bool more_got = static_cast<bool>(std::getline(got, got_line));
    if (!more_want && !more_got) break;
    if (more_want != more_got || want_line != got_line) {
      INFO("first difference at line " << line);
      CHECK(got_line == want_line);
      return;
    }
  }
  FAIL_CHECK("the texts differ only in their final line break");
}

}  // namespace iobench::test
