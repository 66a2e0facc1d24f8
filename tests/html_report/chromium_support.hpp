#pragma once

// Headless Chromium for the browser tests: the command line each of them runs Debian's chromium
// with (one copy, so every test starts the browser alike).
#include <string>
#include <vector>

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

}  // namespace iobench::test
