// Printing a Comparison: text and Markdown for people, CSV and JSON for tools. Only formats;
// every figure comes from compare_results().
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/compare.hpp>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <nlohmann/json.hpp>

#include "report/compare_explain.hpp"
#include "report/text_table.hpp"

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;

// The printed unit of a metric and the value in it.
struct Shown {
  const char* unit;
  double scale;
  int decimals;
};

Shown shown(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::kThroughput:
      return {"MiB/s", 1.0 / kBytesPerMiB, 2};
    case CompareMetric::kIops:
      return {"ops/s", 1.0, 1};
    case CompareMetric::kCpu:
      return {"%", 1.0, 1};
    default:
      return {"us", 1e-3, 3};  // latency, ns
  }
}

std::string metric_title(CompareMetric metric) {
  return fmt::format("{} ({})", compare_metric_info(metric).title, shown(metric).unit);
}

const char* better_text(CompareMetric metric) {
  return compare_metric_info(metric).better == Better::kHigher ? "higher" : "lower";
}

std::string input_name(std::size_t i) { return fmt::format("#{}", i); }

bool row_has_repetitions(const MetricRow& row) {
  for (const MetricValues& values : row.inputs) {
    if (values.stats.count > 1) return true;
  }
  return false;
}

// "95.37", or with repetitions "95.37 +- 1.20 (n=3)"; "-" for an input without the phase.
std::string value_cell(const MetricRow& row, std::size_t input) {
  const MetricValues& values = row.inputs[input];
  if (values.stats.count == 0 && values.unavailable) {
    return *values.unavailable == Unavailable::kTooFast ? "+++++" : "n/a";
  }
  if (values.stats.count == 0) return "-";
  const Shown unit = shown(row.metric);
  std::string cell = fmt::format("{:.{}f}", values.stats.mean * unit.scale, unit.decimals);
  if (row_has_repetitions(row)) {
    // One run has no sample stddev: "n/a", never a 0 that reads as no noise.
    cell += values.stats.count > 1
                ? fmt::format(" +- {:.{}f} (n={})", values.stats.stddev * unit.scale, unit.decimals,
                              values.stats.count)
                : std::string(" +- n/a (n=1)");
  }
  return cell;
}

std::string change_cell(const std::optional<MetricChange>& change) {
  if (!change) return "-";
  if (!change->change_percent) return "n/a (baseline 0)";
  return fmt::format("{:+.2f}%", *change->change_percent);
}

std::string mark_cell(const std::optional<MetricChange>& change, std::size_t input) {
  if (!change) return fmt::format("not in {}", input_name(input));
  if (change->direction == ChangeDirection::kUnchanged && change->noise != Noise::kSignificant) {
    return "unchanged";
  }
  std::string mark = fmt::format("{}, {}", to_string(change->direction), to_string(change->noise));
  if (change->welch.valid) {
    const double p = change->welch.p_value;
    mark += fmt::format(" ({}, df={:.1f})",
                        p < 1e-4 ? std::string("p<0.0001") : fmt::format("p={:.4f}", p),
                        change->welch.degrees_of_freedom);
  }
  return mark;
}

std::string where(const std::string& step, const std::string& workload,
                  const std::optional<std::string>& point, const std::string& phase) {
  std::string text = fmt::format("step {} ({})", printable(step), printable(workload));
  if (point) text += fmt::format(", point {}", printable(*point));
  if (!phase.empty()) text += fmt::format(", phase {}", printable(phase));
  return text;
}

