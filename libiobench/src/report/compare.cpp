// Aligning result documents for `iobench compare`: repetitions grouped by suite placement, steps
// matched by name, workload and sweep point, phases by name; per metric the change against the
// baseline and Welch's t-test where both sides have repetitions; environment differences.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <map>
#include <set>
#include <tuple>

#include "report/compare_counters.hpp"
#include "report/compare_environment.hpp"
#include "report/compare_explain.hpp"
#include "report/compare_fio.hpp"
#include "report/compare_params.hpp"

namespace iobench {
namespace {

constexpr std::array<CompareMetricInfo, 8> kMetrics{{
    {CompareMetric::kThroughput, "throughput", "bytes/s", Better::kHigher, "throughput"},
    {CompareMetric::kIops, "iops", "ops/s", Better::kHigher, "IOPS"},
    {CompareMetric::kLatencyMean, "lat_mean", "ns", Better::kLower, "mean latency"},
    {CompareMetric::kLatencyP50, "lat_p50", "ns", Better::kLower, "p50 latency"},
    {CompareMetric::kLatencyP99, "lat_p99", "ns", Better::kLower, "p99 latency"},
    {CompareMetric::kLatencyP99_9, "lat_p99_9", "ns", Better::kLower, "p99.9 latency"},
    {CompareMetric::kLatencyMax, "lat_max", "ns", Better::kLower, "max latency"},
    {CompareMetric::kCpu, "cpu", "%", Better::kLower, "CPU (usr+sys)"},
}};

// The step results of one input that are repetitions of one step (and sweep point).
struct Group {
  std::string step;
  std::string workload;
  std::optional<std::string> point;
  std::vector<std::pair<std::size_t, const StepResult*>> repetitions;  // (repetition, result)
};

using GroupKey = std::tuple<std::string, std::string, std::optional<std::string>>;

GroupKey key_of(const Group& group) { return {group.step, group.workload, group.point}; }

std::vector<Group> groups_of(const ResultDocument& document) {
  std::vector<Group> groups;
  std::map<GroupKey, std::size_t> index;
  std::map<std::string, std::size_t> name_uses;  // documents without placements
  const bool placed = document.placements.size() == document.run.steps.size();
  for (std::size_t i = 0; i < document.run.steps.size(); ++i) {
    const StepResult& step = document.run.steps[i];
    Group probe{.step = step.name, .workload = step.workload, .point = {}, .repetitions = {}};
    std::size_t repetition = 1;
    if (placed) {
      probe.step = document.placements[i].suite_step;
      probe.point = document.placements[i].sweep_point;
      repetition = document.placements[i].repetition;
    } else if (const std::size_t uses = ++name_uses[step.name]; uses > 1) {
      // Steps of one run are different steps even when named alike: never repetitions.
      probe.step = fmt::format("{} ({})", step.name, uses);
    }
    const auto [it, inserted] = index.emplace(key_of(probe), groups.size());
    if (inserted) groups.push_back(std::move(probe));
    groups[it->second].repetitions.emplace_back(repetition, &step);
  }
  return groups;
}

// The phases of `step` that are runs of the phase `name` (pooled_phase_name): one, or with a
// workload's own repetitions (bonnie's seq_create#1..#3) each of them.
std::vector<const PhaseResult*> find_phases(const StepResult& step, std::string_view name) {
  std::vector<const PhaseResult*> found;
  for (const PhaseResult& phase : step.phases) {
    if (pooled_phase_name(phase.name) == name) found.push_back(&phase);
  }
  return found;
}

std::string point_suffix(const std::optional<std::string>& point) {
  return point ? fmt::format(" point {}", *point) : std::string();
}

MetricChange change_of(const MetricValues& base, const MetricValues& other, Better better) {
  MetricChange change;
  const double b = base.stats.mean;
  const double o = other.stats.mean;
  if (b != 0) {
    change.change_percent = (o - b) / b * 100.0;
    change.worse_percent =
        better == Better::kHigher ? -*change.change_percent : *change.change_percent;
  }
  if (o != b) {
    change.direction =
        (o > b) == (better == Better::kHigher) ? ChangeDirection::kBetter : ChangeDirection::kWorse;
  }
  change.welch = welch_t_test(base.stats, other.stats);
  if (change.welch.valid) {
    change.noise = change.welch.significant ? Noise::kSignificant : Noise::kWithinNoise;
  }
  return change;
}

// The phase names of `groups` (one per input, nullptr where absent), in first-seen order.
std::vector<std::string> phase_names(const std::vector<const Group*>& groups) {
  std::vector<std::string> names;
  for (const Group* group : groups) {
    if (group == nullptr) continue;
    for (const auto& [repetition, step] : group->repetitions) {
      for (const PhaseResult& phase : step->phases) {
        std::string name = pooled_phase_name(phase.name);
        if (std::find(names.begin(), names.end(), name) == names.end()) {
          names.push_back(std::move(name));
        }
      }
    }
  }
  return names;
}

// Lists `phase` of input `input` as lacking `metric` for `why` (one entry per input, metric and
// reason).
void note_unavailable(std::vector<NotAvailable>& out, std::size_t input, CompareMetric metric,
                      Unavailable why, std::string phase) {
  for (NotAvailable& entry : out) {
    if (entry.input != input || entry.metric != metric || entry.why != why) continue;
    if (std::find(entry.phases.begin(), entry.phases.end(), phase) == entry.phases.end()) {
      entry.phases.push_back(std::move(phase));
    }
    return;
  }
  out.push_back(NotAvailable{.input = input, .metric = metric, .why = why, .phases = {phase}});
}

bool too_fast_row(const MetricRow& row) {
  return std::any_of(row.inputs.begin(), row.inputs.end(),
                     [](const MetricValues& v) { return v.unavailable == Unavailable::kTooFast; });
}

std::vector<std::size_t> indices_where(const std::vector<bool>& flags, bool value) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == value) out.push_back(i);
  }
  return out;
}

