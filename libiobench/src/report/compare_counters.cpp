// compare's counters: which counters count failures or are durations, and the counters of a
// phase that tell the inputs apart (CounterRow's rule, README "Counters").
#include "report/compare_counters.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace iobench {

bool counter_counts_failures(std::string_view name) noexcept {
  return name == "mismatches" || name == "corrupt_blocks" || name == "missing_handle" ||
         name.starts_with("mismatch.") || name.starts_with("short_read.") ||
         name.starts_with("short_write.") || name.ends_with("_errors");
}

bool counter_is_duration(std::string_view name) noexcept { return name.ends_with("_ns"); }

namespace detail {
namespace {

// The counter `name` of one phase result; nothing where the result does not count it.
std::optional<std::uint64_t> counter_of(const PhaseResult& phase, const std::string& name) {
  const auto it = std::find(phase.counter_names.begin(), phase.counter_names.end(), name);
  if (it == phase.counter_names.end()) return std::nullopt;
  const auto index = static_cast<std::size_t>(it - phase.counter_names.begin());
  return index < phase.counters.size() ? phase.counters[index] : 0;
}

}  // namespace

std::vector<CounterRow> counter_rows(std::span<const std::vector<const PhaseResult*>> results,
                                     std::span<const std::vector<const PhaseResult*>> failed,
                                     const std::vector<bool>& measured) {
  const std::size_t n = results.size();
  std::vector<std::string> names;
  for (const auto& input : results) {
    for (const PhaseResult* phase : input) {
      for (const std::string& name : phase->counter_names) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
  }
  // A failure counter that only failed results have (their data check failed) is listed too.
  for (const auto& input : failed) {
    for (const PhaseResult* phase : input) {
      for (const std::string& name : phase->counter_names) {
        if (counter_counts_failures(name) &&
            std::find(names.begin(), names.end(), name) == names.end()) {
          names.push_back(name);
        }
      }
    }
  }
  // Whether input i's phase has counters at all (in any of its results), and its ops per result.
  std::vector<bool> has_counters(n, false);
  std::vector<double> ops_per_result(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t ops = 0;
    for (const PhaseResult* phase : results[i]) ops += phase->total_ops();
    if (!results[i].empty()) {
      ops_per_result[i] = static_cast<double>(ops) / static_cast<double>(results[i].size());
    }
    has_counters[i] =
        std::any_of(results[i].begin(), results[i].end(),
                    [](const PhaseResult* phase) { return !phase->counter_names.empty(); });
  }
  std::vector<CounterRow> rows;
  for (const std::string& name : names) {
    CounterRow row{.name = name,
                   .failure = counter_counts_failures(name),
                   .duration = counter_is_duration(name),
                   .inputs = std::vector<CounterValues>(n)};
    for (std::size_t i = 0; i < n; ++i) {
      row.inputs[i].measured = measured[i];
      for (const PhaseResult* phase : results[i]) {
        const std::optional<std::uint64_t> value = counter_of(*phase, name);
        if (!value) continue;
        row.inputs[i].values.push_back(*value);
        row.inputs[i].total += *value;
      }
      if (!row.failure || i >= failed.size()) continue;
      for (const PhaseResult* phase : failed[i]) {
        const std::optional<std::uint64_t> value = counter_of(*phase, name);
        if (value) row.inputs[i].failed_values.push_back(*value);
      }
    }
    // Among the inputs whose phase has counters (an input whose phase has none, a classic
    // tool's output, says nothing about any; CounterRow): a counter only some of them have, a
    // failure counted anywhere, or a work counter's per-result mean (not the total: inputs may
    // have different numbers of results) unlike that of the first input with the counter where
    // the two did the same ops per result (not cut by a time limit or a stonewall).
    bool shown = false;
    bool lacking = false;  // an input whose phase has counters but not this one
    std::optional<std::size_t> reference;
    for (std::size_t i = 0; i < n; ++i) {
      if (!row.inputs[i].measured || !has_counters[i]) continue;
      const CounterValues& mine = row.inputs[i];
      if (mine.values.empty()) {
        lacking = true;
        continue;
      }
      if (!reference) reference = i;
      if (row.failure) {
        shown = shown || mine.total > 0;
      } else if (!row.duration) {
        shown = shown || (mine.mean() != row.inputs[*reference].mean() &&
                          ops_per_result[i] == ops_per_result[*reference]);
      }
    }
    shown = shown || (lacking && reference.has_value());
    // A failure counted in a failed result (a data check that failed its phase).
    for (const CounterValues& values : row.inputs) {
      shown = shown || std::any_of(values.failed_values.begin(), values.failed_values.end(),
                                   [](std::uint64_t value) { return value > 0; });
    }
    if (!shown) continue;
    if (row.failure) {
      // Above the baseline's per-result mean (0 where the baseline does not count it), over the
      // ok and the failed results: any data error more than the baseline had is worse
      // (CounterRow::worse).
      const double base = row.inputs[0].gate_mean();
      for (std::size_t i = 1; i < n; ++i) {
        const CounterValues& mine = row.inputs[i];
        const bool counted = !mine.values.empty() || !mine.failed_values.empty();
        if (counted && mine.gate_mean() > base) row.worse.push_back(i);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace detail

std::vector<CounterRegression> counter_regressions(const Comparison& comparison) {
  std::vector<CounterRegression> out;
  for (std::size_t p = 0; p < comparison.phases.size(); ++p) {
    const std::vector<CounterRow>& counters = comparison.phases[p].counters;
    for (std::size_t c = 0; c < counters.size(); ++c) {
      for (const std::size_t input : counters[c].worse) {
        out.push_back(CounterRegression{.phase = p, .counter = c, .input = input});
      }
    }
  }
  return out;
}

}  // namespace iobench
