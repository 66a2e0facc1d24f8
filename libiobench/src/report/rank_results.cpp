// Results over ranks: a rank's share as text for rank 0, their aggregate (one StepResult every
// reporter prints as one big run), the spread over ranks, and how rank 0 shows it (text, JSON).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "report/json_shape.hpp"
#include "report/rank_explain.hpp"
#include "report/rank_series.hpp"

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kStoppedByPeer = "stopped because of another rank";

double per_second(std::uint64_t count, std::uint64_t ns) {
  return ns == 0 ? 0.0 : static_cast<double>(count) * 1e9 / static_cast<double>(ns);
}

RankSpread spread_of(std::span<const double> values) {
  RankSpread s;
  if (values.empty()) return s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (const double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (const double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(squares / static_cast<double>(values.size()));
  s.jain = jain_fairness(values);
  return s;
}

// `candidate` replaces the message in `status`/`message` when it is worse, or as bad but a
// rank's own problem where the current one only echoes another rank's.
void take_worst(Status& status, std::string& message, Status candidate, const std::string& text,
                int rank) {
  const bool echo = message.find(kStoppedByPeer) != std::string::npos;
  const bool own = text.find(kStoppedByPeer) == std::string::npos;
  if (worse(status, candidate) != status ||
      (candidate == status && candidate != Status::kOk && echo && own)) {
    status = worse(status, candidate);
    message = fmt::format("rank {}: {}", rank, text);
  }
}

// A per-target attribute ("file.2": KEY.TARGET_INDEX, as workloads name them) of a rank whose
// targets start at `offset` in the aggregate: the same key with the index moved; nullopt for
// any other key.
std::optional<std::string> moved_target_key(const std::string& key, std::size_t offset) {
  const std::size_t dot = key.rfind('.');
  if (dot == std::string::npos || dot + 1 == key.size()) return std::nullopt;
  std::size_t index = 0;
  for (std::size_t i = dot + 1; i < key.size(); ++i) {
    if (key[i] < '0' || key[i] > '9' || i - dot > 9) return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(key[i] - '0');
  }
  return fmt::format("{}.{}", key.substr(0, dot), index + offset);
}

CpuTimes add(const CpuTimes& a, const CpuTimes& b) {
  return {a.user_ns + b.user_ns, a.system_ns + b.system_ns};
}

// The rank whose device figures stand for its host's in the merged series (as in the merged
// explanation, rank_explain.hpp: each rank's diskstats deltas hold the whole host's I/O): the
// one with the most points, whose series spans the phase longest; names "HOST:NAME" where the
// ranks ran on several hosts.
void choose_device_ranks(std::vector<detail::RankSeries>& series,
                         const std::vector<std::string>& hosts) {
  std::vector<std::string> distinct = hosts;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (const std::string& host : distinct) {
    detail::RankSeries* chosen = nullptr;
    for (std::size_t i = 0; i < series.size(); ++i) {
      if (hosts[i] != host) continue;
      if (chosen == nullptr || series[i].series->points.size() > chosen->series->points.size())
        chosen = &series[i];
    }
    chosen->devices = true;
    if (distinct.size() > 1) chosen->device_prefix = host + ":";
  }
}

// Phase `p`'s time series over the ranks that ran it: each placed by its phase's start on rank
// 0's clock (its runner's measurement start less the measurement's offset in its series; not the
// window of a phase timed by its ops, whose start is its first op's, later by the workers' wake-up
// and differently on each rank).
TimeSeries merge_series(const std::vector<RankStep>& ranks, std::size_t p) {
  std::vector<detail::RankSeries> series;
  std::vector<std::int64_t> origins;
  std::vector<std::string> hosts;  // of each entry of `series`
  std::size_t worker_offset = 0;
  for (const RankStep& rank : ranks) {
    if (p >= rank.step.phases.size()) continue;
    const PhaseResult& phase = rank.step.phases[p];
    const std::size_t first_worker = worker_offset;
    worker_offset += phase.workers.size();
    // A rank that never measured (stopped in its warm-up) has no place on the common clock.
    if (p >= rank.windows.size() || rank.windows[p].start_ns == 0) continue;
    const RankWindow& window = rank.windows[p];
    std::int64_t origin = window.measure_start_ns != 0 ? window.measure_start_ns : window.start_ns;
    for (const SeriesPoint& point : phase.time_series.points) {
      if (point.warmup) continue;
      origin -= static_cast<std::int64_t>(point.start_ns);
      break;
    }
    series.push_back({.series = &phase.time_series, .worker_offset = first_worker});
    origins.push_back(origin);
    hosts.push_back(rank.environment.hostname);
  }
  if (series.empty()) return {};
  choose_device_ranks(series, hosts);
  const std::int64_t earliest = *std::min_element(origins.begin(), origins.end());
  for (std::size_t i = 0; i < series.size(); ++i) {
    series[i].shift_ns = static_cast<std::uint64_t>(origins[i] - earliest);
  }
  return detail::merge_rank_series(series);
}

PhaseResult merge_phase(const std::vector<RankStep>& ranks, std::size_t p,
                        const std::vector<std::size_t>& target_offset, RankedPhase& ranked) {
  PhaseResult out;
  const PhaseResult* first = nullptr;
  for (const RankStep& r : ranks) {
    if (p < r.step.phases.size()) {
      first = &r.step.phases[p];
      break;
    }
  }
  out.name = first->name;
  out.op_names = first->op_names;
  out.counter_names = first->counter_names;
  out.mode = first->mode;
  out.latency_parts_kind = first->latency_parts_kind;
  out.ops.resize(out.op_names.size());
  out.counters.assign(out.counter_names.size(), 0);
  if (out.latency_parts_kind.any()) out.latency_parts.resize(out.op_names.size());
  ranked.name = out.name;

  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  std::int64_t latest_start = std::numeric_limits<std::int64_t>::min();
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  std::int64_t first_end = std::numeric_limits<std::int64_t>::max();
  double busy = 0;
  std::size_t phases = 0;
  std::size_t worker_offset = 0;
  std::vector<double> rates, iops, cpu;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankStep& rank = ranks[r];
    if (p >= rank.step.phases.size()) continue;
    const PhaseResult& phase = rank.step.phases[p];
    ++phases;
    if (p < rank.windows.size() && rank.windows[p].start_ns != 0) {
      const RankWindow& w = rank.windows[p];
      earliest = std::min(earliest, w.start_ns);
      latest_start = std::max(latest_start, w.start_ns);
      latest = std::max(latest, w.end_ns);
      first_end = std::min(first_end, w.first_end_ns);
    }
    for (std::size_t k = 0; k < out.ops.size() && k < phase.ops.size(); ++k) {
      out.ops[k].merge(phase.ops[k]);
    }
    for (std::size_t k = 0; k < out.counters.size() && k < phase.counters.size(); ++k) {
      out.counters[k] += phase.counters[k];
    }
    for (std::size_t k = 0; k < out.latency_parts.size() && k < phase.latency_parts.size(); ++k) {
      out.latency_parts[k].merge(phase.latency_parts[k]);
    }
    out.pacing.merge(phase.pacing);
    out.process_cpu = add(out.process_cpu, phase.process_cpu);
    out.workers_cpu = add(out.workers_cpu, phase.workers_cpu);
    busy += phase.system_busy_percent;
    for (WorkerResult worker : phase.workers) {
      worker.index += worker_offset;
      worker.target_index += target_offset[r];
      out.workers.push_back(std::move(worker));
    }
    worker_offset += phase.workers.size();
    take_worst(out.status, out.message, phase.status, phase.message, static_cast<int>(r));
    rates.push_back(phase.throughput_bytes_per_s());
    iops.push_back(per_second(phase.total_ops(), phase.wall_ns));
    cpu.push_back(static_cast<double>(phase.process_cpu.user_ns + phase.process_cpu.system_ns));
  }
  if (latest >= earliest && earliest != std::numeric_limits<std::int64_t>::max()) {
    out.wall_ns = static_cast<std::uint64_t>(latest - earliest);
    out.stonewall_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(first_end - earliest, 0));
    ranked.start_skew_ns = static_cast<std::uint64_t>(latest_start - earliest);
    ranked.stonewall_ns = out.stonewall_ns;
  }
  out.time_series = merge_series(ranks, p);
  out.explanation = detail::merge_rank_explanations(ranks, p, target_offset);
  out.system_busy_percent = phases == 0 ? 0.0 : busy / static_cast<double>(phases);
  ranked.wall_ns = out.wall_ns;
  ranked.throughput_bytes_per_s = spread_of(rates);
  ranked.iops = spread_of(iops);
  ranked.cpu_ns = spread_of(cpu);
  return out;
}