void check_selected_phases(std::span<const CompareInput> inputs,
                           const std::vector<std::string>& selected) {
  std::vector<std::string> known;
  for (const CompareInput& input : inputs) {
    for (const StepResult& step : input.document.run.steps) {
      for (const PhaseResult& phase : step.phases) {
        std::string name = pooled_phase_name(phase.name);
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          known.push_back(std::move(name));
        }
      }
    }
  }
  for (const std::string& name : selected) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    throw ConfigError(fmt::format("phase '{}' is in none of the inputs; their phases: {}",
                                  printable(name),
                                  printable(fmt::format("{}", fmt::join(known, ", ")))));
  }
}

}  // namespace

std::string pooled_phase_name(std::string_view name) {
  const auto digits_from = [&name](std::size_t at) {
    return at < name.size() && std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at),
                                           name.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  // bonnie (repetitions=N, bonnie++ -x): "seq_create#2".
  if (const std::size_t hash = name.rfind('#');
      hash != std::string_view::npos && hash > 0 && digits_from(hash + 1)) {
    return std::string(name.substr(0, hash));
  }
  // tiobench (repetitions=N, tiobench --numruns): "Write size=64M bs=4096 threads=1 run=2".
  constexpr std::string_view kRun = " run=";
  if (const std::size_t run = name.rfind(kRun);
      run != std::string_view::npos && run > 0 && digits_from(run + kRun.size())) {
    return std::string(name.substr(0, run));
  }
  return std::string(name);
}

std::span<const CompareMetricInfo> compare_metrics() noexcept { return kMetrics; }

const CompareMetricInfo& compare_metric_info(CompareMetric metric) noexcept {
  return kMetrics[static_cast<std::size_t>(metric)];
}

CompareMetric parse_compare_metric(std::string_view name) {
  std::vector<std::string_view> names;
  for (const CompareMetricInfo& info : kMetrics) {
    if (info.name == name) return info.metric;
    names.push_back(info.name);
  }
  throw ConfigError(
      fmt::format("unknown metric '{}'; metrics: {}", printable(name), fmt::join(names, ", ")));
}

namespace {

// The documents compared: per input its fio jobs placed as the disk steps that do the same I/O
// (compare_fio.hpp), else the input's own document.
std::vector<const ResultDocument*> compared_documents(
    std::span<const CompareInput> inputs,
    const std::vector<std::optional<ResultDocument>>& aligned) {
  std::vector<const ResultDocument*> documents;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    documents.push_back(aligned[i] ? &*aligned[i] : &inputs[i].document);
  }
  return documents;
}

