#include "plugins/mdtest/summary.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iobench/error.hpp>
#include <iobench/reporter.hpp>
#include <ostream>
#include <variant>

namespace iobench::plugins::mdtest {
namespace {

constexpr const char* kDirRows[] = {"Directory creation", "Directory stat", "Directory rename",
                                    "Directory removal"};
constexpr const char* kFileRows[] = {"File creation", "File stat", "File read", "File removal"};
constexpr const char* kTreeRows[] = {"Tree creation", "Tree removal"};

std::int64_t int_attr(const StepResult& step, std::string_view key, std::int64_t fallback) {
  const AttributeValue* v = step.attribute(key);
  const auto* i = v != nullptr ? std::get_if<std::int64_t>(v) : nullptr;
  return i != nullptr ? *i : fallback;
}

std::string string_attr(const StepResult& step, std::string_view key) {
  const AttributeValue* v = step.attribute(key);
  const auto* s = v != nullptr ? std::get_if<std::string>(v) : nullptr;
  return s != nullptr ? *s : std::string();
}

/// The phase of `title` in iteration `iteration` (from 1), or nullptr: "File stat" alone, or
/// "File stat#2" with several iterations.
const PhaseResult* find_phase(const StepResult& step, std::string_view title,
                              std::uint32_t iteration, std::uint32_t iterations) {
  const std::string name =
      iterations > 1 ? fmt::format("{}#{}", title, iteration) : std::string(title);
  for (const PhaseResult& p : step.phases) {
    if (p.name == name && p.status == Status::kOk) return &p;
  }
  return nullptr;
}

SummaryRow over_iterations(std::string operation, const std::vector<double>& values) {
  SummaryRow row{.operation = std::move(operation)};
  if (values.empty()) return row;
  row.max = values.front();
  row.min = values.front();
  double sum = 0;
  for (const double v : values) {
    row.max = std::max(row.max, v);
    row.min = std::min(row.min, v);
    sum += v;
  }
  row.mean = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double var = 0;
    for (const double v : values) var += (v - row.mean) * (v - row.mean);
    row.stddev = std::sqrt(var / static_cast<double>(values.size() - 1));
  }
  return row;
}

SummaryTable make_table(const StepResult& step, bool time) {
  SummaryTable table;
  table.iterations =
      static_cast<std::uint32_t>(std::max<std::int64_t>(int_attr(step, "iterations", 1), 1));
  const std::string kind = string_attr(step, "items_kind");
  const auto dirs_in_tree = static_cast<double>(int_attr(step, "dirs_in_tree", 0));
  std::vector<const char*> names;
  if (kind != "files") names.insert(names.end(), std::begin(kDirRows), std::end(kDirRows));
  if (kind != "directories") names.insert(names.end(), std::begin(kFileRows), std::end(kFileRows));
  names.insert(names.end(), std::begin(kTreeRows), std::end(kTreeRows));
  for (const char* name : names) {
    const bool tree = std::string_view(name).starts_with("Tree");
    std::vector<double> values;
    for (std::uint32_t it = 1; it <= table.iterations; ++it) {
      const PhaseResult* p = find_phase(step, name, it, table.iterations);
      double v = 0;
      if (p != nullptr && p->wall_ns > 0) {
        const double seconds = static_cast<double>(p->wall_ns) / 1e9;
        std::uint64_t ops = 0;
        for (const OpResult& op : p->ops) ops += op.ops;
        const double items = tree ? dirs_in_tree : static_cast<double>(ops);
        v = time ? seconds : items / seconds;
      }
      values.push_back(v);
    }
    table.rows.push_back(over_iterations(name, values));
  }
  return table;
}

double parse_number(std::string_view text, std::string_view line) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw ConfigError(fmt::format(
        "mdtest SUMMARY table: '{}' in line '{}' is not a number; give mdtest's own output", text,
        line));
  }
  return v;
}

