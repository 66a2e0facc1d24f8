#include "terminal_model.hpp"

namespace iobench::test {

void TerminalModel::feed(std::string_view bytes) {
  const auto end_line = [&] {
    if (overflow_) overflowed_.push_back(lines_.back());
    overflow_ = false;
  };
  for (std::size_t i = 0; i < bytes.size();) {
    if (!el_.empty() && bytes.substr(i, el_.size()) == el_) {
      std::string& line = lines_.back();
      // Byte offset of column col_ (UTF-8 aware).
      std::size_t at = 0;
      for (std::size_t cols = 0; at < line.size() && cols < col_; ++at) {
        if ((static_cast<unsigned char>(line[at]) & 0xC0) != 0x80) ++cols;
      }
      while (at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) ++at;
      if (wrote_since_cr_) frames_.push_back(line.substr(0, at));
      if (overflow_) overflowed_.push_back(line);
      overflow_ = false;
      line.erase(at);
      wrote_since_cr_ = false;
      i += el_.size();
      continue;
    }
    const auto c = static_cast<unsigned char>(bytes[i++]);
    if (c == '\r') {
      col_ = 0;
      wrote_since_cr_ = false;
    } else if (c == '\n') {
      end_line();
      lines_.emplace_back();
      col_ = 0;
      wrote_since_cr_ = false;
    } else if (c < 0x20 || c == 0x7f) {
      ++unknown_controls_;
    } else if ((c & 0xC0) == 0x80) {
      lines_.back().push_back(static_cast<char>(c));  // continues the character before
    } else {
      if (col_ >= width_) overflow_ = true;
      std::string& line = lines_.back();
      // Overwrite the character at col_ (lines here are ASCII where they are overwritten).
      if (col_ < line.size()) {
        line[col_] = static_cast<char>(c);
      } else {
        line.push_back(static_cast<char>(c));
      }
      ++col_;
      wrote_since_cr_ = true;
    }
  }
}

}  // namespace iobench::test