void list_not_mapped(const std::vector<const ResultDocument*>& documents, Comparison& out) {
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const auto& source = documents[i]->source;
    if (!source) continue;
    for (const std::string& what : source->not_mapped) {
      out.not_mapped.push_back(NotMapped{.input = i, .format = source->format, .what = what});
    }
  }
}

// Every group key, the baseline's first, then those only other inputs have.
std::vector<GroupKey> group_keys(const std::vector<std::vector<Group>>& groups) {
  std::vector<GroupKey> keys;
  std::set<GroupKey> seen;
  for (const auto& list : groups) {
    for (const Group& group : list) {
      if (seen.insert(key_of(group)).second) keys.push_back(key_of(group));
    }
  }
  return keys;
}

// One group key across the inputs: per input its group, the group's first step, whether it has
// one.
struct KeyedGroups {
  std::vector<const Group*> present;
  std::vector<const StepResult*> first;
  std::vector<bool> has;
};

KeyedGroups keyed_groups(const std::vector<std::vector<Group>>& groups, const GroupKey& key) {
  const std::size_t n = groups.size();
  KeyedGroups keyed{.present = std::vector<const Group*>(n, nullptr),
                    .first = std::vector<const StepResult*>(n, nullptr),
                    .has = std::vector<bool>(n, false)};
  for (std::size_t i = 0; i < n; ++i) {
    for (const Group& group : groups[i]) {
      if (key_of(group) != key) continue;
      keyed.present[i] = &group;
      keyed.first[i] = group.repetitions.front().second;
      keyed.has[i] = true;
    }
  }
  return keyed;
}

// Whether `selected` (CompareOptions::phases; empty: every phase) selects `phase`.
bool phase_selected(const std::vector<std::string>& selected, std::string_view phase) {
  return selected.empty() || std::find(selected.begin(), selected.end(), phase) != selected.end();
}

// Whether `group` (the baseline's step) has an ok result of `phase` in any repetition: a failed
// result of that phase elsewhere is then gated as a phase (collect_input_phase).
bool has_ok_phase(const Group& group, std::string_view phase) {
  return std::any_of(group.repetitions.begin(), group.repetitions.end(), [&](const auto& entry) {
    const std::vector<const PhaseResult*> runs = find_phases(*entry.second, phase);
    return std::any_of(runs.begin(), runs.end(),
                       [](const PhaseResult* run) { return run->status == Status::kOk; });
  });
}

// Whether `step`, failed in an input after the baseline, fails the gate as a whole step, the
// baseline's step having ended ok (`baseline`): none of its failed phase results is gated as a
// phase (a phase `selected` selects where the baseline has ok results of it), and either it has
// no failed phase result (it failed in its set-up, in a phase it keeps no result of, or in its
// clean-up) or one of them is selected (the baseline has no ok result of that phase).
bool step_fails_gate(const StepResult& step, const Group& baseline,
                     const std::vector<std::string>& selected) {
  if (step.status != Status::kFailed) return false;
  bool any_failed = false;
  bool any_selected = false;
  for (const PhaseResult& phase : step.phases) {
    if (phase.status != Status::kFailed) continue;
    any_failed = true;
    const std::string name = pooled_phase_name(phase.name);
    if (!phase_selected(selected, name)) continue;
    if (has_ok_phase(baseline, name)) return false;  // the phase gate fires
    any_selected = true;
  }
  return !any_failed || any_selected;
}

// Whether an ok repetition of the baseline's step `group` has a phase `selected` selects (every
// step where `selected` is empty): a step failed elsewhere counts against the gate only then.
bool baseline_step_selected(const Group& group, const std::vector<std::string>& selected) {
  return std::any_of(group.repetitions.begin(), group.repetitions.end(), [&](const auto& entry) {
    const StepResult& step = *entry.second;
    return step.status == Status::kOk &&
           (selected.empty() ||
            std::any_of(step.phases.begin(), step.phases.end(), [&](const PhaseResult& phase) {
              return phase_selected(selected, pooled_phase_name(phase.name));
            }));
  });
}