/// "   File creation   1.000  2.000  3.000  4.000" -> the row.
SummaryRow parse_row(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  if (words.size() < 5) {
    throw ConfigError(fmt::format(
        "mdtest SUMMARY table: line '{}' is not an operation name and four figures (Max, Min, "
        "Mean, Std Dev)",
        line));
  }
  SummaryRow row;
  for (std::size_t w = 0; w + 4 < words.size(); ++w) {
    if (!row.operation.empty()) row.operation += ' ';
    row.operation += words[w];
  }
  const std::size_t n = words.size();
  row.max = parse_number(words[n - 4], line);
  row.min = parse_number(words[n - 3], line);
  row.mean = parse_number(words[n - 2], line);
  row.stddev = parse_number(words[n - 1], line);
  return row;
}

}  // namespace

const SummaryRow* SummaryTable::row(std::string_view operation) const noexcept {
  for (const SummaryRow& r : rows) {
    if (r.operation == operation) return &r;
  }
  return nullptr;
}

SummaryTable summary_rates(const StepResult& step) { return make_table(step, false); }

SummaryTable summary_times(const StepResult& step) { return make_table(step, true); }

void write_summary(const SummaryTable& table, bool time, std::ostream& out) {
  out << fmt::format("\nSUMMARY {}: (of {} iterations)\n",
                     time ? "time (in ms/op)" : "rate (in ops/sec)", table.iterations);
  out << "   Operation                     Max            Min           Mean        Std Dev\n";
  out << "   ---------                     ---            ---           ----        -------\n";
  for (const SummaryRow& r : table.rows) {
    const bool tree = r.operation.starts_with("Tree");
    // mdtest: "%-18s" then four spaces before the figures; tree rows "%-22s".
    out << fmt::format("   {:<{}} {}{:14.3f} {:14.3f} {:14.3f} {:14.3f}\n", r.operation,
                       tree ? 22 : 18, tree ? "" : "    ", r.max, r.min, r.mean, r.stddev);
  }
}

ParsedSummary parse_summary(std::string_view text) {
  ParsedSummary parsed;
  std::optional<SummaryTable>* current = nullptr;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("SUMMARY ")) {
      current = line.starts_with("SUMMARY time") ? &parsed.time : &parsed.rate;
      current->emplace();
      const std::size_t of = line.find("(of ");
      if (of != std::string_view::npos) {
        std::uint32_t n = 0;
        const char* first = line.data() + of + 4;
        std::from_chars(first, line.data() + line.size(), n);
        (*current)->iterations = std::max<std::uint32_t>(n, 1);
      }
      continue;
    }
    if (current == nullptr) continue;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line.substr(first).starts_with("--") ||
        !line.starts_with("   ")) {
      // A blank line or the next report line ends the table.
      if (first == std::string_view::npos || !line.starts_with("   ")) current = nullptr;
      continue;
    }
    const std::string_view body = line.substr(first);
    if (body.starts_with("Operation") || body.starts_with("---------")) continue;
    (*current)->rows.push_back(parse_row(line));
  }
  return parsed;
}

void format_mdtest_text(const StepResult& step, std::ostream& out) {
  write_generic_step_text(step, out);
  const std::int64_t tasks = int_attr(step, "tasks", 1);
  const std::int64_t items = int_attr(step, "items_per_rank", 0);
  out << fmt::format("\n{} tasks, {} {}\n", tasks, tasks * items, string_attr(step, "items_kind"));
  write_summary(summary_rates(step), false, out);
  write_summary(summary_times(step), true, out);
  out << "(SUMMARY time: each phase's duration in seconds, under mdtest 4's own header)\n";
  // verify_read (mdtest -X): the files whose bytes were not their writer's pattern, after the
  // tables as mdtest reports its errors (a line the SUMMARY parsers skip).
  std::uint64_t mismatches = 0;
  for (const PhaseResult& p : step.phases) {
    for (std::size_t i = 0; i < p.counter_names.size() && i < p.counters.size(); ++i) {
      if (p.counter_names[i] == "mismatches") mismatches += p.counters[i];
    }
  }
  if (mismatches > 0) {
    out << fmt::format(
        "\nverify_read: {} file(s) read did not hold the data pattern their writer wrote "
        "(mismatches); the read rates are not of valid data\n",
        mismatches);
  }
}

}  // namespace iobench::plugins::mdtest
