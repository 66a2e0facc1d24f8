#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::test {

/// A small model of a terminal's lines, enough to check a live progress line: printable bytes
/// are written at the cursor (UTF-8 continuation bytes take no column), "\r" returns to column
/// 0, "\n" starts a new line, `el` erases from the cursor to the end of the line. Any other
/// control byte or escape sequence is counted in `unknown_controls`.
class TerminalModel {
 public:
  TerminalModel(std::size_t width, std::string el) : width_(width), el_(std::move(el)) {}
  void feed(std::string_view bytes);

  /// The lines as the terminal shows them at the end.
  [[nodiscard]] const std::vector<std::string>& lines() const noexcept { return lines_; }
  /// Each text a line held when `el` was sent right after writing it (a drawn progress line).
  [[nodiscard]] const std::vector<std::string>& frames() const noexcept { return frames_; }
  /// The lines that held a byte written past the last column (it would have wrapped).
  [[nodiscard]] const std::vector<std::string>& overflowed() const noexcept { return overflowed_; }
  [[nodiscard]] std::size_t unknown_controls() const noexcept { return unknown_controls_; }

 private:
  std::size_t width_;
  std::string el_;
  std::vector<std::string> lines_{std::string()};
  std::size_t col_ = 0;
  bool wrote_since_cr_ = false;
  bool overflow_ = false;  // on the current line
  std::vector<std::string> frames_;
  std::vector<std::string> overflowed_;
  std::size_t unknown_controls_ = 0;
};

}  // namespace iobench::test