// A step missing in some input, and the repetitions of the step that did not end ok; a step
// that failed in an input after the baseline, where a repetition of the baseline's step ended ok
// with a phase `selected` selects (any, where `selected` is empty), and that no phase gate
// covers (step_fails_gate), is marked `baseline_ok` (failed_phases).
void list_unmatched_and_left_out_steps(const GroupKey& key, const KeyedGroups& keyed,
                                       const std::vector<std::string>& selected, Comparison& out) {
  const std::size_t n = keyed.has.size();
  const auto& [step_name, workload, point] = key;
  if (std::count(keyed.has.begin(), keyed.has.end(), true) < static_cast<long>(n)) {
    out.unmatched.push_back(UnmatchedPart{.step = step_name,
                                          .workload = workload,
                                          .sweep_point = point,
                                          .phase = {},
                                          .present = indices_where(keyed.has, true),
                                          .missing = indices_where(keyed.has, false)});
  }
  const Group* baseline = keyed.present[0];
  const bool baseline_ran = baseline != nullptr && baseline_step_selected(*baseline, selected);
  for (std::size_t i = 0; i < n; ++i) {
    if (keyed.present[i] == nullptr) continue;
    for (const auto& [repetition, step] : keyed.present[i]->repetitions) {
      if (step->status == Status::kOk) continue;
      out.left_out.push_back(LeftOutResult{
          .input = i,
          .step = step_name,
          .sweep_point = point,
          .repetition = repetition,
          .phase = {},
          .status = step->status,
          .message = step->message,
          .baseline_ok = i > 0 && baseline_ran && step_fails_gate(*step, *baseline, selected)});
    }
  }
}

// Per input the ok results of one phase and the step of each; whether the input measured it.
struct PhaseSample {
  std::vector<std::vector<const PhaseResult*>> results;
  std::vector<std::vector<const PhaseResult*>> failed;       // the failed results (Status::kFailed)
  std::vector<std::vector<const StepResult*>> result_steps;  // the step of each result
  std::vector<bool> measured;
};

// The ok results of `phase_name` in input `i`'s group; the others are listed as left out, a
// failed one marked where the baseline's phase ended ok (`baseline_ok`: i > 0 and the baseline
// has ok results of it).
void collect_input_phase(const Group& group, std::size_t i, const GroupKey& key,
                         const std::string& phase_name, bool baseline_ok, PhaseSample& sample,
                         Comparison& out) {
  const auto& [step_name, workload, point] = key;
  std::vector<std::size_t> without;  // ok repetitions of the step that lack the phase
  bool in_any = false;
  for (const auto& [repetition, step] : group.repetitions) {
    const std::vector<const PhaseResult*> runs = find_phases(*step, phase_name);
    if (runs.empty()) {
      if (step->status == Status::kOk) without.push_back(repetition);
      continue;
    }
    in_any = true;
    for (const PhaseResult* phase : runs) {
      if (phase->status != Status::kOk) {
        const bool failed = phase->status == Status::kFailed;
        out.left_out.push_back(LeftOutResult{.input = i,
                                             .step = step_name,
                                             .sweep_point = point,
                                             .repetition = repetition,
                                             .phase = phase->name,
                                             .status = phase->status,
                                             .message = phase->message,
                                             .baseline_ok = failed && baseline_ok});
        if (failed) sample.failed[i].push_back(phase);
        continue;
      }
      sample.results[i].push_back(phase);
      sample.result_steps[i].push_back(step);
    }
  }
  // Some repetitions have the phase and some do not (a partial result file): the
  // statistics use those that have it, and the others are listed.
  for (const std::size_t repetition : without) {
    if (!in_any) break;
    out.left_out.push_back(LeftOutResult{
        .input = i,
        .step = step_name,
        .sweep_point = point,
        .repetition = repetition,
        .phase = phase_name,
        .status = Status::kSkipped,
        .message = "this repetition has no such phase; the others that have it are used"});
  }
  sample.measured[i] = !sample.results[i].empty();
}

PhaseSample collect_phase(const GroupKey& key, const KeyedGroups& keyed,
                          const std::string& phase_name, Comparison& out) {
  const std::size_t n = keyed.has.size();
  PhaseSample sample{.results = std::vector<std::vector<const PhaseResult*>>(n),
                     .failed = std::vector<std::vector<const PhaseResult*>>(n),
                     .result_steps = std::vector<std::vector<const StepResult*>>(n),
                     .measured = std::vector<bool>(n, false)};
  for (std::size_t i = 0; i < n; ++i) {
    if (keyed.present[i] == nullptr) continue;
    // The baseline (i = 0) is collected first.
    collect_input_phase(*keyed.present[i], i, key, phase_name, i > 0 && sample.measured[0], sample,
                        out);
  }
  return sample;
}

