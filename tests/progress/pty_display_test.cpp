// The CLI's live display in a real pseudo-terminal (forkpty, window size set on the pty), read
// back through a small terminal model: what a user at an 80- or 200-column terminal sees.
#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "tests/progress/terminal_model.hpp"
#include "tests/progress/terminfo_el.hpp"
#include "tests/support/test_support.hpp"

using iobench::test::TempDir;
using iobench::test::TerminalModel;

namespace {

struct PtyRun {
  int exit_code = -1;
  std::string bytes;  // stdout and stderr as the terminal got them, in order
};

// Runs the CLI with `args` on a new pseudo-terminal of `cols` columns with TERM=`term`.
PtyRun run_on_pty(const std::vector<std::string>& args, unsigned short cols,
                  const std::string& term) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    struct winsize size = {};
    size.ws_row = 24;
    size.ws_col = cols;
    if (::ioctl(STDIN_FILENO, TIOCSWINSZ, &size) != 0) ::_exit(126);
    ::setenv("TERM", term.c_str(), 1);
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
  PtyRun run;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0) {
      run.bytes.append(buffer, static_cast<std::size_t>(n));
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

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// Progress lines start "[i/n"; anything else the run printed (a long mount line) is results.
std::vector<std::string> progress_only(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& l : lines) {
    if (l.rfind('[', 0) == 0) out.push_back(l);
  }
  return out;
}

// A page-cache read at 4 KiB blocks that only its time limit ends.
std::vector<std::string> timed_read(const TempDir& dir, const std::string& time) {
  return {"run",
          "disk",
          "-d",
          dir.path().string(),
          "operation=read",
          "bs=4k",
          "size=1m",
          "seek=random",
          "prime=true",
          "iterations=100000000",
          "--time",
          time,
          "--warmup",
          "200ms",
          "--interval",
          "100ms",
          "--progress",
          "100ms"};
}

void check_live_screen(const PtyRun& run, const TerminalModel& screen, std::size_t width) {
  INFO(run.bytes);
  CHECK(run.exit_code == 0);
  // Drawn with cr and el only, never a line past the width.
  CHECK(screen.unknown_controls() == 0);
  CHECK(screen.frames().size() >= 3);
  CHECK(progress_only(screen.overflowed()).empty());
  for (const std::string& frame : screen.frames()) CHECK(frame.size() < width);
  // Cleared before the results: no progress text is left on screen, and the results start at
  // the beginning of their lines.
  CHECK(progress_only(screen.lines()).empty());
  CHECK_FALSE(any_contains(screen.lines(), "measuring"));
}

}  // namespace

TEST_CASE("a timed run's live line fits the terminal and is cleared before the results",
          "[progress][integration]") {
  const unsigned short cols = GENERATE(80, 200);
  INFO("columns: " << cols);
  TempDir dir("pty");
  const PtyRun run = run_on_pty(timed_read(dir, "600ms"), cols, "xterm");
  TerminalModel screen(cols, iobench::test::terminfo_el("xterm"));
  screen.feed(run.bytes);
  check_live_screen(run, screen, cols);
  REQUIRE(any_contains(screen.lines(), "Completed reading"));
  // Every state the run went through, and an ETA from the time limit.
  CHECK(any_contains(screen.frames(), "read: set-up"));
  CHECK(any_contains(screen.frames(), "read: warm-up"));
  CHECK(any_contains(screen.frames(), "read: measuring"));
  CHECK(any_contains(screen.frames(), "clean-up"));
  CHECK(any_contains(screen.frames(), "ETA "));
  CHECK(any_contains(screen.frames(), "%"));
  if (cols >= 200) {
    CHECK(any_contains(screen.frames(), "[1/1 disk] read: measuring"));
    CHECK(any_contains(screen.frames(), " IOPS"));
    CHECK(any_contains(screen.frames(), "p99 "));
    // A stable layout: every frame with rates has its p99 field ("p99 -" until one is known).
    for (const std::string& frame : screen.frames()) {
      if (frame.find(" IOPS") != std::string::npos) CHECK(frame.find(" p99 ") != std::string::npos);
    }
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("a suite's live line shows each run, its pause and an ETA", "[progress][integration]") {
  TempDir dir("pty-suite");
  TempDir files("pty-suite-file");
  const auto suite = files.path() / "tiny.json";
  std::ofstream(suite) << R"({"name": "tiny", "pause": "200ms", "steps": [
      {"name": "write-a-little", "workload": "disk", "params": {"size": "256k", "bs": "4k"}},
      {"name": "read-for-a-while", "workload": "disk", "time": "300ms", "params": {
        "operation": "read", "size": "1m", "bs": "4k", "seek": "random",
        "iterations": 100000000}}]})";
  const PtyRun run = run_on_pty({"run", suite.string(), "-d", dir.path().string(), "--progress",
                                 "100ms", "--interval", "100ms"},
                                80, "xterm");
  TerminalModel screen(80, iobench::test::terminfo_el("xterm"));
  screen.feed(run.bytes);
  check_live_screen(run, screen, 80);
  CHECK(any_contains(screen.frames(), "[1/2 write-a-little] write: measuring"));
  CHECK(any_contains(screen.frames(), "[2/2 read-for-a-while] pause"));
  CHECK(any_contains(screen.frames(), "[2/2 read-for-a-while] read: measuring"));
  // After the first run the suite's ETA is known (the mean run, the pause, the time limit).
  CHECK(any_contains(screen.frames(), "ETA "));
  CHECK(dir.entries().empty());
}

TEST_CASE("on a dumb terminal the progress is plain lines without escapes",
          "[progress][integration]") {
  TempDir dir("pty-dumb");
  const PtyRun run = run_on_pty(timed_read(dir, "400ms"), 80, "dumb");
  INFO(run.bytes);
  CHECK(run.exit_code == 0);
  CHECK(run.bytes.find('\x1b') == std::string::npos);
  CHECK(run.bytes.find("[1/1 disk] read: measuring, ") != std::string::npos);
  CHECK(dir.entries().empty());
}
