// bonnie++ results in the report, laid out as bon_csv2html lays out bonnie++'s CSV: the I/O
// tests, the file tests and their latency rows, each column shaded by rank (the best green).
// The cells come from the CSV lines write_bonnie_csv makes (bonnie++ 1.98 format, 50 fields, or
// 1.97's 48), so the report shows what bon_csv2html would; a result read from bonnie++'s own
// CSV or table shows the figures bonnie++ printed. "+++++" (a test under bonnie++'s 0.5 s
// MinTime) stays "too fast to measure", never 0 as bon_csv2html's atoi makes it.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iobench/error.hpp>
#include <iobench/workloads.hpp>
#include <optional>
#include <sstream>

#include "report/html/report_model.hpp"

namespace iobench::detail::html {
namespace {

enum class Kind { kText, kSpeed, kCpu, kLatency, kCount };

struct Column {
  std::size_t field;  // index in a 1.98 line
  const char* title;
  Kind kind;
};

struct Group {
  const char* title;
  std::vector<Column> columns;
};

struct Table {
  const char* title;
  std::vector<Group> groups;
};

// The fields of a bonnie++ 1.98 CSV line, grouped as bon_csv2html shows them.
const std::vector<Table>& tables() {
  static const std::vector<Table> kTables = {
      {"Sequential output, input and random seeks (K/sec: KiB/s; %CP: CPU %)",
       {{"",
         {{2, "Name", Kind::kText},
          {3, "Concurrency", Kind::kCount},
          {5, "Size", Kind::kText},
          {6, "Chunk", Kind::kText}}},
        {"Sequential Output",
         {{9, "Per Chr K/sec", Kind::kSpeed},
          {10, "%CP", Kind::kCpu},
          {11, "Block K/sec", Kind::kSpeed},
          {12, "%CP", Kind::kCpu},
          {13, "Rewrite K/sec", Kind::kSpeed},
          {14, "%CP", Kind::kCpu}}},
        {"Sequential Input",
         {{15, "Per Chr K/sec", Kind::kSpeed},
          {16, "%CP", Kind::kCpu},
          {17, "Block K/sec", Kind::kSpeed},
          {18, "%CP", Kind::kCpu}}},
        {"Random Seeks", {{19, "/sec", Kind::kSpeed}, {20, "%CP", Kind::kCpu}}}}},
      {"Latency of the I/O tests",
       {{"", {{2, "Name", Kind::kText}}},
        {"Sequential Output",
         {{38, "Per Chr", Kind::kLatency},
          {39, "Block", Kind::kLatency},
          {40, "Rewrite", Kind::kLatency}}},
        {"Sequential Input", {{41, "Per Chr", Kind::kLatency}, {42, "Block", Kind::kLatency}}},
        {"Random", {{43, "Seeks", Kind::kLatency}}}}},
      {"Sequential and random create (files/sec; %CP: CPU %)",
       {{"",
         {{2, "Name", Kind::kText},
          {21, "Files", Kind::kText},
          {22, "Max size", Kind::kText},
          {23, "Min size", Kind::kText},
          {24, "Dirs", Kind::kText},
          {25, "File chunk", Kind::kText}}},
        {"Sequential Create",
         {{26, "Create", Kind::kSpeed},
          {27, "%CP", Kind::kCpu},
          {28, "Read", Kind::kSpeed},
          {29, "%CP", Kind::kCpu},
          {30, "Delete", Kind::kSpeed},
          {31, "%CP", Kind::kCpu}}},
        {"Random Create",
         {{32, "Create", Kind::kSpeed},
          {33, "%CP", Kind::kCpu},
          {34, "Read", Kind::kSpeed},
          {35, "%CP", Kind::kCpu},
          {36, "Delete", Kind::kSpeed},
          {37, "%CP", Kind::kCpu}}}}},
      {"Latency of the file tests",
       {{"", {{2, "Name", Kind::kText}}},
        {"Sequential Create",
         {{44, "Create", Kind::kLatency},
          {45, "Read", Kind::kLatency},
          {46, "Delete", Kind::kLatency}}},
        {"Random Create",
         {{47, "Create", Kind::kLatency},
          {48, "Read", Kind::kLatency},
          {49, "Delete", Kind::kLatency}}}}},
  };
  return kTables;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

// A latency field ("319ms", "4189us", "2s") in us; nullopt if it is not one.
std::optional<double> latency_us(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  const double value = std::stod(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  if (unit == "us") return value;
  if (unit == "ms") return value * 1e3;
  if (unit == "s") return value * 1e6;
  return std::nullopt;
}

std::optional<double> numeric(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct Cell {
  std::string text;
  const char* kind;             // "text", "value", "too_fast", "empty"
  std::optional<double> value;  // for shading
};

Cell cell_of(const std::string& field, Kind kind) {
  if (field.empty()) return Cell{"", "empty", std::nullopt};
  if (kind != Kind::kText && field.find_first_not_of('+') == std::string::npos) {
    return Cell{"too fast to measure", "too_fast", std::nullopt};
  }
  if (kind == Kind::kText || kind == Kind::kCount) return Cell{field, "text", std::nullopt};
  return Cell{field, "value", kind == Kind::kLatency ? latency_us(field) : numeric(field)};
}

// A bonnie++ cell as bonnie++'s CSV prints it, from a figure its own output gave.
std::string classic_cell(const std::optional<ReportedFigure>& figure, double scale,
                         const char* too_fast) {
  if (!figure) return {};
  if (figure->too_fast) return too_fast;
  return fmt::format("{}", figure->value / scale);
}

// A latency as bonnie++ writes one, in the largest of s, ms and us that keeps it whole.
std::string classic_latency(const std::optional<ReportedFigure>& figure) {
  if (!figure || figure->too_fast) return {};
  const auto ns = static_cast<std::uint64_t>(std::llround(figure->value));
  if (ns % 1'000'000'000 == 0 && ns > 0) return fmt::format("{}s", ns / 1'000'000'000);
  if (ns % 1'000'000 == 0 && ns > 0) return fmt::format("{}ms", ns / 1'000'000);
  return fmt::format("{}us", (ns + 500) / 1000);
}

// A bonnie step read from bonnie++'s own output (PhaseResult::reported) as a 1.98 CSV line:
// its cells are the figures bonnie++ printed, the test shape the text it printed (step params
// as the classic readers name them; num_dirs in its own column).
std::string classic_bonnie_csv(const StepResult& step) {
  std::vector<std::string> fields(50);
  const auto param = [&step](const char* key) {
    const auto it = step.params.find(key);
    std::string text = it == step.params.end() ? std::string() : it->second;
    std::replace(text.begin(), text.end(), ',', ' ');  // a field never ends early
    return text;
  };
  fields[0] = "1.98";
  fields[1] = param("bonnie_version");
  fields[2] = param("name").empty() ? step.name : param("name");
  fields[3] = param("concurrency");
  fields[5] = param("size");
  fields[6] = param("chunk_size");
  fields[21] = param("files");
  fields[22] = param("max_size");
  fields[23] = param("min_size");
  fields[24] = param("num_dirs");
  fields[25] = param("file_chunk_size");
  constexpr std::array<const char*, 12> kTests{"putc",      "put_block",  "rewrite",    "getc",
                                               "get_block", "seeks",      "seq_create", "seq_stat",
                                               "seq_del",   "ran_create", "ran_stat",   "ran_del"};
  for (const PhaseResult& phase : step.phases) {
    const auto test = std::find(kTests.begin(), kTests.end(), phase.name);
    if (test == kTests.end() || !phase.reported) continue;
    const auto t = static_cast<std::size_t>(test - kTests.begin());
    const std::size_t at = t < 6 ? 9 + 2 * t : 26 + 2 * (t - 6);
    const ReportedFigures& f = *phase.reported;
    fields[at] = t < 5 ? classic_cell(f.throughput_bytes_per_s, 1024.0, "+++++")  // K/sec
                       : classic_cell(f.iops, 1.0, "+++++");
    fields[at + 1] = classic_cell(f.cpu_percent, 1.0, "+++");
    fields[38 + t] = classic_latency(f.latency_max_ns);
  }
  return fmt::format("{}\n", fmt::join(fields, ","));
}

}  // namespace

Json bonnie_tables(std::span<const StepResult* const> steps) {
  std::vector<BonnieCsv> csv_texts;
  for (const StepResult* step : steps) {
    const bool classic = std::any_of(step->phases.begin(), step->phases.end(),
                                     [](const PhaseResult& p) { return p.reported.has_value(); });
    if (classic) {
      csv_texts.push_back(BonnieCsv{.step = step->name, .csv = classic_bonnie_csv(*step)});
      continue;
    }
    std::ostringstream csv;
    try {
      write_bonnie_csv(*step, csv);
    } catch (const ConfigError&) {
      continue;  // a step without bonnie results (failed before its first test)
    }
    csv_texts.push_back(BonnieCsv{.step = step->name, .csv = csv.str()});
  }
  return bonnie_tables_from_csv(csv_texts);
}

Json bonnie_tables_from_csv(std::span<const BonnieCsv> csv_texts) {
  // Every CSV line of every bonnie step, as 1.98 fields.
  std::vector<std::pair<std::string, std::vector<std::string>>> lines;
  for (const BonnieCsv& text : csv_texts) {
    std::istringstream in(text.csv);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line.starts_with("format_version")) continue;
      std::vector<std::string> fields = split(line);
      if (fields.front() == "1.97" && fields.size() == 48) {
        fields.insert(fields.begin() + 7, 2, std::string());  // 1.97 has no seeks columns
      }
      if (fields.size() < 50) continue;
      lines.emplace_back(text.step, std::move(fields));
    }
  }
  Json out = Json::array();
  if (lines.empty()) return out;
  for (const Table& table : tables()) {
    Json groups = Json::array();
    Json columns = Json::array({"Step"});
    std::vector<std::vector<Json>> rows(lines.size());
    for (std::size_t r = 0; r < lines.size(); ++r) {
      rows[r].push_back({{"text", lines[r].first}, {"kind", "text"}, {"shade", nullptr}});
    }
    bool any_value = false;
    for (const Group& group : table.groups) {
      std::size_t span = 0;
      for (const Column& column : group.columns) {
        std::vector<Cell> cells;
        for (const auto& line : lines)
          cells.push_back(cell_of(line.second[column.field], column.kind));
        const bool all_empty =
            std::all_of(cells.begin(), cells.end(), [](const Cell& c) { return c.text.empty(); });
        if (all_empty) continue;  // as bon_csv2html: a column no row uses is left out
        if (column.kind != Kind::kText && column.kind != Kind::kCount) any_value = true;
        ++span;
        columns.push_back(column.title);
        double lo = 0;
        double hi = 0;
        bool first = true;
        for (const Cell& c : cells) {
          if (!c.value) continue;
          lo = first ? *c.value : std::min(lo, *c.value);
          hi = first ? *c.value : std::max(hi, *c.value);
          first = false;
        }
        for (std::size_t r = 0; r < cells.size(); ++r) {
          Json shade = nullptr;
          if (cells[r].value && hi > lo) {
            const double up = (*cells[r].value - lo) / (hi - lo);
            shade = column.kind == Kind::kSpeed ? up : 1.0 - up;  // CPU, latency: lower is better
          }
          rows[r].push_back(
              {{"text", cells[r].text}, {"kind", cells[r].kind}, {"shade", std::move(shade)}});
        }
      }
      if (span > 0) groups.push_back({{"title", group.title}, {"span", span}});
    }
    if (!any_value) continue;  // e.g. no file tests (files=0)
    Json row_json = Json::array();
    for (std::vector<Json>& cells : rows) row_json.push_back({{"cells", std::move(cells)}});
    // The "Step" column belongs to the first group.
    if (!groups.empty()) groups[0]["span"] = groups[0]["span"].get<std::size_t>() + 1;
    out.push_back({{"title", table.title},
                   {"groups", std::move(groups)},
                   {"columns", std::move(columns)},
                   {"rows", std::move(row_json)}});
  }
  return out;
}

}  // namespace iobench::detail::html