// A phase missing where its step is present (a whole missing step is listed already).
void list_lacking_phase(const GroupKey& key, const std::string& phase_name,
                        const KeyedGroups& keyed, const std::vector<bool>& measured,
                        Comparison& out) {
  const std::size_t n = keyed.has.size();
  const auto& [step_name, workload, point] = key;
  std::vector<bool> lacking(n, false);
  bool any_lacking = false;
  for (std::size_t i = 0; i < n; ++i) {
    lacking[i] = keyed.has[i] && !measured[i];
    any_lacking = any_lacking || lacking[i];
  }
  if (any_lacking) {
    std::vector<bool> with(n);
    for (std::size_t i = 0; i < n; ++i) with[i] = measured[i];
    out.unmatched.push_back(UnmatchedPart{.step = step_name,
                                          .workload = workload,
                                          .sweep_point = point,
                                          .phase = phase_name,
                                          .present = indices_where(with, true),
                                          .missing = indices_where(lacking, true)});
  }
}

// dbench's own output gives its headline throughput: iobench's is then that figure too. Whether
// the headline is used; the phase's note says which throughput it is.
bool note_dbench_throughput(const std::vector<const ResultDocument*>& documents,
                            const std::vector<bool>& measured, PhaseComparison& phase_out) {
  bool dbench_headline = false;
  if (phase_out.workload == "dbench" && phase_out.phase == "execute") {
    for (std::size_t i = 0; i < documents.size(); ++i) {
      dbench_headline = dbench_headline || (measured[i] && documents[i]->source &&
                                            documents[i]->source->format == "dbench");
    }
    phase_out.notes.emplace_back(
        dbench_headline
            ? "throughput: dbench's headline figure in every input (the final Throughput "
              "line: ReadX and WriteX bytes to the last whole-second execute tick over those "
              "seconds; for iobench's dbench the same figure its report prints)"
            : "throughput: the whole execute period (ReadX and WriteX bytes over its wall "
              "time), not dbench's headline figure (bytes to the last whole-second tick)");
  }
  return dbench_headline;
}

// The row of `metric` in one phase; nothing when there is no figure to compare.
std::optional<MetricRow> metric_row(CompareMetric metric, const PhaseSample& sample,
                                    bool dbench_headline, const PhaseComparison& phase_out,
                                    Comparison& out) {
  const std::size_t n = sample.results.size();
  MetricRow row{.metric = metric, .inputs = std::vector<MetricValues>(n), .changes = {}};
  bool nonzero = false;
  bool any_value = false;  // or a "+++++" to show
  for (std::size_t i = 0; i < n; ++i) {
    std::optional<Unavailable> why_none;
    for (std::size_t r = 0; r < sample.results[i].size(); ++r) {
      const PhaseResult* phase = sample.results[i][r];
      Unavailable why = Unavailable::kNotReported;
      const std::optional<double> value =
          dbench_headline && metric == CompareMetric::kThroughput && !phase->reported
              ? detail::dbench_headline_bytes_per_s(*sample.result_steps[i][r], *phase)
              : phase_metric_value(*phase, metric, &why);
      if (!value) {
        if (!why_none || why == Unavailable::kTooFast) why_none = why;
        continue;
      }
      nonzero = nonzero || *value != 0;
      row.inputs[i].values.push_back(*value);
    }
    row.inputs[i].stats = summarize_sample(row.inputs[i].values);
    any_value = any_value || !row.inputs[i].values.empty() || why_none == Unavailable::kTooFast;
    if (row.inputs[i].values.empty() && why_none) {
      row.inputs[i].unavailable = why_none;
      note_unavailable(out.not_available, i, metric, *why_none,
                       fmt::format("{}{}: {}", phase_out.step, point_suffix(phase_out.sweep_point),
                                   phase_out.phase));
    }
  }
  // A phase that moves no bytes (metadata ops) has no throughput to compare; a figure no
  // input has gets no row (it is listed as not available).
  if ((metric == CompareMetric::kThroughput && !nonzero && !too_fast_row(row)) || !any_value) {
    return std::nullopt;
  }
  const Better better = compare_metric_info(metric).better;
  for (std::size_t i = 1; i < n; ++i) {
    if (!sample.measured[i] || row.inputs[i].values.empty() || row.inputs[0].values.empty()) {
      row.changes.emplace_back();
      continue;
    }
    row.changes.emplace_back(change_of(row.inputs[0], row.inputs[i], better));
  }
  return row;
}

