#pragma once

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace iobench::cli {

/// The full-screen display of --live on a terminal: terminfo's alternate screen (smcup/rmcup,
/// read through ncurses' libtinfo), the cursor hidden, the whole screen rewritten at each
/// draw() with the lines fitted to its size, re-read (TIOCGWINSZ) at every draw, so a resized
/// window (SIGWINCH) is laid out anew at the next refresh.
///
/// The terminal is given back (rmcup, cursor shown) by close() or the destructor, so on a normal
/// end, an exception and a stop signal alike (SIGINT, SIGTERM and SIGHUP end the run cleanly
/// through the runner, which returns here); and, should the process end another way, by an
/// atexit() handler and by handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that write
/// the same bytes before the signal's default action.
///
/// While it is shown, what the CLI writes to std::cout (if stdout is this terminal) and to
/// std::cerr is held and written after the terminal is given back, in order, so no result is
/// lost on the alternate screen.
class LiveScreen {
 public:
  /// The screen on `fd` (stderr), or nullopt with the reason in `why_not`: not a terminal,
  /// TERM unset, unknown or dumb, or a terminal without cursor addressing ("cup" or "home"),
  /// "el" and "ed" in its terminfo entry.
  [[nodiscard]] static std::unique_ptr<LiveScreen> open(int fd, std::string& why_not);
  ~LiveScreen();
  LiveScreen(const LiveScreen&) = delete;
  LiveScreen& operator=(const LiveScreen&) = delete;

  /// The size to lay out for: columns a line may take without wrapping, and lines.
  [[nodiscard]] std::pair<std::size_t, std::size_t> size() const;
  /// Replaces the screen's content with `lines` (fitted by the caller to size()).
  void draw(const std::vector<std::string>& lines);
  /// Gives the terminal back and writes what was held; idempotent.
  void close();

 private:
  struct Caps;
  LiveScreen(int fd, std::unique_ptr<Caps> caps);
  int fd_;
  std::unique_ptr<Caps> caps_;
  bool open_ = true;
  bool hold_stdout_ = false;
  std::stringbuf held_out_;
  std::stringbuf held_err_;
  std::streambuf* cout_buf_ = nullptr;
  std::streambuf* cerr_buf_ = nullptr;
};

}  // namespace iobench::cli
