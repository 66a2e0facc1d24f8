// --live in a real pseudo-terminal (forkpty): the alternate screen is entered, drawn with a row
// per worker, and left at the end and after SIGINT, with the results printed after it.
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

using iobench::test::TempDir;

namespace {

// xterm's terminfo: smcup and rmcup switch to and from the alternate screen, civis and cnorm
// hide and show the cursor (the sequences every ncurses version has in them).
constexpr const char* kEnter = "\x1b[?1049h";
constexpr const char* kLeave = "\x1b[?1049l";
constexpr const char* kHideCursor = "\x1b[?25l";
constexpr const char* kShowCursor = "\x1b[?25h";

struct LivePtyRun {
  int exit_code = -1;
  bool timed_out = false;  // killed after 60 s
  std::string bytes;       // stdout and stderr as the terminal got them, in order
};

// Runs the CLI on a new 120x30 pseudo-terminal with TERM=xterm; with `interrupt_at`, sends
// SIGINT once that text has reached the terminal.
LivePtyRun run_live_on_pty(const std::vector<std::string>& args,
                           const std::string& interrupt_at = "") {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    struct winsize size = {};
    size.ws_row = 30;
    size.ws_col = 120;
    if (::ioctl(STDIN_FILENO, TIOCSWINSZ, &size) != 0) ::_exit(126);
    ::setenv("TERM", "xterm", 1);
    ::unsetenv("COLUMNS");
    ::unsetenv("LINES");
    std::vector<char*> argv;
    static std::string cli = IOBENCH_CLI_PATH;
    argv.push_back(cli.data());
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(cli.c_str(), argv.data());
    ::_exit(127);
  }
  LivePtyRun run;
  bool interrupted = false;
  char buffer[4096];
  // A run that never ends (the SIGINT's text never shown) fails here instead of at ctest's timeout.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      run.timed_out = true;
      break;
    }
    struct pollfd ready = {.fd = master, .events = POLLIN, .revents = 0};
    const int polled = ::poll(&ready, 1, 200);
    if (polled == 0 || (polled < 0 && errno == EINTR)) continue;
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0) {
      run.bytes.append(buffer, static_cast<std::size_t>(n));
      if (!interrupt_at.empty() && !interrupted &&
          run.bytes.find(interrupt_at) != std::string::npos) {
        ::kill(pid, SIGINT);
        interrupted = true;
      }
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed the terminal
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// Page-cache reads of two workers (one per target) that only the time limit ends.
std::vector<std::string> two_readers(const TempDir& a, const TempDir& b, const std::string& time) {
  return {"run",
          "disk",
          "-d",
          a.path().string(),
          "-d",
          b.path().string(),
          "operation=read",
          "bs=4k",
          "size=1m",
          "seek=random",
          "prime=true",
          "iterations=100000000",
          "--time",
          time,
          "--interval",
          "100ms",
          "--progress",
          "100ms",
          "--live"};
}

// The terminal was given back: the alternate screen left after it was last entered, the
// cursor shown after it was last hidden, and `results` printed on the normal screen.
void check_restored(const LivePtyRun& run, const std::string& results) {
  const std::size_t entered = run.bytes.rfind(kEnter);
  REQUIRE(entered != std::string::npos);
  const std::size_t left = run.bytes.rfind(kLeave);
  REQUIRE(left != std::string::npos);
  CHECK(left > entered);
  CHECK(run.bytes.find(kEnter) == entered);  // entered once
  REQUIRE(!run.timed_out);
  const std::size_t shown = run.bytes.rfind(kShowCursor);
  REQUIRE(shown != std::string::npos);
  const std::size_t hidden = run.bytes.rfind(kHideCursor);
  CHECK((hidden == std::string::npos || shown > hidden));
  // Drawn on the alternate screen: the column heads and both workers' rows.
  const std::string screen = run.bytes.substr(entered, left - entered);
  CHECK(screen.find("worker state") != std::string::npos);
  CHECK(screen.find("     1 ") != std::string::npos);
  CHECK(screen.find(" total ") != std::string::npos);
  CHECK(screen.find("ETA ") != std::string::npos);
  // The results follow on the normal screen, none of them lost on the alternate one.
  CHECK(screen.find(results) == std::string::npos);
  CHECK(run.bytes.find(results, left) != std::string::npos);
}

}  // namespace

TEST_CASE("run --live draws a row per worker on the alternate screen and leaves it at the end",
          "[progress][integration][live]") {
  TempDir a("live-a"), b("live-b");
  const LivePtyRun run = run_live_on_pty(two_readers(a, b, "500ms"));
  INFO(run.bytes);
  CHECK(run.exit_code == 0);
  check_restored(run, "Completed reading");
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
}

TEST_CASE("run --live gives the terminal back when SIGINT stops the run",
          "[progress][integration][live]") {
  TempDir a("live-int-a"), b("live-int-b");
  // A run far longer than the test: only the SIGINT, sent once the view shows the second
  // worker's row in a phase (the step's own set-up has none), ends it.
  const LivePtyRun run = run_live_on_pty(two_readers(a, b, "10m"), "     1 measuring");
  INFO(run.bytes);
  CHECK(run.exit_code == 130);
  check_restored(run, "interrupted");
  CHECK(a.entries().empty());
  CHECK(b.entries().empty());
}