// The phases of one group key compared across the inputs.
void compare_key(const GroupKey& key, const KeyedGroups& keyed,
                 const std::vector<const ResultDocument*>& documents, const CompareOptions& options,
                 Comparison& out) {
  const auto& [step_name, workload, point] = key;
  for (const std::string& phase_name : phase_names(keyed.present)) {
    if (!phase_selected(options.phases, phase_name)) continue;
    const PhaseSample sample = collect_phase(key, keyed, phase_name, out);
    const auto measured_count = std::count(sample.measured.begin(), sample.measured.end(), true);
    list_lacking_phase(key, phase_name, keyed, sample.measured, out);
    if (!sample.measured[0] || measured_count < 2) continue;

    PhaseComparison phase_out{.step = step_name,
                              .workload = workload,
                              .sweep_point = point,
                              .phase = phase_name,
                              .metrics = {},
                              .notes = {},
                              .explain = detail::explain_comparison(sample.results),
                              .counters = {}};
    const bool dbench_headline = note_dbench_throughput(documents, sample.measured, phase_out);
    for (const CompareMetric metric : out.metrics) {
      std::optional<MetricRow> row = metric_row(metric, sample, dbench_headline, phase_out, out);
      if (row) phase_out.metrics.push_back(std::move(*row));
    }
    phase_out.counters = detail::counter_rows(sample.results, sample.failed, sample.measured);
    out.phases.push_back(std::move(phase_out));
  }
}

}  // namespace

Comparison compare_results(std::span<const CompareInput> inputs, const CompareOptions& options) {
  if (inputs.size() < 2) {
    throw ConfigError(
        fmt::format("compare needs two or more result documents, got {}", inputs.size()));
  }
  check_selected_phases(inputs, options.phases);
  Comparison out;
  for (const CompareInput& input : inputs) out.labels.push_back(input.label);
  out.metrics = options.metrics;
  if (out.metrics.empty()) {
    for (const CompareMetricInfo& info : kMetrics) out.metrics.push_back(info.metric);
  }
  detail::environment_differences(inputs, out.environment);
  // fio's jobs placed as the disk steps that do the same I/O (compare_fio.hpp).
  const std::vector<std::optional<ResultDocument>> aligned = detail::fio_aligned_with_disk(inputs);
  const std::vector<const ResultDocument*> documents = compared_documents(inputs, aligned);
  list_not_mapped(documents, out);

  const std::size_t n = inputs.size();
  std::vector<std::vector<Group>> groups;
  for (const ResultDocument* document : documents) groups.push_back(groups_of(*document));
  for (const GroupKey& key : group_keys(groups)) {
    const KeyedGroups keyed = keyed_groups(groups, key);
    list_unmatched_and_left_out_steps(key, keyed, options.phases, out);
    if (!keyed.has[0] || std::count(keyed.has.begin(), keyed.has.end(), true) < 2) continue;
    std::vector<bool> own(n);
    for (std::size_t i = 0; i < n; ++i) own[i] = !inputs[i].document.source.has_value();
    const auto& [step_name, workload, point] = key;
    detail::step_differences(step_name, point, keyed.first, own, out.environment);
    compare_key(key, keyed, documents, options, out);
  }
  return out;
}

std::vector<std::size_t> failed_phases(const Comparison& comparison) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < comparison.left_out.size(); ++i) {
    if (comparison.left_out[i].baseline_ok) out.push_back(i);
  }
  return out;
}

std::vector<Regression> regressions(const Comparison& comparison, double threshold_percent) {
  std::vector<Regression> out;
  for (std::size_t p = 0; p < comparison.phases.size(); ++p) {
    const PhaseComparison& phase = comparison.phases[p];
    for (std::size_t m = 0; m < phase.metrics.size(); ++m) {
      const MetricRow& row = phase.metrics[m];
      for (std::size_t c = 0; c < row.changes.size(); ++c) {
        const auto& change = row.changes[c];
        if (!change || !change->worse_percent || change->noise == Noise::kWithinNoise) continue;
        if (*change->worse_percent <= threshold_percent) continue;
        out.push_back(Regression{
            .phase = p, .metric = m, .input = c + 1, .worse_percent = *change->worse_percent});
      }
    }
  }
  return out;
}

}  // namespace iobench
