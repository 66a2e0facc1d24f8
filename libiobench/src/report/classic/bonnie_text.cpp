// bonnie++'s (and the original Bonnie's) text table, as printed or as pasted into mail (quoted,
// blanks collapsed, lines wrapped), into a document: one step "bonnie" per I/O row (several:
// repetitions), its file-test row and latency rows joined to it. Layouts read:
//   Bonnie 1.x   "Machine MB K/sec %CPU ..."  name, MiB, 6 x (rate, %CPU)
//   bonnie++ 1.0x "Version 1.01d ..." / "Machine Size K/sec %CP ..." / "files /sec %CP ..."
//   bonnie++ 1.9x the same with "Concurrency N", "Latency" rows, 1.98+ k/m/g rates
// Collapsed rows are read by tokens (wrapped rows joined); rows with blank cells (tests not
// run) by bonnie++'s fixed columns (bonnie_tiobench.md A.9: 19-char prefix, then per test a
// 6-char rate and a 4-char CPU cell; "Latency" padded to 17, then 10-char cells).
#include <fmt/format.h>

#include <algorithm>
#include <iobench/printable.hpp>

#include "report/classic/bonnie_cells.hpp"

namespace iobench::detail::classic {

namespace {

using Tokens = std::vector<std::string_view>;

bool header_word(std::string_view token) {
  return token == "/sec" || token == "%CP" || token == "%CPU" || token == "K/sec" ||
         token == "M/sec" || token.starts_with("-") || token == "Create--------" ||
         token == "Create" || token == "etc";
}

// A line of a header only (what a wrapped header line leaves on its own).
bool header_only(const Tokens& tokens) {
  return !tokens.empty() && std::all_of(tokens.begin(), tokens.end(), header_word);
}

bool starts_section(const Tokens& tokens) {
  if (tokens.empty()) return false;
  return tokens[0] == "Latency" || tokens[0] == "Version" || tokens[0] == "Machine" ||
         tokens[0] == "Concurrency" || tokens[0].starts_with("files") ||
         tokens[0].starts_with("Name:") || header_word(tokens[0]);
}

// The first line at or after `i` that is neither empty nor only header words.
std::size_t next_content(const std::vector<Line>& lines, std::size_t i) {
  while (i < lines.size() && (lines[i].text.empty() || header_only(tokens_of(lines[i].text)))) ++i;
  return i;
}

// A table row of `count` tokens starting at line `i`, joined across wrapped lines; `end` is the
// line after it. Fewer than `count` when the row is not that long (blank cells).
Tokens gather(const std::vector<Line>& lines, std::size_t i, std::size_t count, std::size_t& end) {
  Tokens tokens = tokens_of(lines[i].text);
  end = i + 1;
  while (tokens.size() < count && end < lines.size()) {
    const Tokens more = tokens_of(lines[end].text);
    if (more.empty() || starts_section(more) || tokens.size() + more.size() > count) break;
    tokens.insert(tokens.end(), more.begin(), more.end());
    ++end;
  }
  return tokens;
}

std::string_view column(std::string_view raw, std::size_t at, std::size_t width) {
  if (at >= raw.size()) return {};
  return trimmed(raw.substr(at, width));
}

// A cell read by fixed columns must be one token.
bool one_token(std::string_view cell) { return cell.find(' ') == std::string_view::npos; }

// The six tests of a row (first: 0 for I/O, 6 for files) into `step`.
void add_row(StepResult& step, std::size_t first, const Line& row, const Tokens& tokens,
             std::size_t lead, const std::array<std::string_view, 6>& latency,
             std::string_view source) {
  const bool collapsed = tokens.size() == lead + 12;
  for (std::size_t k = 0; k < 6; ++k) {
    BonnieCells cells;
    if (collapsed) {
      cells.rate = tokens[lead + 2 * k];
      cells.cpu = tokens[lead + 2 * k + 1];
    } else {
      cells.rate = column(row.raw, 19 + 10 * k, 6);
      cells.cpu = column(row.raw, 25 + 10 * k, 4);
    }
    cells.latency = latency[k];
    add_bonnie_phase(step, first + k, cells, source, row.number);
  }
}

// The six cells of a "Latency" row at line `i` (if it is one); advances `i` past it.
std::array<std::string_view, 6> latency_row(const std::vector<Line>& lines, std::size_t& i) {
  std::array<std::string_view, 6> cells{};
  const std::size_t at = next_content(lines, i);
  if (at >= lines.size()) return cells;
  const Tokens first = tokens_of(lines[at].text);
  if (first.empty() || first[0] != "Latency") return cells;
  std::size_t end = at + 1;
  const Tokens tokens = gather(lines, at, 7, end);
  if (tokens.size() == 7) {
    for (std::size_t k = 0; k < 6; ++k) cells[k] = tokens[k + 1];
  } else {
    end = at + 1;
    for (std::size_t k = 0; k < 6; ++k) cells[k] = column(lines[at].raw, 17 + 10 * k, 10);
  }
  i = end;
  return cells;
}

struct Reader {
  const std::vector<Line>& lines;
  std::string_view source;
  ResultDocument& document;
  std::string version;
  std::string concurrency;
  StepResult* current = nullptr;

