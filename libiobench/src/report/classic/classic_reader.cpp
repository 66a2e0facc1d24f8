// The shared pieces of the classic-result readers (classic_reader.hpp).
#include "report/classic/classic_reader.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iobench/printable.hpp>
#include <map>

namespace iobench::detail::classic {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }

// `line` without the quote markers mail clients put in front of a quoted line ("> ", ">>").
std::string_view unquoted(std::string_view line) {
  std::size_t i = 0;
  while (true) {
    std::size_t j = i;
    while (j < line.size() && blank(line[j])) ++j;
    if (j < line.size() && line[j] == '>') {
      i = j + 1;
      if (i < line.size() && line[i] == ' ') ++i;
      continue;
    }
    return line.substr(i);
  }
}

}  // namespace

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view raw = unquoted(line);
    std::size_t first = 0;
    while (first < raw.size() && blank(raw[first])) ++first;
    out.push_back(Line{.number = number, .text = raw.substr(first), .raw = raw});
  }
  return out;
}

std::vector<std::string_view> tokens_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (blank(text[i]) || text[i] == '\r' || text[i] == '\n')) ++i;
    const std::size_t start = i;
    while (i < text.size() && !blank(text[i]) && text[i] != '\r' && text[i] != '\n') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

std::optional<double> number_of(std::string_view token) {
  if (token.empty() || token.front() == '+') return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc{} || end != token.data() + token.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && (blank(text.back()) || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

void fail(std::string_view source, std::size_t line, const std::string& what) {
  throw ConfigError(fmt::format("{}:{}: {}", printable(source), line, what));
}

ResultDocument classic_document(ResultFormat format) {
  ResultDocument document;
  document.schema = std::string(kResultSchema);
  document.source =
      ResultSource{.format = std::string(to_string(format)), .tool_version = {}, .not_mapped = {}};
  return document;
}

StepResult& add_step(ResultDocument& document, std::string name, std::string workload) {
  StepResult step;
  step.name = std::move(name);
  step.workload = std::move(workload);
  document.run.steps.push_back(std::move(step));
  return document.run.steps.back();
}

PhaseResult& add_phase(StepResult& step, std::string name) {
  PhaseResult phase;
  phase.name = std::move(name);
  phase.reported = ReportedFigures{};
  step.phases.push_back(std::move(phase));
  return step.phases.back();
}

ReportedFigures& figures(PhaseResult& phase) { return *phase.reported; }

std::uint64_t ns_of_seconds(double seconds) {
  const double ns = seconds * 1e9;
  if (!(ns >= 0) || ns >= 1.8e19) return 0;
  return static_cast<std::uint64_t>(ns);
}

ReportedFigure figure(double value) { return ReportedFigure{.value = value, .too_fast = false}; }

void not_mapped(ResultDocument& document, std::size_t line, const std::string& what) {
  document.source->not_mapped.push_back(line == 0 ? what : fmt::format("line {}: {}", line, what));
}

void place_repetitions(ResultDocument& document) {
  std::map<std::string, std::size_t> uses;
  bool repeated = false;
  for (const StepResult& step : document.run.steps) repeated |= ++uses[step.name] > 1;
  if (!repeated) return;
  uses.clear();
  for (const StepResult& step : document.run.steps) {
    document.placements.push_back(StepPlacement{
        .suite_step = step.name, .sweep_point = std::nullopt, .repetition = ++uses[step.name]});
  }
}

}  // namespace iobench::detail::classic
