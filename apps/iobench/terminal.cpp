#include "terminal.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>

// term.h defines macros named after every capability (columns, lines, ...): included last, and
// nothing below uses those names.
#include <term.h>

namespace iobench::cli {
namespace {

std::atomic<bool> g_resized{false};

void on_sigwinch(int /*signo*/) { g_resized.store(true, std::memory_order_relaxed); }

void install_sigwinch_handler() {
  static const bool installed = [] {
    struct sigaction action = {};
    action.sa_handler = on_sigwinch;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // a resize never cuts a system call short
    return ::sigaction(SIGWINCH, &action, nullptr) == 0;
  }();
  (void)installed;
}

// tputs() hands the expanded string out a character at a time, to a plain function.
std::string* g_expanded = nullptr;
int append_char(int c) {
  g_expanded->push_back(static_cast<char>(c));
  return c;
}

std::string capability(const char* name) {
  return expand_capability(::tigetstr(const_cast<char*>(name)));
}

}  // namespace

std::string expand_capability(const char* value) {
  if (value == nullptr || value == reinterpret_cast<const char*>(-1)) return {};
  std::string text;
  g_expanded = &text;
  ::tputs(value, 1, append_char);
  g_expanded = nullptr;
  return text;
}

std::optional<Terminal> Terminal::open(int fd) {
  if (::isatty(fd) == 0) return std::nullopt;
  int status = 0;
  if (::setupterm(nullptr, fd, &status) != 0) return std::nullopt;  // TERM unset or unknown
  std::string cr = capability("cr");
  std::string el = capability("el");
  const int cols = ::tigetnum(const_cast<char*>("cols"));
  const bool auto_margins = ::tigetflag(const_cast<char*>("am")) > 0;
  // Everything needed is copied out: the entry setupterm() allocated is freed (LeakSanitizer).
  ::del_curterm(cur_term);
  if (cr.empty() || el.empty()) return std::nullopt;  // dumb: cannot rewrite a line
  install_sigwinch_handler();
  return Terminal(fd, std::move(cr), std::move(el), cols > 0 ? static_cast<std::size_t>(cols) : 0,
                  auto_margins);
}

std::size_t Terminal::width() {
  if (g_resized.exchange(false, std::memory_order_relaxed)) cols_ = 0;
  if (cols_ == 0) {
    struct winsize size = {};
    if (::ioctl(fd_, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
      cols_ = size.ws_col;
    } else {
      cols_ = terminfo_cols_ > 0 ? terminfo_cols_ : 80;
    }
  }
  return cols_;
}

std::size_t Terminal::line_width() {
  const std::size_t cols = width();
  return auto_margins_ && cols > 1 ? cols - 1 : cols;
}

}  // namespace iobench::cli