  // Checks the cells a fixed-column read gives are single tokens.
  void check_row(const Line& row, const Tokens& tokens, std::size_t lead, const char* what) {
    if (tokens.size() == lead + 12) return;
    bool ok = row.raw.size() > 19;
    for (std::size_t k = 0; ok && k < 6; ++k) {
      ok = one_token(column(row.raw, 19 + 10 * k, 6)) && one_token(column(row.raw, 25 + 10 * k, 4));
    }
    if (!ok) {
      fail(source, row.number,
           fmt::format("expected a bonnie {} row: {} then 6 x (rate, %CPU), got {} cells", what,
                       lead == 2 ? "name and size" : "the file count", tokens.size()));
    }
  }

  void io_row(std::size_t& i, bool size_in_mb) {
    i = next_content(lines, i);
    if (i >= lines.size())
      fail(source, lines.back().number, "expected a bonnie row after the header");
    const Line& row = lines[i];
    std::size_t end = i + 1;
    Tokens tokens = gather(lines, i, 14, end);
    if (tokens.size() != 14) {
      end = i + 1;
      tokens = tokens_of(row.raw.substr(0, std::min<std::size_t>(19, row.raw.size())));
      if (tokens.size() == 1) tokens.insert(tokens.begin(), std::string_view());  // name dropped
    }
    if (tokens.size() < 2) fail(source, row.number, "expected a bonnie row: name and size first");
    check_row(row, tokens, 2, "I/O");
    i = end;
    const std::array<std::string_view, 6> latency = latency_row(lines, i);
    StepResult& step = add_step(document, "bonnie", "bonnie");
    current = &step;
    // Bonnie 1.x's "MB" column is the file size in MiB (Bonnie's MB are 2^20 bytes).
    step.params["size"] = size_in_mb ? std::string(tokens[1]) + "M" : std::string(tokens[1]);
    if (!tokens[0].empty()) step.params["name"] = std::string(tokens[0]);
    if (!version.empty()) step.params["bonnie_version"] = version;
    if (!concurrency.empty()) step.params["concurrency"] = concurrency;
    if (document.run.steps.size() == 1) {
      document.run.environment.hostname = std::string(tokens[0]);
    } else if (document.run.environment.hostname != tokens[0]) {
      not_mapped(document, row.number,
                 fmt::format("machine name '{}' differs from the first row's '{}'; read as a "
                             "repetition of step bonnie",
                             printable(tokens[0]), printable(document.run.environment.hostname)));
    }
    add_row(step, 0, row, tokens, 2, latency, source);
  }

  void file_row(std::size_t& i) {
    i = next_content(lines, i);
    if (i >= lines.size()) fail(source, lines.back().number, "expected a bonnie file-test row");
    const Line& row = lines[i];
    std::size_t end = i + 1;
    Tokens tokens = gather(lines, i, 13, end);
    if (tokens.size() != 13) {
      end = i + 1;
      tokens = tokens_of(row.raw.substr(0, std::min<std::size_t>(19, row.raw.size())));
      check_row(row, tokens, 1, "file-test");
    }
    if (tokens.empty()) fail(source, row.number, "expected a bonnie file-test row: files first");
    i = end;
    const std::array<std::string_view, 6> latency = latency_row(lines, i);
    const bool has_files = current != nullptr &&
                           std::any_of(current->phases.begin(), current->phases.end(),
                                       [](const PhaseResult& p) { return p.name == "seq_create"; });
    if (current == nullptr || has_files || current->params.contains("files")) {
      current = &add_step(document, "bonnie", "bonnie");
      if (!version.empty()) current->params["bonnie_version"] = version;
    }
    current->params["files"] = std::string(tokens[0]);
    add_row(*current, 6, row, tokens, 1, latency, source);
  }
};

}  // namespace

ResultDocument read_bonnie_text(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kBonnieText);
  const std::vector<Line> lines = lines_of(text);
  Reader reader{lines, source, document, {}, {}, nullptr};
  std::size_t i = 0;
  while (i < lines.size()) {
    const Tokens tokens = tokens_of(lines[i].text);
    ++i;
    if (tokens.empty()) continue;
    const bool rates = std::find(tokens.begin(), tokens.end(), "/sec") != tokens.end() ||
                       std::find(tokens.begin(), tokens.end(), "K/sec") != tokens.end();
    if (tokens[0] == "Version" && tokens.size() > 1 && !tokens[1].starts_with("-")) {
      reader.version = std::string(tokens[1]);
      document.source->tool_version = reader.version;
    } else if (tokens[0] == "Concurrency" && tokens.size() > 1) {
      reader.concurrency = std::string(tokens[1]);
    } else if ((tokens[0] == "Machine" || tokens[0] == "Name:Size") && rates) {
      reader.io_row(i, tokens.size() > 1 && tokens[1] == "MB");
    } else if (tokens[0].starts_with("files") && rates) {
      reader.file_row(i);
    }
  }
  if (document.run.steps.empty()) {
    fail(source, lines.empty() ? 1 : lines.back().number,
         "expected a bonnie++ table (a \"Machine ... K/sec %CP\" or \"files /sec %CP\" header "
         "and its row), found none");
  }
  for (const StepResult& step : document.run.steps) {
    if (step.phases.empty())
      fail(source, 1, "expected bonnie++ results, got rows where no test ran");
  }
  place_repetitions(document);
  return document;
}

}  // namespace iobench::detail::classic
