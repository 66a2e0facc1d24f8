// The HTML report's compare bars in real headless Chromium: labels on their own line and values
// beside the bars, none clipped by the picture's edge or hidden under a bar (the page measures
// its own texts with getBBox and writes the count into its self-check), and each bar coloured by
// the change against the baseline: significant better / worse, within noise, n=1, with a legend.
// Skipped, with the reason printed, only where Chromium cannot start.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <iobench/result_json.hpp>
#include <regex>

#include "tests/compare/compare_fixtures.hpp"
#include "tests/html_report/chromium_support.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::test;
using Catch::Matchers::Contains;

// Named apart: the unity build puts browser_test.cpp's helpers beside these.
namespace compare_bars {

// Three repetitions of step "seq" (write and read phases) with the given wall times, seconds/100.
ResultDocument runs(const std::vector<int>& write_cs, const std::vector<int>& read_cs) {
  std::vector<std::vector<PhaseResult>> repetitions;
  for (std::size_t r = 0; r < write_cs.size(); ++r) {
    repetitions.push_back({compare_write_phase(kSecond * write_cs[r] / 100),
                           compare_read_phase(kSecond * read_cs[r] / 100)});
  }
  return repeated_document(compare_environment(), repetitions);
}

std::string attribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  const std::regex re("id=\"iobench-selfcheck\"[^>]*" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? std::string(m[1]) : std::string("(absent)");
}

}  // namespace compare_bars

TEST_CASE("compare bars: labels not clipped, colours say better, worse or within noise") {
  TempDir dir("compare-bars");
  const std::string profile = (dir.path() / "profile").string();
  if (!chromium_starts(profile)) return;
  // Long file names, as results kept per kernel and filesystem are named.
  const std::string base =
      (dir.path() / "results-2026-01-15-linux-6.1.0-18-amd64-ext4-rw,relatime-baseline.json")
          .string();
  const std::string other =
      (dir.path() / "results-2026-02-01-linux-6.8.0-rc3-xfs-rw,noatime,logbsize=256k.json")
          .string();
  const std::string noisy = (dir.path() / "same-kernel-again.json").string();
  const std::string single = (dir.path() / "one-run-only-with-a-rather-long-name.json").string();
  // other: writes significantly faster, reads significantly slower; noisy: within noise;
  // single: one run each, faster writes and slower reads.
  std::ofstream(base) << to_json(compare_bars::runs({100, 101, 99}, {100, 101, 99}));
  std::ofstream(other) << to_json(compare_bars::runs({80, 81, 79}, {120, 121, 119}));
  std::ofstream(noisy) << to_json(compare_bars::runs({101, 99, 100}, {99, 101, 100}));
  std::ofstream(single) << to_json(compare_bars::runs({90}, {110}));
  const std::string html = (dir.path() / "compare.html").string();
  const CliResult report = run_cli({"report", base, other, noisy, single, "-o", html});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  const CliResult dom = run_command(chromium_argv(profile, {"--dump-dom", "file://" + html}));
  REQUIRE(dom.exit_code == 0);
  CHECK(compare_bars::attribute(dom.out, "data-errors") == "0");
  CHECK(compare_bars::attribute(dom.out, "data-compare-bars") ==
        "6");  // 2 phases x throughput, IOPS, p99
  CHECK(compare_bars::attribute(dom.out, "data-compare-clipped") == "0");
  CHECK(compare_bars::attribute(dom.out, "data-status") == "ok");
  CHECK_THAT(dom.out, Contains("class=\"bar base\""));
  CHECK_THAT(dom.out, Contains("class=\"bar better\""));         // write throughput, #2
  CHECK_THAT(dom.out, Contains("class=\"bar worse\""));          // read throughput, #2
  CHECK_THAT(dom.out, Contains("class=\"bar same\""));           // #3, within noise
  CHECK_THAT(dom.out, Contains("class=\"bar better unsure\""));  // #4: n=1
  CHECK_THAT(dom.out, Contains("class=\"bar worse unsure\""));
  CHECK_THAT(dom.out, Contains("class=\"change-legend\""));
  CHECK_THAT(dom.out, Contains("better, significant") && Contains("worse, significant"));
  const std::string png = std::string(IOBENCH_BROWSER_OUTPUT_DIR) + "/compare_bars.png";
  const CliResult shot =
      run_command(chromium_argv(profile, {"--hide-scrollbars", "--window-size=1200,900",
                                          "--screenshot=" + png, "file://" + html}));
  CHECK(shot.exit_code == 0);
  std::printf("html_browser: compare bars screenshot %s\n", png.c_str());
}

TEST_CASE("compare explain: both runs' findings drawn above the bars, the differing one first") {
  TempDir dir("compare-explain");
  const std::string profile = (dir.path() / "profile").string();
  if (!chromium_starts(profile)) return;
  // #1: 307 KiB of the 256 MiB came from loop0 (page cache); #2: all of it, loop0 saturated.
  const auto document = [](std::uint64_t sectors, std::uint64_t io_ms) {
    PhaseResult phase = compare_read_phase(kSecond);
    phase.explanation = loop_read_explanation(sectors, io_ms);
    return single_run_document(compare_environment(), {compare_step("seq", {phase})});
  };
  const std::string cached = (dir.path() / "cached.json").string();
  const std::string dropped = (dir.path() / "dropped.json").string();
  std::ofstream(cached) << to_json(document(614, 40));
  std::ofstream(dropped) << to_json(document(kLoopReadAppBytes / 512, 2000));
  const std::string html = (dir.path() / "explain.html").string();
  const CliResult report = run_cli({"report", cached, dropped, "-o", html});
  INFO(report.err);
  REQUIRE(report.exit_code == 0);
  const CliResult dom = run_command(chromium_argv(profile, {"--dump-dom", "file://" + html}));
  REQUIRE(dom.exit_code == 0);
  CHECK(compare_bars::attribute(dom.out, "data-errors") == "0");
  const std::string sentence =
      "#2's reads came from the device (device_reads), #1's from the page cache "
      "(page_cache_reads)";
  const std::size_t block = dom.out.find("class=\"explain compare-explain\"");
  REQUIRE(block != std::string::npos);
  CHECK(dom.out.find(sentence, block) < dom.out.find("only in #2, not in #1: device_saturated"));
  CHECK(dom.out.find("<td>device_reads, device_saturated</td>", block) != std::string::npos);
  CHECK(dom.out.find("<td>307 KiB</td><td>256 MiB</td>", block) != std::string::npos);
  CHECK(block < dom.out.find("compare-bars"));  // before the metrics' bars
}
