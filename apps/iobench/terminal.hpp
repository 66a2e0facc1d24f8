#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace iobench::cli {

/// A terminfo string (tigetstr(), tiparm()) with its padding ("$<5>") interpreted by tputs (none
/// at an unknown speed); empty for a capability the terminal lacks (null or (char*)-1).
/// REQUIRES: setupterm() was called.
[[nodiscard]] std::string expand_capability(const char* value);

/// The terminal a live progress line is drawn on: its control strings from terminfo (ncurses'
/// libtinfo: setupterm(), tigetstr("cr"), tigetstr("el")) and its width, read with TIOCGWINSZ
/// and again after each SIGWINCH.
class Terminal {
 public:
  /// The terminal on `fd` if it can rewrite a line in place: a TTY whose TERM has a terminfo
  /// entry with "cr" and "el". nullopt otherwise (not a TTY; TERM unset, unknown or dumb), and
  /// the caller prints plain lines. Installs a SIGWINCH handler (SA_RESTART) the first time.
  [[nodiscard]] static std::optional<Terminal> open(int fd);

  /// Columns of the terminal now: TIOCGWINSZ (re-read after a SIGWINCH), else terminfo "cols",
  /// else 80.
  [[nodiscard]] std::size_t width();
  /// Columns a line may take without the cursor wrapping: width() - 1 with automatic margins
  /// (terminfo "am"), where writing the last column may move the cursor to the next line.
  [[nodiscard]] std::size_t line_width();
  /// Moves the cursor to the start of the line ("cr").
  [[nodiscard]] const std::string& carriage_return() const noexcept { return cr_; }
  /// Clears from the cursor to the end of the line ("el").
  [[nodiscard]] const std::string& clear_to_eol() const noexcept { return el_; }

 private:
  Terminal(int fd, std::string cr, std::string el, std::size_t terminfo_cols, bool auto_margins)
      : fd_(fd),
        cr_(std::move(cr)),
        el_(std::move(el)),
        terminfo_cols_(terminfo_cols),
        auto_margins_(auto_margins) {}

  int fd_;
  std::string cr_;
  std::string el_;
  std::size_t terminfo_cols_;
  bool auto_margins_;
  std::size_t cols_ = 0;  // 0: read it (first call, or after a SIGWINCH)
};

}  // namespace iobench::cli