Json spread_json(const RankSpread& s) {
  return {{"min", s.min},
          {"max", s.max},
          {"mean", s.mean},
          {"stddev", s.stddev},
          {"jain_fairness", s.jain}};
}

// The time series' point histograms (SeriesHistogram), which result documents leave out: per
// phase, per point, [sum as decimal text, [[bucket, count], ...]].
Json series_histograms_json(const StepResult& step) {
  Json phases = Json::array();
  for (const PhaseResult& phase : step.phases) {
    Json points = Json::array();
    for (const SeriesPoint& point : phase.time_series.points) {
      Json buckets = Json::array();
      for (const auto& [index, count] : point.histogram.buckets) buckets.push_back({index, count});
      points.push_back({detail::json::decimal_text(point.histogram.sum_ns), std::move(buckets)});
    }
    phases.push_back(std::move(points));
  }
  return phases;
}

void read_series_histograms(const Json& phases, StepResult& step) {
  try {
    for (std::size_t p = 0; p < phases.size() && p < step.phases.size(); ++p) {
      std::vector<SeriesPoint>& points = step.phases[p].time_series.points;
      const Json& histograms = phases.at(p);
      if (histograms.size() != points.size()) {
        throw ResultFormatError("/series_histograms", "not one histogram per point");
      }
      for (std::size_t i = 0; i < points.size(); ++i) {
        const Json& h = histograms.at(i);
        const auto sum = detail::json::parse_decimal(h.at(0).get<std::string>());
        if (!sum) throw ResultFormatError("/series_histograms", "a sum that is not a number");
        points[i].histogram.sum_ns = *sum;
        for (const Json& bucket : h.at(1)) {
          points[i].histogram.buckets.emplace_back(bucket.at(0).get<std::uint16_t>(),
                                                   bucket.at(1).get<std::uint64_t>());
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw ResultFormatError("/series_histograms", e.what());
  }
}

Json document_json(const RankStep& rank) {
  RunResult run;
  run.environment = rank.environment;
  run.steps.push_back(rank.step);
  run.status = rank.step.status;
  return Json::parse(to_json(run, -1));
}

}  // namespace

RankedStep aggregate_ranks(std::vector<RankStep> ranks) {
  RankedStep out;
  StepResult& agg = out.aggregate;
  agg = ranks.front().step;
  agg.targets.clear();
  agg.phases.clear();
  agg.attributes.clear();
  agg.warnings.clear();
  agg.status = Status::kOk;
  agg.message.clear();
  std::vector<std::size_t> target_offset;
  std::size_t phase_count = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const StepResult& step = ranks[r].step;
    target_offset.push_back(agg.targets.size());
    agg.targets.insert(agg.targets.end(), step.targets.begin(), step.targets.end());
    for (const auto& [key, value] : step.attributes) {
      if (auto moved = moved_target_key(key, target_offset.back())) {
        agg.attributes.emplace_back(*moved, value);
      } else if (r == 0) {
        agg.attributes.emplace_back(key, value);
      }
    }
    for (const std::string& warning : step.warnings) {
      agg.warnings.push_back(fmt::format("rank {}: {}", r, warning));
    }
    take_worst(agg.status, agg.message, step.status, step.message, static_cast<int>(r));
    phase_count = std::max(phase_count, step.phases.size());
    out.clock_residual_ns = std::max(out.clock_residual_ns, ranks[r].clock_residual_ns);
  }
  for (std::size_t p = 0; p < phase_count; ++p) {
    RankedPhase& ranked = out.phases.emplace_back();
    agg.phases.push_back(merge_phase(ranks, p, target_offset, ranked));
  }
  out.ranks = std::move(ranks);
  return out;
}

std::string to_rank_text(const RankStep& rank) {
  Json windows = Json::array();
  for (const RankWindow& w : rank.windows)
    windows.push_back({w.start_ns, w.end_ns, w.first_end_ns, w.measure_start_ns});
  Json j;
  j["rank"] = rank.rank;
  j["clock_residual_ns"] = rank.clock_residual_ns;
  j["windows"] = std::move(windows);
  j["result"] = document_json(rank);
  j["series_histograms"] = series_histograms_json(rank.step);
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

RankStep from_rank_text(std::string_view text) {
  const Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("result") || !j.contains("windows")) {
    throw ResultFormatError("", "not a rank's result");
  }
  RankStep rank;
  try {
    rank.rank = j.at("rank").get<int>();
    rank.clock_residual_ns = j.at("clock_residual_ns").get<std::uint64_t>();
    for (const Json& w : j.at("windows")) {
      const auto start = w.at(0).get<std::int64_t>();
      rank.windows.push_back(
          {.start_ns = start,
           .end_ns = w.at(1).get<std::int64_t>(),
           .first_end_ns = w.at(2).get<std::int64_t>(),
           .measure_start_ns = w.size() > 3 ? w.at(3).get<std::int64_t>() : start});
    }
  } catch (const nlohmann::json::exception& e) {
    throw ResultFormatError("", fmt::format("not a rank's result: {}", e.what()));
  }
  ResultDocument document = parse_result_json(j.at("result").dump());
  if (document.run.steps.size() != 1) throw ResultFormatError("/result/steps", "not one step");
  rank.environment = std::move(document.run.environment);
  rank.step = std::move(document.run.steps.front());
  if (const auto it = j.find("series_histograms"); it != j.end()) {
    read_series_histograms(*it, rank.step);
  }
  return rank;
}

void write_rank_table(const RankedStep& step, std::ostream& out) {
  std::string hosts;
  for (const RankStep& r : step.ranks) {
    hosts +=
        fmt::format("{}{}={}", hosts.empty() ? "" : " ", r.rank, printable(r.environment.hostname));
  }
  out << fmt::format(
      "Ranks: {} (rank=host: {}); clock offsets from a ping-pong with rank 0, residual {:.1f} "
      "us\n",
      step.ranks.size(), hosts, ns_to_us(static_cast<double>(step.clock_residual_ns)));
  for (std::size_t p = 0; p < step.phases.size(); ++p) {
    const RankedPhase& phase = step.phases[p];
    out << fmt::format(
        "  phase '{}': wall {} from the first rank's start to the last one's end, starts {} "
        "apart, stonewall {} (the first worker done)\n",
        printable(phase.name), format_duration(phase.wall_ns), format_duration(phase.start_skew_ns),
        format_duration(phase.stonewall_ns));
    out << fmt::format("    {:>5} {:<20} {:>12} {:>12} {:>10}\n", "rank", "host", "MiB/s", "IOPS",
                       "CPU s");
    for (const RankStep& r : step.ranks) {
      if (p >= r.step.phases.size()) continue;
      const PhaseResult& ph = r.step.phases[p];
      out << fmt::format(
          "    {:>5} {:<20} {:>12.2f} {:>12.1f} {:>10.3f}\n", r.rank,
          printable(r.environment.hostname, 20), to_mib_per_s(ph.throughput_bytes_per_s()),
          per_second(ph.total_ops(), ph.wall_ns),
          static_cast<double>(ph.process_cpu.user_ns + ph.process_cpu.system_ns) / 1e9);
    }
    const RankSpread& t = phase.throughput_bytes_per_s;
    const RankSpread& i = phase.iops;
    out << fmt::format(
        "    MiB/s min {:.2f} max {:.2f} mean {:.2f} stddev {:.2f}; IOPS min {:.1f} max {:.1f} "
        "mean {:.1f} stddev {:.1f}; Jain's fairness {:.4f} (MiB/s)\n",
        to_mib_per_s(t.min), to_mib_per_s(t.max), to_mib_per_s(t.mean), to_mib_per_s(t.stddev),
        i.min, i.max, i.mean, i.stddev, t.jain);
  }
}

std::string add_ranks_to_json(std::string_view document, std::span<const RankedStep> steps,
                              int indent) {
  Json j = Json::parse(document);
  Json ranks;
  Json hosts = Json::array();
  if (!steps.empty()) {
    for (const RankStep& r : steps.front().ranks) hosts.push_back(r.environment.hostname);
  }
  std::uint64_t residual = 0;
  for (const RankedStep& s : steps) residual = std::max(residual, s.clock_residual_ns);
  ranks["size"] = hosts.size();
  ranks["hosts"] = std::move(hosts);
  ranks["clock_residual_ns"] = residual;
  Json out_steps = Json::array();
  for (const RankedStep& s : steps) {
    Json phases = Json::array();
    for (std::size_t p = 0; p < s.phases.size(); ++p) {
      const RankedPhase& phase = s.phases[p];
      Json per_rank = Json::array();
      for (const RankStep& r : s.ranks) {
        if (p >= r.step.phases.size()) continue;
        const PhaseResult& ph = r.step.phases[p];
        const std::int64_t start = p < r.windows.size() ? r.windows[p].start_ns : 0;
        per_rank.push_back({{"rank", r.rank},
                            {"host", r.environment.hostname},
                            {"status", to_string(ph.status)},
                            {"bytes", ph.total_bytes()},
                            {"ops", ph.total_ops()},
                            {"wall_ns", ph.wall_ns},
                            {"start_ns", start},
                            {"throughput_bytes_per_s", ph.throughput_bytes_per_s()},
                            {"ops_per_s", per_second(ph.total_ops(), ph.wall_ns)},
                            {"cpu_user_ns", ph.process_cpu.user_ns},
                            {"cpu_system_ns", ph.process_cpu.system_ns}});
        if (ph.explanation) {
          Json findings = Json::array();
          for (const explain::Finding& f : ph.explanation->findings) findings.push_back(f.name);
          per_rank.back()["findings"] = std::move(findings);
        }
      }
      phases.push_back({{"name", phase.name},
                        {"wall_ns", phase.wall_ns},
                        {"start_skew_ns", phase.start_skew_ns},
                        {"stonewall_ns", phase.stonewall_ns},
                        {"throughput_bytes_per_s", spread_json(phase.throughput_bytes_per_s)},
                        {"ops_per_s", spread_json(phase.iops)},
                        {"cpu_ns", spread_json(phase.cpu_ns)},
                        {"per_rank", std::move(per_rank)}});
    }
    Json results = Json::array();
    for (const RankStep& r : s.ranks) results.push_back(document_json(r));
    out_steps.push_back({{"name", s.aggregate.name},
                         {"clock_residual_ns", s.clock_residual_ns},
                         {"phases", std::move(phases)},
                         {"results", std::move(results)}});
  }
  ranks["steps"] = std::move(out_steps);
  j["ranks"] = std::move(ranks);
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace iobench
