// The one splitter of list params: the workloads and the kSizeList type share it, so an empty
// item is refused everywhere instead of dropped in some places.
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/printable.hpp>
#include <string>

namespace iobench {
namespace {

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::vector<std::string_view> split_list_param(std::string_view text, std::string_view field,
                                               std::string_view example,
                                               ListSeparators separators) {
  const std::string shown = printable(std::string(text));
  if (trim_blanks(text).empty()) {
    throw ConfigError(fmt::format("{} '{}': the list is empty; give at least one item, e.g. {}",
                                  field, shown, example));
  }
  const bool by_blanks =
      separators == ListSeparators::kCommasOrBlanks && text.find(',') == std::string_view::npos;
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = by_blanks ? text.find_first_of(" \t", start) : text.find(',', start);
    const std::string_view item =
        trim_blanks(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    if (!item.empty()) {
      items.push_back(item);
    } else if (!by_blanks) {
      throw ConfigError(fmt::format(
          "{} '{}': item {} is empty (two commas in a row, or a comma at an end); separate "
          "items by single commas, e.g. {}",
          field, shown, items.size() + 1, example));
    }
    if (end == std::string_view::npos) return items;
    start = end + 1;
  }
}

}  // namespace iobench
