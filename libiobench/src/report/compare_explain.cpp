// compare's explain block: per input the storage, the device bytes and the derived figures of a
// phase's explanation, and the findings that differ from the baseline's, said first so a user
// sees the reason of a difference before its significance.
#include "report/compare_explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <string_view>

#include "report/text_table.hpp"

namespace iobench::detail {
namespace {

using Json = nlohmann::ordered_json;

// Findings of one topic that exclude each other (explain/findings.cpp: the read shares and the
// write bands); a pair from two inputs is a contrast. `verb` is shared by the topic's
// predicates and said once ("A's reads came from X, B's from Y").
struct TopicFinding {
  std::string_view name;
  std::string_view topic;
  std::string_view verb;
  std::string_view predicate;
};

constexpr std::array<TopicFinding, 6> kTopicFindings{{
    {"page_cache_reads", "reads", "came", "from the page cache"},
    {"device_reads", "reads", "came", "from the device"},
    {"writes_absorbed_by_page_cache", "writes", "", "were absorbed by the page cache"},
    {"writes_partly_reached_device", "writes", "", "partly reached the device"},
    {"writes_reached_device", "writes", "", "reached the device"},
    {"write_amplification", "writes", "", "were amplified on the device"},
}};

const TopicFinding* topic_finding(std::string_view name) {
  for (const TopicFinding& f : kTopicFindings) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// "#N": inputs are numbered from `first` (0 in compare's text, 1 in the HTML report).
std::string input_name(std::size_t i, std::size_t first = 0) {
  return fmt::format("#{}", i + first);
}

std::string chain_summary(const explain::StorageChain& chain) {
  if (!chain.no_block_device.empty()) return chain.no_block_device;
  std::string fs = chain.fs_type.empty() ? std::string("unknown file system") : chain.fs_type;
  if (!chain.overlay.empty()) {
    // "overlay (upper tmpfs, lower ext4)"
    std::vector<std::string> layers;
    for (const explain::OverlayLayer& l : chain.overlay)
      layers.push_back(l.role + " " + (l.fs_type.empty() ? std::string("unknown") : l.fs_type));
    fs += fmt::format(" ({})", fmt::join(layers, ", "));
  }
  if (chain.devices.empty()) return fs + " (no block device found)";
  std::vector<std::string> names;
  for (const explain::BlockDevice& d : chain.devices) names.push_back(d.name);
  return fmt::format("{} on {}", fs, fmt::join(names, " > "));
}

ExplainSummary summarize(const explain::PhaseExplanation& e, std::size_t results) {
  ExplainSummary s;
  std::vector<std::string> chains;
  for (const explain::StorageChain& chain : e.chains) {
    std::string text = chain_summary(chain);
    if (std::find(chains.begin(), chains.end(), text) == chains.end())
      chains.push_back(std::move(text));
  }
  s.storage = fmt::format("{}", fmt::join(chains, "; "));
  s.device_read_bytes = e.device_read_bytes;
  s.device_write_bytes = e.device_write_bytes;
  s.page_cache_read_percent = e.page_cache_read_percent;
  s.read_amplification = e.read_amplification;
  s.write_amplification = e.write_amplification;
  for (const explain::DeviceDelta& d : e.devices) {
    const bool filesystem_device =
        std::any_of(e.chains.begin(), e.chains.end(), [&](const explain::StorageChain& c) {
          return !c.devices.empty() && c.devices.front().name == d.name;
        });
    if (!d.valid || !filesystem_device) continue;
    if (!s.util_percent || d.util_percent > *s.util_percent) {
      s.util_percent = d.util_percent;
      s.util_device = d.name;
    }
  }
  for (const explain::Finding& f : e.findings) {
    if (std::find(s.findings.begin(), s.findings.end(), f.name) == s.findings.end())
      s.findings.push_back(f.name);
  }
  s.results = results;
  return s;
}

std::string contrast_sentence(std::size_t input, const TopicFinding& mine, const TopicFinding& base,
                              std::size_t first = 0) {
  const std::string verb = mine.verb.empty() ? std::string() : std::string(mine.verb) + ' ';
  return fmt::format("{}'s {} {}{} ({}), {}'s {} ({})", input_name(input, first), mine.topic, verb,
                     mine.predicate, mine.name, input_name(0, first), base.predicate, base.name);
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

FindingsDifference difference(std::size_t input, const ExplainSummary& mine,
                              const ExplainSummary& base) {
  FindingsDifference d{
      .input = input, .contrasts = {}, .only_input = {}, .only_baseline = {}, .both = {}};
  std::vector<std::string> contrasted;
  for (const std::string& name : mine.findings) {
    const TopicFinding* m = topic_finding(name);
    if (m == nullptr || has(base.findings, name)) continue;
    for (const std::string& other : base.findings) {
      const TopicFinding* b = topic_finding(other);
      if (b == nullptr || b->topic != m->topic || has(contrasted, other)) continue;
      d.contrasts.push_back(FindingContrast{.topic = std::string(m->topic),
                                            .input_finding = name,
                                            .baseline_finding = other,
                                            .sentence = contrast_sentence(input, *m, *b)});
      contrasted.push_back(name);
      contrasted.push_back(other);
      break;
    }
  }
  for (const std::string& name : mine.findings) {
    if (has(base.findings, name)) {
      d.both.push_back(name);
    } else if (!has(contrasted, name)) {
      d.only_input.push_back(name);
    }
  }
  for (const std::string& name : base.findings) {
    if (!has(mine.findings, name) && !has(contrasted, name)) d.only_baseline.push_back(name);
  }
  return d;
}

std::string percent_cell(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f} %", *value) : std::string("-");
}

std::string ratio_cell(const std::optional<double>& value) {
  return value ? fmt::format("x{:.3f}", *value) : std::string("-");
}

Json optional_number(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

std::optional<ExplainComparison> explain_comparison(
    const std::vector<std::vector<const PhaseResult*>>& results) {
  ExplainComparison out;
  std::size_t carrying = 0;
  for (const std::vector<const PhaseResult*>& input : results) {
    const auto first = std::find_if(input.begin(), input.end(), [](const PhaseResult* p) {
      return p->explanation.has_value();
    });
    if (first == input.end()) {
      out.inputs.emplace_back();
      continue;
    }
    out.inputs.emplace_back(summarize(*(*first)->explanation, input.size()));
    ++carrying;
  }
  if (out.inputs.empty() || !out.inputs[0] || carrying < 2) return std::nullopt;
  for (std::size_t i = 1; i < out.inputs.size(); ++i) {
    if (out.inputs[i]) out.differences.push_back(difference(i, *out.inputs[i], *out.inputs[0]));
  }
  return out;
}

ExplainLines explain_lines(const ExplainComparison& explain, std::size_t first_number) {
  ExplainLines lines;
  const std::string base = input_name(0, first_number);
  for (const FindingsDifference& d : explain.differences) {
    const std::string i = input_name(d.input, first_number);
    for (const FindingContrast& c : d.contrasts) {
      const TopicFinding* mine = topic_finding(c.input_finding);
      const TopicFinding* theirs = topic_finding(c.baseline_finding);
      lines.findings.push_back(mine != nullptr && theirs != nullptr
                                   ? contrast_sentence(d.input, *mine, *theirs, first_number)
                                   : c.sentence);
    }
    if (!d.only_input.empty()) {
      lines.findings.push_back(
          fmt::format("only in {}, not in {}: {}", i, base, fmt::join(d.only_input, ", ")));
    }
    if (!d.only_baseline.empty()) {
      lines.findings.push_back(
          fmt::format("only in {}, not in {}: {}", base, i, fmt::join(d.only_baseline, ", ")));
    }
    if (!d.both.empty()) {
      lines.findings.push_back(fmt::format("in {} and {}: {}", base, i, fmt::join(d.both, ", ")));
    }
    if (d.contrasts.empty() && d.only_input.empty() && d.only_baseline.empty() && d.both.empty()) {
      lines.findings.push_back(fmt::format("no finding in {} or {}", base, i));
    }
  }
  const auto row = [&](std::string title, auto&& cell) {
    std::vector<std::string> cells{std::move(title)};
    for (const std::optional<ExplainSummary>& s : explain.inputs)
      cells.push_back(s ? printable(cell(*s)) : std::string("-"));
    lines.figures.push_back(std::move(cells));
  };
  row("storage", [](const ExplainSummary& s) { return s.storage; });
  row("device read", [](const ExplainSummary& s) { return format_bytes(s.device_read_bytes); });
  row("device written", [](const ExplainSummary& s) { return format_bytes(s.device_write_bytes); });
  row("page cache reads",
      [](const ExplainSummary& s) { return percent_cell(s.page_cache_read_percent); });
  row("read amplification",
      [](const ExplainSummary& s) { return ratio_cell(s.read_amplification); });
  row("write amplification",
      [](const ExplainSummary& s) { return ratio_cell(s.write_amplification); });
  row("device util", [](const ExplainSummary& s) {
    return s.util_percent ? fmt::format("{:.1f} % ({})", *s.util_percent, s.util_device)
                          : std::string("-");
  });
  return lines;
}

namespace {

bool repeated(const ExplainComparison& explain) {
  return std::any_of(explain.inputs.begin(), explain.inputs.end(),
                     [](const std::optional<ExplainSummary>& s) { return s && s->results > 1; });
}

}  // namespace

void write_explain_text(const ExplainComparison& explain, std::ostream& out) {
  const ExplainLines lines = explain_lines(explain);
  out << fmt::format(
      "Explain (what the kernel and the devices did{}; findings that differ first):\n",
      repeated(explain) ? ", each input's first repetition" : "");
  for (const std::string& line : lines.findings) out << "  " << line << '\n';
  std::vector<TextTable::Column> columns{{"", TextTable::Align::kLeft}};
  for (std::size_t i = 0; i < explain.inputs.size(); ++i)
    columns.push_back({input_name(i), TextTable::Align::kLeft});
  TextTable table(std::move(columns));
  for (const std::vector<std::string>& cells : lines.figures) table.add_row(cells);
  table.print(out, "  ");
  out << '\n';
}

void write_explain_markdown(const ExplainComparison& explain, std::ostream& out) {
  const ExplainLines lines = explain_lines(explain);
  const auto cell = [](const std::string& text) {
    std::string escaped;
    for (const char c : text) {
      if (c == '|') escaped += '\\';
      escaped += c;
    }
    return escaped;
  };
  out << fmt::format("Explain (what the kernel and the devices did{}):\n\n",
                     repeated(explain) ? ", each input's first repetition" : "");
  for (const std::string& line : lines.findings) out << "- " << cell(line) << '\n';
  out << "\n|  |";
  for (std::size_t i = 0; i < explain.inputs.size(); ++i) out << ' ' << input_name(i) << " |";
  out << "\n| --- |";
  for (std::size_t i = 0; i < explain.inputs.size(); ++i) out << " --- |";
  out << '\n';
  for (const std::vector<std::string>& cells : lines.figures) {
    out << '|';
    for (const std::string& c : cells) out << ' ' << cell(c) << " |";
    out << '\n';
  }
  out << '\n';
}

Json explain_comparison_json(const ExplainComparison& explain) {
  Json inputs = Json::array();
  for (const std::optional<ExplainSummary>& s : explain.inputs) {
    if (!s) {
      inputs.push_back(nullptr);
      continue;
    }
    inputs.push_back({{"storage", s->storage},
                      {"device_read_bytes", s->device_read_bytes},
                      {"device_write_bytes", s->device_write_bytes},
                      {"page_cache_read_percent", optional_number(s->page_cache_read_percent)},
                      {"read_amplification", optional_number(s->read_amplification)},
                      {"write_amplification", optional_number(s->write_amplification)},
                      {"util_percent", optional_number(s->util_percent)},
                      {"util_device", s->util_device},
                      {"findings", s->findings},
                      {"results", s->results}});
  }
  Json differences = Json::array();
  for (const FindingsDifference& d : explain.differences) {
    Json contrasts = Json::array();
    for (const FindingContrast& c : d.contrasts) {
      contrasts.push_back({{"topic", c.topic},
                           {"input_finding", c.input_finding},
                           {"baseline_finding", c.baseline_finding},
                           {"sentence", c.sentence}});
    }
    differences.push_back({{"input", d.input},
                           {"baseline", 0},
                           {"contrasts", std::move(contrasts)},
                           {"only_input", d.only_input},
                           {"only_baseline", d.only_baseline},
                           {"both", d.both}});
  }
  return {{"inputs", std::move(inputs)}, {"differences", std::move(differences)}};
}

}  // namespace iobench::detail
