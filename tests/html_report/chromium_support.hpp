#pragma once

// Headless Chromium for the browser tests: the command line each of them runs Debian's chromium
// with (one copy, so every test starts the browser alike).
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace iobench::test {

/// The argv that runs `chromium` (found on PATH; Debian's package) headless under
/// `timeout 120`, so a hung browser ends the test instead of the CI job: --no-sandbox (needed
/// as root; the pages are our own), no GPU, no first-run dialogs, the user data directory
/// `profile` (a fresh directory per test), and a virtual-time budget of 10 s (the pages draw
/// synchronously; the budget ends waiting early), followed by `args` (e.g. {"--dump-dom",
/// "file:///..."}). run_command runs it; exit 127 from timeout means chromium is not installed.
[[nodiscard]] inline std::vector<std::string> chromium_argv(const std::string& profile,
                                                            const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"timeout",
                                   "120",
                                   "chromium",
                                   "--headless=new",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--no-first-run",
                                   "--user-data-dir=" + profile,
                                   "--virtual-time-budget=10000"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

/// Whether headless Chromium starts here: runs chromium_argv(profile, {"--dump-dom",
/// "about:blank"}) and wants a DOM with a <body>. Where it does not (not installed: exit 127 from
/// timeout; no sandbox-less start in a container, ...), warns "skipped: chromium cannot start
/// here (exit N)" and prints "html_browser: skipped: ..." on stdout (ctest's log), so the caller
/// returns and the test passes as skipped.
[[nodiscard]] inline bool chromium_starts(const std::string& profile) {
  const CliResult probe = run_command(chromium_argv(profile, {"--dump-dom", "about:blank"}));
  if (probe.exit_code == 0 && probe.out.find("<body") != std::string::npos) return true;
  WARN("skipped: chromium cannot start here (exit " << probe.exit_code << ")");
  std::printf("html_browser: skipped: chromium cannot start (exit %d)\n", probe.exit_code);
  return false;
}

}  // namespace iobench::test