std::string inputs_list(const std::vector<std::size_t>& inputs) {
  std::vector<std::string> names;
  for (const std::size_t i : inputs) names.push_back(input_name(i));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string left_out_line(const LeftOutResult& left) {
  std::string text = fmt::format("{} step {}", input_name(left.input), printable(left.step));
  if (left.sweep_point) text += fmt::format(", point {}", printable(*left.sweep_point));
  text += fmt::format(", repetition {}", left.repetition);
  if (!left.phase.empty()) text += fmt::format(", phase {}", printable(left.phase));
  text += fmt::format(": {}", to_string(left.status));
  if (!left.message.empty()) text += fmt::format(" ({})", printable_message(left.message));
  // What fails --fail-if-worse (failed_phases).
  if (left.baseline_ok) text += "; the baseline's ended ok";
  return text;
}

std::string not_available_line(const NotAvailable& entry) {
  return fmt::format("{} {}: {} in {}", input_name(entry.input),
                     compare_metric_info(entry.metric).name, to_string(entry.why),
                     printable(fmt::format("{}", fmt::join(entry.phases, ", "))));
}

std::string not_mapped_line(const NotMapped& entry) {
  return fmt::format("{} ({}): {}", input_name(entry.input), entry.format,
                     printable_message(entry.what));
}

constexpr const char* kMarksLegend =
    "Change is against the baseline #0, in %. 'better' and 'worse' follow each metric's direction "
    "(higher or lower is better), so 'worse' is a regression whichever way the number moved. "
    "'significant' / 'within noise': Welch's t-test at 95 % over the repetitions (n per side, p, "
    "df); 'n=1: no noise estimate': a side has one run, so noise cannot be told from change.";

// `text` broken into lines of at most `width` bytes at spaces.
std::string wrapped(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t line = 0;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    if (line > 0 && line + 1 + word.size() > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
  }
  return out;
}

std::vector<std::string> row_cells(const MetricRow& row) {
  std::vector<std::string> cells{metric_title(row.metric), better_text(row.metric),
                                 value_cell(row, 0)};
  for (std::size_t i = 1; i < row.inputs.size(); ++i) {
    cells.push_back(value_cell(row, i));
    cells.push_back(change_cell(row.changes[i - 1]));
    if (!row.changes[i - 1] && (row.inputs[i].unavailable || row.inputs[0].unavailable)) {
      const auto& mine = row.inputs[i].unavailable;
      const auto& base = row.inputs[0].unavailable;
      if (mine && base) {
        cells.push_back(fmt::format("n/a: {}", to_string(*mine)));
      } else {
        cells.push_back(fmt::format("n/a in {}: {}", input_name(mine ? i : 0),
                                    to_string(mine ? *mine : *base)));
      }
    } else {
      cells.push_back(mark_cell(row.changes[i - 1], i));
    }
  }
  return cells;
}

std::vector<std::string> row_titles(std::size_t inputs) {
  std::vector<std::string> titles{"metric", "better", "#0"};
  for (std::size_t i = 1; i < inputs; ++i) {
    titles.push_back(input_name(i));
    titles.push_back(inputs > 2 ? fmt::format("change {}", input_name(i)) : "change");
    titles.push_back(inputs > 2 ? fmt::format("mark {}", input_name(i)) : "mark");
  }
  return titles;
}

std::string markdown_cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void markdown_row(std::ostream& out, const std::vector<std::string>& cells) {
  out << '|';
  for (const std::string& cell : cells) out << ' ' << markdown_cell(cell) << " |";
  out << '\n';
}

// A counter's cell: the input's total (a duration's per-result mean), with several results each
// value ("6 (n=3: 1, 2, 3)"); "n/a" where the input has the phase but not the counter, "-" where
// it lacks the phase; a failure counted in failed results follows as "failed: 3" (alone where
// the input has no ok result of the phase).
std::string counter_cell(const CounterRow& row, std::size_t input) {
  const CounterValues& mine = row.inputs[input];
  // A failure counted in failed results (CounterValues::failed_values), after the ok ones.
  const std::string failed = mine.failed_values.empty()
                                 ? std::string()
                                 : fmt::format("failed: {}", fmt::join(mine.failed_values, ", "));
  if (mine.values.empty()) {
    if (!failed.empty()) return failed;
    return mine.measured ? "n/a" : "-";
  }
  std::string cell = row.duration ? fmt::format("{:.0f}", mine.mean()) : std::to_string(mine.total);
  const bool repeated = std::any_of(row.inputs.begin(), row.inputs.end(),
                                    [](const CounterValues& v) { return v.values.size() > 1; });
  if (repeated)
    cell += fmt::format(" (n={}: {})", mine.values.size(), fmt::join(mine.values, ", "));
  if (!failed.empty()) cell += "; " + failed;
  return cell;
}

std::vector<std::string> counter_titles(std::size_t inputs) {
  std::vector<std::string> titles{"counter"};
  for (std::size_t i = 0; i < inputs; ++i) titles.push_back(input_name(i));
  titles.emplace_back("counts");
  return titles;
}

std::vector<std::string> counter_cells(const CounterRow& row) {
  std::vector<std::string> cells{printable(row.name)};
  for (std::size_t i = 0; i < row.inputs.size(); ++i) {
    cells.push_back(counter_cell(row, i));
  }
  std::string counts = row.failure ? "failures" : row.duration ? "ns (mean)" : "work";
  // A failure counted above the baseline's: what fails --fail-if-worse (CounterRow::worse).
  if (!row.worse.empty()) counts += fmt::format(", worse in {}", inputs_list(row.worse));
  cells.push_back(std::move(counts));
  return cells;
}

constexpr const char* kCountersTitle =
    "Counters (where the inputs differ, or where a failure count is not 0):";

Json number_or_null(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json optional_text(const std::optional<std::string>& text) {
  return text ? Json(*text) : Json(nullptr);
}

// A CSV number: empty where not finite.
std::string csv_number(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : std::string();
}

// A CSV mean only with a value, a stddev only with two (n = 1 has no sample stddev).
std::string csv_mean(const SampleStats& stats) {
  return stats.count > 0 ? csv_number(stats.mean) : std::string();
}

std::string csv_stddev(const SampleStats& stats) {
  return stats.count > 1 ? csv_number(stats.stddev) : std::string();
}

// The first 12 cells of a CSV row, which metric and counter rows share: step, workload,
// sweep_point, phase, metric (or the counter's name), unit, better, baseline, input (input i's
// label), base_n, base_mean, base_stddev.
std::vector<std::string> csv_row_start(const Comparison& comparison, const PhaseComparison& phase,
                                       std::size_t i, std::string name, std::string unit,
                                       std::string better, const SampleStats& base) {
  return {csv_field(phase.step),
          csv_field(phase.workload),
          csv_field(phase.sweep_point.value_or("")),
          csv_field(phase.phase),
          std::move(name),
          std::move(unit),
          std::move(better),
          csv_field(comparison.labels[0]),
          csv_field(comparison.labels[i]),
          std::to_string(base.count),
          csv_mean(base),
          csv_stddev(base)};
}

// The CSV kind of a counter row (the metrics' rows are "metric").
const char* counter_kind(const CounterRow& row) {
  return row.failure ? "failure" : row.duration ? "duration" : "work";
}

// The CSV rows of one counter, one per input after the baseline, in the metrics' columns:
// metric the counter's name, unit "count" ("ns" for a duration), better "lower" for a failure
// count (empty for work and durations, which have no better side), n the results that have the
// counter, mean and stddev over them (per result), change_percent against the baseline's mean,
// direction for a failure count only, by the means the gate compares (CounterValues::gate_mean,
// over the ok and the failed results: worse is CounterRow::worse), no noise or Welch test;
// "not counted" where an input has the phase but not the counter; then kind (failure, work,
// duration) and each side's total.
void write_counter_csv(const Comparison& comparison, const PhaseComparison& phase,
                       const CounterRow& row, std::ostream& out) {
  const CounterValues& base = row.inputs[0];
  const auto stats_of = [](const CounterValues& values) {
    const std::vector<double> doubles(values.values.begin(), values.values.end());
    return summarize_sample(doubles);
  };
  const SampleStats base_stats = stats_of(base);
  const auto total_of = [](const CounterValues& v) {
    return v.values.empty() ? std::string() : std::to_string(v.total);
  };
  const auto why_none = [](const CounterValues& v) {
    return v.measured && v.values.empty() ? std::string("not counted") : std::string();
  };
  for (std::size_t i = 1; i < row.inputs.size(); ++i) {
    const CounterValues& mine = row.inputs[i];
    std::vector<std::string> cells =
        csv_row_start(comparison, phase, i, csv_field(row.name), row.duration ? "ns" : "count",
                      row.failure ? "lower" : "", base_stats);
    // A failure count's direction, from the means the gate compares (over the ok and the
    // failed results, CounterValues::gate_mean), so that it says "worse" exactly where
    // CounterRow::worse has the input; also where only failed results count it (they are in no
    // other cell: n, mean and the totals are over the ok results).
    const bool worse = std::find(row.worse.begin(), row.worse.end(), i) != row.worse.end();
    const bool counted = !mine.values.empty() || !mine.failed_values.empty();
    std::string direction;
    if (worse) {
      direction = to_string(ChangeDirection::kWorse);
    } else if (row.failure && counted) {
      direction = to_string(mine.gate_mean() < base.gate_mean() ? ChangeDirection::kBetter
                                                                : ChangeDirection::kUnchanged);
    }
    if (mine.measured) {
      std::string change;
      if (!mine.values.empty() && !base.values.empty() && base.mean() != 0) {
        change = csv_number((mine.mean() - base.mean()) / base.mean() * 100.0);
      }
      const SampleStats stats = stats_of(mine);
      cells.insert(cells.end(), {std::to_string(stats.count), csv_mean(stats), csv_stddev(stats),
                                 change, direction});
      cells.resize(cells.size() + 4);  // noise, welch_t, welch_df, p_value: no test
    } else {
      // The input has no ok result of the phase: n onwards empty, but for the direction.
      cells.resize(cells.size() + 4);
      cells.push_back(direction);
      cells.resize(cells.size() + 4);
    }
    cells.insert(cells.end(), {why_none(base), why_none(mine), counter_kind(row), total_of(base),
                               total_of(mine)});
    out << fmt::format("{}\n", fmt::join(cells, ","));
  }
}

}  // namespace

void write_comparison_text(const Comparison& comparison, std::ostream& out) {
  const std::size_t n = comparison.labels.size();
  out << fmt::format("Comparing {} result documents against the baseline #0:\n", n);
  for (std::size_t i = 0; i < n; ++i) {
    out << fmt::format("  {}  {}{}\n", input_name(i), printable(comparison.labels[i]),
                       i == 0 ? " (baseline)" : "");
  }
  out << '\n';
  if (comparison.environment.empty()) {
    out << "Environment: no differences (kernel, CPU, RAM, targets, iobench version, params, "
           "engine)\n";
  } else {
    out << "Environment differences (what is being compared):\n";
    for (const EnvironmentDifference& difference : comparison.environment) {
      out << fmt::format("  {}\n", printable(difference.field));
      for (std::size_t i = 0; i < difference.values.size(); ++i) {
        out << fmt::format("    {}  {}\n", input_name(i), printable(difference.values[i]));
      }
    }
  }
  out << '\n' << wrapped(kMarksLegend, 100) << '\n';
  for (const PhaseComparison& phase : comparison.phases) {
    out << fmt::format("\n== {}\n",
                       where(phase.step, phase.workload, phase.sweep_point, phase.phase));
    std::vector<detail::TextTable::Column> columns;
    for (const std::string& title : row_titles(n)) {
      const bool left = title == "metric" || title == "better" || title.starts_with("mark");
      columns.push_back(
          {title, left ? detail::TextTable::Align::kLeft : detail::TextTable::Align::kRight});
    }
    for (const std::string& note : phase.notes) out << wrapped("Compared: " + note, 100) << '\n';
    if (phase.explain) detail::write_explain_text(*phase.explain, out);
    detail::TextTable table(std::move(columns));
    for (const MetricRow& row : phase.metrics) table.add_row(row_cells(row));
    table.print(out, "  ");
    if (phase.counters.empty()) continue;
    out << "  " << kCountersTitle << '\n';
    std::vector<detail::TextTable::Column> counter_columns;
    for (const std::string& title : counter_titles(n)) {
      const bool left = title == "counter" || title == "counts";
      counter_columns.push_back(
          {title, left ? detail::TextTable::Align::kLeft : detail::TextTable::Align::kRight});
    }
    detail::TextTable counters(std::move(counter_columns));
    for (const CounterRow& row : phase.counters) counters.add_row(counter_cells(row));
    counters.print(out, "  ");
  }
  if (comparison.phases.empty()) out << "\nNo phase is in the baseline and another input.\n";
  if (!comparison.unmatched.empty()) {
    out << "\nNot compared (not in every input):\n";
    for (const UnmatchedPart& part : comparison.unmatched) {
      out << fmt::format("  {}: in {}; missing in {}\n",
                         where(part.step, part.workload, part.sweep_point, part.phase),
                         part.present.empty() ? std::string("none") : inputs_list(part.present),
                         inputs_list(part.missing));
    }
  }
  if (!comparison.left_out.empty()) {
    out << "\nLeft out (did not end ok):\n";
    for (const LeftOutResult& left : comparison.left_out)
      out << "  " << left_out_line(left) << '\n';
  }
  if (!comparison.not_available.empty()) {
    out << "\nNot available (the input has the phase, its source not the figure):\n";
    for (const NotAvailable& entry : comparison.not_available) {
      out << "  " << not_available_line(entry) << '\n';
    }
  }
  if (!comparison.not_mapped.empty()) {
    out << "\nNot mapped (in a classic input, not compared):\n";
    for (const NotMapped& entry : comparison.not_mapped) {
      out << "  " << not_mapped_line(entry) << '\n';
    }
  }
}

void write_comparison_markdown(const Comparison& comparison, std::ostream& out) {
  const std::size_t n = comparison.labels.size();
  out << "## iobench compare\n\n";
  for (std::size_t i = 0; i < n; ++i) {
    out << fmt::format("- `{}`: {}{}\n", input_name(i),
                       markdown_cell(printable(comparison.labels[i])), i == 0 ? " (baseline)" : "");
  }
  out << "\n### Environment differences\n\n";
  if (comparison.environment.empty()) {
    out << "None (kernel, CPU, RAM, targets, iobench version, params, engine).\n";
  } else {
    std::vector<std::string> titles{"field"};
    for (std::size_t i = 0; i < n; ++i) titles.push_back(input_name(i));
    markdown_row(out, titles);
    markdown_row(out, std::vector<std::string>(titles.size(), "---"));
    for (const EnvironmentDifference& difference : comparison.environment) {
      std::vector<std::string> cells{printable(difference.field)};
      for (const std::string& value : difference.values) cells.push_back(printable(value));
      markdown_row(out, cells);
    }
  }
  out << "\n### Results\n\n" << kMarksLegend << '\n';
  for (const PhaseComparison& phase : comparison.phases) {
    out << fmt::format("\n#### {}\n\n",
                       where(phase.step, phase.workload, phase.sweep_point, phase.phase));
    for (const std::string& note : phase.notes)
      out << "Compared: " << markdown_cell(note) << "\n\n";
    if (phase.explain) detail::write_explain_markdown(*phase.explain, out);
    const std::vector<std::string> titles = row_titles(n);
    markdown_row(out, titles);
    std::vector<std::string> rule;
    for (const std::string& title : titles) {
      const bool left = title == "metric" || title == "better" || title.starts_with("mark");
      rule.push_back(left ? "---" : "--:");
    }
    markdown_row(out, rule);
    for (const MetricRow& row : phase.metrics) markdown_row(out, row_cells(row));
    if (phase.counters.empty()) continue;
    out << '\n' << kCountersTitle << "\n\n";
    const std::vector<std::string> counter_heads = counter_titles(n);
    markdown_row(out, counter_heads);
    std::vector<std::string> counter_rule;
    for (const std::string& title : counter_heads) {
      counter_rule.push_back(title == "counter" || title == "counts" ? "---" : "--:");
    }
    markdown_row(out, counter_rule);
    for (const CounterRow& row : phase.counters) markdown_row(out, counter_cells(row));
  }
  if (!comparison.unmatched.empty()) {
    out << "\n### Not compared (not in every input)\n\n";
    for (const UnmatchedPart& part : comparison.unmatched) {
      out << fmt::format(
          "- {}: in {}; missing in {}\n",
          markdown_cell(where(part.step, part.workload, part.sweep_point, part.phase)),
          part.present.empty() ? std::string("none") : inputs_list(part.present),
          inputs_list(part.missing));
    }
  }
  if (!comparison.left_out.empty()) {
    out << "\n### Left out (did not end ok)\n\n";
    for (const LeftOutResult& left : comparison.left_out) {
      out << "- " << markdown_cell(left_out_line(left)) << '\n';
    }
  }
  if (!comparison.not_available.empty()) {
    out << "\n### Not available (the input has the phase, its source not the figure)\n\n";
    for (const NotAvailable& entry : comparison.not_available) {
      out << "- " << markdown_cell(not_available_line(entry)) << '\n';
    }
  }
  if (!comparison.not_mapped.empty()) {
    out << "\n### Not mapped (in a classic input, not compared)\n\n";
    for (const NotMapped& entry : comparison.not_mapped) {
      out << "- " << markdown_cell(not_mapped_line(entry)) << '\n';
    }
  }
}

void write_comparison_csv(const Comparison& comparison, std::ostream& out) {
  out << "step,workload,sweep_point,phase,metric,unit,better,baseline,input,base_n,base_mean,"
         "base_stddev,n,mean,stddev,change_percent,direction,noise,welch_t,welch_df,p_value,"
         "base_not_available,not_available,kind,base_total,total\n";
  const auto why_none = [](const MetricValues& v) {
    return v.unavailable ? csv_field(to_string(*v.unavailable)) : std::string();
  };
  for (const PhaseComparison& phase : comparison.phases) {
    for (const MetricRow& row : phase.metrics) {
      const CompareMetricInfo& info = compare_metric_info(row.metric);
      const SampleStats& base = row.inputs[0].stats;
      for (std::size_t i = 1; i < row.inputs.size(); ++i) {
        std::vector<std::string> cells =
            csv_row_start(comparison, phase, i, std::string(info.name), std::string(info.unit),
                          better_text(row.metric), base);
        const auto& change = row.changes[i - 1];
        const SampleStats& stats = row.inputs[i].stats;
        if (change) {
          const WelchTest& welch = change->welch;
          cells.insert(cells.end(),
                       {std::to_string(stats.count), csv_mean(stats), csv_stddev(stats),
                        change->change_percent ? csv_number(*change->change_percent) : "",
                        to_string(change->direction), to_string(change->noise),
                        welch.valid ? csv_number(welch.t) : "",
                        welch.valid ? csv_number(welch.degrees_of_freedom) : "",
                        welch.valid ? csv_number(welch.p_value) : ""});
        } else if (stats.count > 0 || row.inputs[i].unavailable) {
          // The input has the phase; the baseline or it lacks the figure (said in the last two).
          cells.insert(cells.end(),
                       {std::to_string(stats.count), csv_mean(stats), csv_stddev(stats)});
          cells.resize(cells.size() + 6);
        } else {
          cells.resize(cells.size() + 9);
        }
        cells.push_back(why_none(row.inputs[0]));
        cells.push_back(why_none(row.inputs[i]));
        cells.insert(cells.end(), {"metric", "", ""});
        out << fmt::format("{}\n", fmt::join(cells, ","));
      }
    }
    for (const CounterRow& row : phase.counters) write_counter_csv(comparison, phase, row, out);
  }
}

std::string comparison_to_json(const Comparison& comparison, int indent) {
  Json j;
  j["inputs"] = comparison.labels;
  Json metrics = Json::array();
  for (const CompareMetric metric : comparison.metrics) {
    const CompareMetricInfo& info = compare_metric_info(metric);
    metrics.push_back({{"name", info.name}, {"unit", info.unit}, {"better", better_text(metric)}});
  }
  j["metrics"] = std::move(metrics);
  Json environment = Json::array();
  for (const EnvironmentDifference& difference : comparison.environment) {
    environment.push_back({{"field", difference.field}, {"values", difference.values}});
  }
  j["environment"] = std::move(environment);
  Json phases = Json::array();
  for (const PhaseComparison& phase : comparison.phases) {
    Json rows = Json::array();
    for (const MetricRow& row : phase.metrics) {
      const CompareMetricInfo& info = compare_metric_info(row.metric);
      Json inputs = Json::array();
      for (const MetricValues& values : row.inputs) {
        // No value: no mean (never 0); one value: no sample stddev.
        Json entry = {
            {"n", values.stats.count},
            {"mean", values.stats.count > 0 ? number_or_null(values.stats.mean) : Json(nullptr)},
            {"stddev",
             values.stats.count > 1 ? number_or_null(values.stats.stddev) : Json(nullptr)},
            {"values", values.values}};
        if (values.unavailable) entry["unavailable"] = to_string(*values.unavailable);
        inputs.push_back(std::move(entry));
      }
      Json changes = Json::array();
      for (const auto& change : row.changes) {
        if (!change) {
          changes.push_back(nullptr);
          continue;
        }
        Json welch = nullptr;
        if (change->welch.valid) {
          welch = {{"t", number_or_null(change->welch.t)},
                   {"df", change->welch.degrees_of_freedom},
                   {"p_value", change->welch.p_value},
                   {"t_critical", change->welch.t_critical}};
        }
        changes.push_back({{"change_percent",
                            change->change_percent ? Json(*change->change_percent) : Json(nullptr)},
                           {"direction", to_string(change->direction)},
                           {"noise", to_string(change->noise)},
                           {"welch", std::move(welch)}});
      }
      rows.push_back({{"metric", info.name},
                      {"unit", info.unit},
                      {"better", better_text(row.metric)},
                      {"inputs", std::move(inputs)},
                      {"changes", std::move(changes)}});
    }
    phases.push_back({{"step", phase.step},
                      {"workload", phase.workload},
                      {"sweep_point", optional_text(phase.sweep_point)},
                      {"phase", phase.phase},
                      {"metrics", std::move(rows)}});
    if (!phase.notes.empty()) phases.back()["notes"] = phase.notes;
    if (phase.explain) phases.back()["explain"] = detail::explain_comparison_json(*phase.explain);
    if (!phase.counters.empty()) {
      Json counters = Json::array();
      for (const CounterRow& row : phase.counters) {
        Json inputs = Json::array();
        for (const CounterValues& values : row.inputs) {
          // Null only where the input has neither ok results of the phase nor failed ones that
          // count the counter (a failed-only input's failures are what the gate reads).
          const bool failed = !values.failed_values.empty();
          if (!values.measured && !failed) {
            inputs.push_back(nullptr);
            continue;
          }
          const bool none = values.values.empty();
          Json entry = {{"n", values.values.size()},
                        {"total", none ? Json(nullptr) : Json(values.total)},
                        {"mean", none ? Json(nullptr) : Json(values.mean())},
                        {"values", values.values}};
          // The failed results' counts (CounterValues::failed_values) and the mean `worse`
          // compares, over the ok and the failed results: the figures of the gate.
          entry["failed"] = failed ? Json{{"n", values.failed_values.size()},
                                          {"total", values.failed_total()},
                                          {"mean", values.failed_mean()},
                                          {"values", values.failed_values}}
                                   : Json(nullptr);
          entry["gate_mean"] =
              row.failure && (!none || failed) ? Json(values.gate_mean()) : Json(nullptr);
          inputs.push_back(std::move(entry));
        }
        counters.push_back({{"name", row.name},
                            {"failure", row.failure},
                            {"duration", row.duration},
                            {"inputs", std::move(inputs)},
                            {"worse", row.worse}});
      }
      phases.back()["counters"] = std::move(counters);
    }
  }
  j["phases"] = std::move(phases);
  Json unmatched = Json::array();
  for (const UnmatchedPart& part : comparison.unmatched) {
    unmatched.push_back({{"step", part.step},
                         {"workload", part.workload},
                         {"sweep_point", optional_text(part.sweep_point)},
                         {"phase", part.phase},
                         {"present", part.present},
                         {"missing", part.missing}});
  }
  j["unmatched"] = std::move(unmatched);
  Json left_out = Json::array();
  for (const LeftOutResult& left : comparison.left_out) {
    left_out.push_back({{"input", left.input},
                        {"step", left.step},
                        {"sweep_point", optional_text(left.sweep_point)},
                        {"repetition", left.repetition},
                        {"phase", left.phase},
                        {"status", to_string(left.status)},
                        {"message", left.message},
                        {"baseline_ok", left.baseline_ok}});
  }
  j["left_out"] = std::move(left_out);
  if (!comparison.not_available.empty()) {
    Json list = Json::array();
    for (const NotAvailable& entry : comparison.not_available) {
      list.push_back({{"input", entry.input},
                      {"metric", compare_metric_info(entry.metric).name},
                      {"reason", to_string(entry.why)},
                      {"phases", entry.phases}});
    }
    j["not_available"] = std::move(list);
  }
  if (!comparison.not_mapped.empty()) {
    Json list = Json::array();
    for (const NotMapped& entry : comparison.not_mapped) {
      list.push_back({{"input", entry.input}, {"format", entry.format}, {"what", entry.what}});
    }
    j["not_mapped"] = std::move(list);
  }
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace iobench
