#pragma once

// A plain-text table with aligned columns, for the generic text reporter.

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace iobench::detail {

/// Collects rows of cells, then prints them with each column as wide as its widest cell, two
/// spaces between columns and no trailing blanks. Width counts bytes (the reporters' own cells
/// are ASCII; a UTF-8 path only shifts the columns after it).
class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align = Align::kRight;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  /// REQUIRES: cells.size() == number of columns.
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  [[nodiscard]] bool empty() const noexcept { return rows_.empty(); }

  /// Prints the title row, then every row, each line starting with `indent`.
  void print(std::ostream& out, const std::string& indent = {}) const {
    std::vector<std::size_t> widths(columns_.size());
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      widths[c] = columns_[c].title.size();
      for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
    }
    std::vector<std::string> titles;
    titles.reserve(columns_.size());
    for (const Column& column : columns_) titles.push_back(column.title);
    print_line(out, indent, titles, widths);
    for (const auto& row : rows_) print_line(out, indent, row, widths);
  }

 private:
  void print_line(std::ostream& out, const std::string& indent,
                  const std::vector<std::string>& cells,
                  const std::vector<std::size_t>& widths) const {
    std::string line = indent;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string padding(widths[c] - cells[c].size(), ' ');
      if (columns_[c].align == Align::kRight) {
        line += padding;
        line += cells[c];
      } else {
        line += cells[c];
        line += padding;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace iobench::detail
