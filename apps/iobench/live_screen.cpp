#include "live_screen.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "terminal.hpp"

// term.h defines macros named after every capability (columns, lines, ...): included last, and
// nothing below uses those names.
#include <term.h>

namespace iobench::cli {

struct LiveScreen::Caps {
  std::string enter;  // smcup + civis: the alternate screen, the cursor hidden
  std::string leave;  // cnorm + rmcup: back to the normal screen
  std::string home;   // cursor to the top left ("home", else "cup" to 0,0)
  std::string el;     // clear to the end of the line
  std::string ed;     // clear to the end of the screen
  std::size_t terminfo_cols = 0;
  std::size_t terminfo_lines = 0;
  bool auto_margins = false;
};

namespace {

// What gives the terminal back, for the atexit() and crash handlers: async-signal-safe reads.
char g_restore[256];
std::size_t g_restore_len = 0;
int g_restore_fd = -1;
std::atomic<bool> g_shown{false};

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the terminal is gone: nothing more to do
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void restore_now() {
  if (g_shown.exchange(false)) write_all(g_restore_fd, g_restore, g_restore_len);
}

extern "C" void restore_at_exit() { restore_now(); }

extern "C" void restore_on_crash(int signo) {
  restore_now();
  // SA_RESETHAND made the default action current: the signal, raised again, ends the process
  // as it would have (a core dump included).
  ::raise(signo);
}

void install_safety_nets() {
  static const bool installed = [] {
    std::atexit(restore_at_exit);
    // A forked worker process inherits the handlers: it must never restore the runner's screen.
    ::pthread_atfork(nullptr, nullptr, [] { g_shown.store(false); });
    struct sigaction action = {};
    action.sa_handler = restore_on_crash;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    // SIGQUIT's default action (a core dump) skips atexit: it restores first, as the others.
    for (const int signo : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT}) {
      struct sigaction previous = {};
      // A handler someone else installed (a sanitizer's) is left alone.
      if (::sigaction(signo, nullptr, &previous) == 0 && previous.sa_handler != SIG_DFL) continue;
      ::sigaction(signo, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

std::string capability(const char* name) {
  return expand_capability(::tigetstr(const_cast<char*>(name)));
}

bool is_tty(int fd) { return ::isatty(fd) != 0; }

// Same terminal device on both descriptors (stdout and stderr both on the one terminal).
bool same_terminal(int a, int b) {
  if (!is_tty(a) || !is_tty(b)) return false;
  char name_a[256], name_b[256];
  if (::ttyname_r(a, name_a, sizeof name_a) != 0) return false;
  if (::ttyname_r(b, name_b, sizeof name_b) != 0) return false;
  return std::strcmp(name_a, name_b) == 0;
}

}  // namespace

std::unique_ptr<LiveScreen> LiveScreen::open(int fd, std::string& why_not) {
  if (!is_tty(fd)) {
    why_not = "stderr is not a terminal";
    return nullptr;
  }
  const char* term = std::getenv("TERM");
  if (term == nullptr || *term == '\0' || std::strcmp(term, "dumb") == 0) {
    why_not = term == nullptr || *term == '\0' ? "TERM is not set" : "TERM is dumb";
    return nullptr;
  }
  int status = 0;
  if (::setupterm(nullptr, fd, &status) != 0) {
    why_not = "TERM has no terminfo entry";
    return nullptr;
  }
  auto caps = std::make_unique<Caps>();
  caps->home = capability("home");
  if (caps->home.empty()) {
    const char* cup = ::tigetstr(const_cast<char*>("cup"));
    if (cup != nullptr && cup != reinterpret_cast<char*>(-1)) {
      caps->home = expand_capability(::tiparm(cup, 0, 0));
    }
  }
  caps->el = capability("el");
  caps->ed = capability("ed");
  caps->enter = capability("smcup") + capability("civis");
  caps->leave = capability("cnorm") + capability("rmcup");
  const int cols = ::tigetnum(const_cast<char*>("cols"));
  const int rows = ::tigetnum(const_cast<char*>("lines"));
  caps->terminfo_cols = cols > 0 ? static_cast<std::size_t>(cols) : 0;
  caps->terminfo_lines = rows > 0 ? static_cast<std::size_t>(rows) : 0;
  caps->auto_margins = ::tigetflag(const_cast<char*>("am")) > 0;
  // Everything needed is copied out: the entry setupterm() allocated is freed (LeakSanitizer).
  ::del_curterm(cur_term);
  if (caps->home.empty() || caps->el.empty() || caps->ed.empty()) {
    why_not = "the terminal cannot address the cursor (terminfo: no home or cup, el, ed)";
    return nullptr;
  }
  if (caps->leave.size() >= sizeof g_restore) {
    why_not = "the terminal's restore sequence is too long";
    return nullptr;
  }
  return std::unique_ptr<LiveScreen>(new LiveScreen(fd, std::move(caps)));
}

LiveScreen::LiveScreen(int fd, std::unique_ptr<Caps> caps) : fd_(fd), caps_(std::move(caps)) {
  install_safety_nets();
  std::memcpy(g_restore, caps_->leave.data(), caps_->leave.size());
  g_restore_len = caps_->leave.size();
  g_restore_fd = fd_;
  // Results printed before the view reach the terminal first.
  std::cout.flush();
  std::cerr.flush();
  hold_stdout_ = same_terminal(STDOUT_FILENO, fd_);
  if (hold_stdout_) cout_buf_ = std::cout.rdbuf(&held_out_);
  cerr_buf_ = std::cerr.rdbuf(&held_err_);
  g_shown.store(true);
  write_all(fd_, caps_->enter.data(), caps_->enter.size());
}

LiveScreen::~LiveScreen() { close(); }

std::pair<std::size_t, std::size_t> LiveScreen::size() const {
  std::size_t cols = caps_->terminfo_cols > 0 ? caps_->terminfo_cols : 80;
  std::size_t rows = caps_->terminfo_lines > 0 ? caps_->terminfo_lines : 24;
  struct winsize size = {};
  if (::ioctl(fd_, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 && size.ws_row > 0) {
    cols = size.ws_col;
    rows = size.ws_row;
  }
  // With automatic margins, writing the last column may move the cursor on: one column less.
  return {caps_->auto_margins && cols > 1 ? cols - 1 : cols, rows};
}

void LiveScreen::draw(const std::vector<std::string>& screen) {
  if (!open_) return;
  std::string text = caps_->home;
  for (std::size_t i = 0; i < screen.size(); ++i) {
    if (i > 0) text += "\r\n";
    text += screen[i];
    text += caps_->el;
  }
  text += caps_->ed;  // below the last line: nothing left of a longer earlier frame
  write_all(fd_, text.data(), text.size());
}

void LiveScreen::close() {
  if (!open_) return;
  open_ = false;
  restore_now();
  std::cerr.rdbuf(cerr_buf_);
  if (hold_stdout_) std::cout.rdbuf(cout_buf_);
  // What was held, in the streams it was meant for.
  std::cout << held_out_.str();
  std::cout.flush();
  std::cerr << held_err_.str();
  std::cerr.flush();
}

}  // namespace iobench::cli
