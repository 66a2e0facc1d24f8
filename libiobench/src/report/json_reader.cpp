// The JSON result reader: a result document's text back into a ResultDocument, the inverse of
// json_reporter.cpp. Pure (text in, data out); every error names the JSON pointer of the field.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/result_json.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explain_bpf/report.hpp"
#include "report/explain_json.hpp"
#include "report/json_fields.hpp"
#include "report/json_shape.hpp"
#include "report/latency_rebuild.hpp"

namespace iobench {

ResultFormatError::ResultFormatError(std::string pointer, const std::string& message)
    : ConfigError(fmt::format("{}: {}", pointer.empty() ? "/" : pointer, message)),
      pointer_(std::move(pointer)) {}

namespace {

using namespace detail::json_read;
using detail::json_pointer_child;
using Uint128 = LatencyHistogram::Uint128;

// Deeper nesting than any result document has is refused before parsing (bounded work).
constexpr std::size_t kMaxDepth = 64;

// --- results ----------------------------------------------------------------------------------

CompactLatencyHistogram histogram(const Field& latency, std::uint64_t ops, bool buckets_expected);

OpResult op_result(const Field& f, bool buckets_expected) {
  OpResult op;
  op.ops = u64(f, "ops");
  op.bytes = u64(f, "bytes");
  op.errors = u64(f, "errors");
  op.ops_over_2s = u64(f, "ops_over_2s");
  op.ops_over_10s = u64(f, "ops_over_10s");
  if (op.ops_over_10s > op.ops_over_2s || op.ops_over_2s > op.ops) {
    fail(json_pointer_child(f.pointer, "ops_over_2s"),
         "ops over 10 s <= ops over 2 s <= ops must hold; the counts contradict each other");
  }
  op.latency = histogram(member(f, "latency_ns"), op.ops, buckets_expected);
  return op;
}

// One latency object ({[samples,] min, max, mean, ..., sum, sum_squares, buckets}) of an op
// kind of `ops` ops: of `samples` latencies where given (latency sampling), else of `ops`.
CompactLatencyHistogram histogram(const Field& latency, std::uint64_t ops, bool buckets_expected) {
  detail::LatencySummary summary;
  summary.count = ops;
  if (const auto samples = optional_member(latency, "samples")) {
    summary.count = u64(*samples);
    if (summary.count > ops) {
      fail(samples->pointer, fmt::format("{} latency samples of {} ops: an op has one latency at "
                                         "most",
                                         summary.count, ops));
    }
  }
  summary.pointer = latency.pointer;
  summary.min = u64(latency, "min");
  summary.max = u64(latency, "max");
  summary.mean = number(latency, "mean");
  summary.stddev = number(latency, "stddev");
  for (std::size_t i = 0; i < detail::kSavedPercentiles.size(); ++i) {
    summary.percentiles[i] = u64(latency, detail::kSavedPercentiles[i].key);
  }
  if (const auto sum = optional_member(latency, "sum")) summary.sum = decimal(*sum);
  if (const auto squares = optional_member(latency, "sum_squares")) {
    summary.sum_squares = decimal(*squares);
  }
  if (const auto buckets = optional_member(latency, "buckets")) {
    std::vector<LatencyHistogram::BucketCount> counts;
    each_member(*buckets, [&](const std::string& key, const Field& count) {
      const auto lower = detail::json::parse_decimal(key);
      const std::size_t index =
          lower && *lower <= std::numeric_limits<std::uint64_t>::max()
              ? LatencyHistogram::bucket_index(static_cast<std::uint64_t>(*lower))
              : 0;
      if (!lower || LatencyHistogram::bucket_lower(index) != *lower) {
        fail(count.pointer, fmt::format("\"{}\" is not the lowest value (ns) of a histogram "
                                        "bucket",
                                        key));
      }
      counts.push_back({index, u64(count)});
    });
    // In value order whatever order a tool (jq -S, Python's sort_keys) left the keys in.
    std::sort(counts.begin(), counts.end(),
              [](const auto& a, const auto& b) { return a.index < b.index; });
    summary.buckets = std::move(counts);
  } else if (buckets_expected && summary.sum) {
    // A schema-2 phase always has its buckets next to its sums.
    fail(latency.pointer, "the key \"buckets\" is missing");
  }
  return detail::rebuild_histogram(summary);
}

// The latency parts of an op kind where its phase recorded them (slat/clat, service time);
// every part holds one sample per op (per sampled op with latency sampling).
void latency_parts(const Field& f, const OpResult& op, OpLatencyPartsResult& parts,
                   LatencyPartsKind& kind, bool buckets_expected) {
  const auto slat = optional_member(f, "slat_ns");
  const auto clat = optional_member(f, "clat_ns");
  if (slat.has_value() != clat.has_value()) {
    fail(f.pointer, "slat_ns and clat_ns come together (asynchronous engines) or not at all");
  }
  if (slat) {
    kind.submission_completion = true;
    parts.submission = histogram(*slat, op.ops, buckets_expected);
    parts.completion = histogram(*clat, op.ops, buckets_expected);
  }
  if (const auto service = optional_member(f, "service_ns")) {
    kind.service = true;
    parts.service = histogram(*service, op.ops, buckets_expected);
  }
}

// {op: OPS} into names and stats; `names` is the phase's (a worker's keys must follow them).
std::vector<OpResult> ops_by_kind(const Field& f, std::vector<std::string>& names, bool is_phase,
                                  std::vector<OpLatencyPartsResult>& parts,
                                  LatencyPartsKind& kind) {
  std::vector<OpResult> ops;
  std::size_t i = 0;
  each_member(f, [&](const std::string& key, const Field& value) {
    if (i < names.size()) {
      if (names[i] != key) {
        fail(value.pointer,
             fmt::format("op kind \"{}\" where the phase has \"{}\" in this place", key, names[i]));
      }
    } else {
      names.push_back(key);
    }
    ops.push_back(op_result(value, is_phase));
    LatencyPartsKind found;
    OpLatencyPartsResult op_parts;
    latency_parts(value, ops.back(), op_parts, found, is_phase);
    if (i == 0) {
      kind = found;
    } else if (found.submission_completion != kind.submission_completion ||
               found.service != kind.service) {
      fail(value.pointer, "every op kind of a phase has the same latency parts");
    }
    if (kind.any()) parts.push_back(op_parts);
    ++i;
  });
  return ops;
}

std::vector<std::uint64_t> counters(const Field& f, std::vector<std::string>& names,
                                    bool define_names) {
  std::vector<std::uint64_t> values;
  each_member(f, [&](const std::string& key, const Field& value) {
    if (define_names) {
      names.push_back(key);
    } else if (values.size() >= names.size() || names[values.size()] != key) {
      fail(value.pointer, "a worker's counters must be the phase's, in the same order");
    }
    values.push_back(u64(value));
  });
  if (values.size() != names.size()) {
    fail(f.pointer, "a worker's counters must be the phase's, in the same order");
  }
  return values;
}

void check_total(const Field& object, std::string_view key, std::uint64_t expected) {
  const Field f = member(object, key);
  if (u64(f) != expected) {
    fail(f.pointer,
         fmt::format("{} does not match the op kinds, which add up to {}", u64(f), expected));
  }
}

PacingStats pacing_stats(const Field& f) {
  PacingStats pacing;
  pacing.paced = true;
  pacing.late_ops = u64(f, "late_ops");
  pacing.max_lag_ns = u64(f, "max_lag_ns");
  pacing.backlog_ops = u64(f, "backlog_ops");
  return pacing;
}

WorkerResult worker(const Field& f, PhaseResult& phase) {
  WorkerResult w;
  w.index = size_of(member(f, "index"));
  w.target_index = size_of(member(f, "target_index"));
  w.seed = seed(member(f, "seed"));
  w.elapsed_ns = u64(f, "elapsed_ns");
  w.status = status(f);
  w.message = text(f, "message");
  const Field cpu = member(f, "cpu");
  w.cpu.user_ns = u64(cpu, "user_ns");
  w.cpu.system_ns = u64(cpu, "system_ns");
  w.counters = counters(member(f, "counters"), phase.counter_names, false);
  LatencyPartsKind kind;
  w.ops = ops_by_kind(member(f, "ops_by_kind"), phase.op_names, false, w.latency_parts, kind);
  if (kind.submission_completion != phase.latency_parts_kind.submission_completion ||
      kind.service != phase.latency_parts_kind.service) {
    fail(member(f, "ops_by_kind").pointer, "a worker's latency parts must be its phase's");
  }
  if (const auto pacing = optional_member(f, "pacing")) w.pacing = pacing_stats(*pacing);
  check_total(f, "bytes", w.total_bytes());
  check_total(f, "ops", w.total_ops());
  return w;
}

// A classic tool's figures (json_reporter.cpp's reported_json): a number, or "too_fast".
ReportedFigures reported(const Field& f) {
  ReportedFigures figures;
  for (const auto& [key, slot] : detail::json::reported_fields(figures)) {
    const auto value = optional_member(f, key);
    if (!value) continue;
    if (value->value.is_string()) {
      if (text(*value) != "too_fast") {
        fail(value->pointer, "must be a number or \"too_fast\" (bonnie++'s +++++)");
      }
      *slot = ReportedFigure{.value = 0, .too_fast = true};
    } else {
      *slot = ReportedFigure{.value = number(*value), .too_fast = false};
    }
  }
  return figures;
}

SeriesLatency series_latency(const Field& f) {
  SeriesLatency l;
  l.mean = number(f, "mean");
  l.max = u64(f, "max");
  l.p50 = u64(f, "p50");
  l.p99 = u64(f, "p99");
  l.p99_9 = u64(f, "p99_9");
  return l;
}

// "time_series" (TIME_SERIES_SHAPE): the figures as written; throughput and IOPS follow from
// bytes, ops and duration_ns, and a device's util, queue size and awaits from its counts, so
// they are not read.
TimeSeries time_series(const Field& f) {
  TimeSeries series;
  series.requested_interval_ns = u64(f, "requested_interval_ns");
  series.interval_ns = u64(f, "interval_ns");
  series.merged_intervals = u64(f, "merged_intervals");
  each(member(f, "points"), [&](const Field& p) {
    SeriesPoint point;
    point.start_ns = u64(p, "start_ns");
    point.duration_ns = u64(p, "duration_ns");
    point.warmup = boolean(p, "warmup");
    point.bytes = u64(p, "bytes");
    point.ops = u64(p, "ops");
    point.errors = u64(p, "errors");
    point.latency_ns = series_latency(member(p, "latency_ns"));
    each(member(p, "workers"), [&](const Field& w) {
      SeriesWorkerPoint worker;
      worker.index = size_of(member(w, "index"));
      worker.bytes = u64(w, "bytes");
      worker.ops = u64(w, "ops");
      worker.errors = u64(w, "errors");
      worker.latency_ns = series_latency(member(w, "latency_ns"));
      point.workers.push_back(worker);
    });
    if (const auto devices = optional_member(p, "devices")) {
      each(*devices, [&](const Field& d) {
        point.devices.push_back(
            SeriesDevicePoint{.name = text(d, "name"),
                              .sampled_ns = u64(d, "sampled_ns"),
                              .reads = u64(d, "reads"),
                              .writes = u64(d, "writes"),
                              .read_bytes = u64(d, "read_bytes"),
                              .write_bytes = u64(d, "write_bytes"),
                              .read_time_ms = u64(d, "read_time_ms"),
                              .write_time_ms = u64(d, "write_time_ms"),
                              .io_time_ms = u64(d, "io_time_ms"),
                              .weighted_io_time_ms = u64(d, "weighted_io_time_ms")});
      });
    }
    if (const auto ops = optional_member(p, "op_points")) {
      each(*ops, [&](const Field& o) {
        point.op_points.push_back(SeriesOpPoint{.ops = u64(o, "ops"),
                                                .bytes = u64(o, "bytes"),
                                                .errors = u64(o, "errors"),
                                                .latency_samples = u64(o, "latency_samples"),
                                                .latency_sum_ns = u64(o, "latency_sum_ns")});
      });
    }
    series.points.push_back(std::move(point));
  });
  return series;
}

// "steady_state" (json_reporter.cpp): the criterion is read back through its parser.
SteadyStateResult steady_state(const Field& f) {
  SteadyStateResult steady;
  const Field criterion = member(f, "criterion");
  try {
    steady.config.criterion = parse_steady_state_criterion(text(criterion), "criterion");
  } catch (const ConfigError& e) {
    fail(criterion.pointer, e.what());
  }
  steady.config.window = std::chrono::nanoseconds(u64(f, "window_ns"));
  steady.config.ramp = std::chrono::nanoseconds(u64(f, "ramp_ns"));
  steady.config.interval = std::chrono::nanoseconds(u64(f, "interval_ns"));
  steady.steady = boolean(f, "steady");
  steady.samples = size_of(member(f, "samples"));
  each(member(f, "window"), [&](const Field& sample) { steady.window.push_back(number(sample)); });
  // Files written before the series was kept have neither member: an empty series (written
  // back as [], which reads as such again).
  if (const auto series = optional_member(f, "series")) {
    each(*series, [&](const Field& sample) { steady.series.push_back(number(sample)); });
    steady.series_dropped = size_of(member(f, "series_dropped"));
    if ((!steady.series.empty() || steady.series_dropped > 0) &&
        steady.series_dropped + steady.series.size() != steady.samples) {
      fail(series->pointer,
           fmt::format("{} samples kept and {} dropped are not the {} taken", steady.series.size(),
                       steady.series_dropped, steady.samples));
    }
  }
  if (const auto figures = optional_member(f, "figures")) {
    SteadyStateFigures& out = steady.figures.emplace();
    out.steady = steady.steady;
    out.window_mean = number(*figures, "window_mean");
    out.slope = number(*figures, "slope");
    out.max_deviation = number(*figures, "max_deviation");
    out.criterion_value = number(*figures, "criterion_value");
    out.limit = number(*figures, "limit");
    out.data_excursion_percent = number(*figures, "data_excursion_percent");
    out.fit_excursion_percent = number(*figures, "fit_excursion_percent");
  }
  return steady;
}

PhaseResult phase(const Field& f) {
  PhaseResult p;
  p.name = text(f, "name");
  p.status = status(f);
  p.message = text(f, "message");
  const Field mode = member(f, "mode");
  if (text(mode) == "threads") {
    p.mode = WorkerMode::kThreads;
  } else if (text(mode) == "processes") {
    p.mode = WorkerMode::kProcesses;
  } else {
    fail(mode.pointer,
         fmt::format("\"{}\" is not a worker mode; use threads or processes", text(mode)));
  }
  p.wall_ns = u64(f, "wall_ns");
  p.stonewall_ns = u64(f, "stonewall_ns");
  const Field cpu = member(f, "cpu");
  p.process_cpu.user_ns = u64(cpu, "process_user_ns");
  p.process_cpu.system_ns = u64(cpu, "process_system_ns");
  p.workers_cpu.user_ns = u64(cpu, "workers_user_ns");
  p.workers_cpu.system_ns = u64(cpu, "workers_system_ns");
  p.system_busy_percent = number(cpu, "system_busy_percent");
  p.counters = counters(member(f, "counters"), p.counter_names, true);
  p.ops = ops_by_kind(member(f, "ops_by_kind"), p.op_names, true, p.latency_parts,
                      p.latency_parts_kind);
  if (const auto pacing = optional_member(f, "pacing")) p.pacing = pacing_stats(*pacing);
  check_total(f, "bytes", p.total_bytes());
  check_total(f, "ops", p.total_ops());
  each(member(f, "workers"), [&](const Field& w) { p.workers.push_back(worker(w, p)); });
  if (const auto figures = optional_member(f, "reported")) p.reported = reported(*figures);
  if (const auto series = optional_member(f, "time_series")) p.time_series = time_series(*series);
  if (const auto steady = optional_member(f, "steady_state"))
    p.steady_state = steady_state(*steady);
  if (const auto b = optional_member(f, "explain_bpf")) {
    p.explain_bpf = detail::explain_bpf_from_json(b->value, b->pointer);
  }
  if (const auto e = optional_member(f, "explain")) {
    p.explanation = detail::explain_from_json(e->value, e->pointer);
  }
  return p;
}

AttributeValue attribute(const Field& f) {
  if (f.value.is_number_unsigned()) {
    const auto value = f.value.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(f.pointer, "is larger than an attribute's integer (2^63 - 1)");
    }
    return static_cast<std::int64_t>(value);
  }
  if (f.value.is_number_integer()) return f.value.get<std::int64_t>();
  if (f.value.is_number_float()) return f.value.get<double>();
  if (f.value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (f.value.is_string()) return f.value.get<std::string>();
  wrong_type(f.pointer, f.value, "a number or a string");
}

StepResult step(const Field& f) {
  StepResult s;
  s.name = text(f, "name");
  s.workload = text(f, "workload");
  s.status = status(f);
  s.message = text(f, "message");
  s.seed = seed(member(f, "seed"));
  // The step's options (schema 2; absent in schema 1).
  if (const auto engine = optional_member(f, "engine")) {
    s.engine = text(*engine);
    s.time_limit_ns = u64(f, "time_limit_ns");
    s.warmup_ns = u64(f, "warmup_ns");
    s.ops_limit = u64(f, "ops_limit");
    s.drop_caches = boolean(f, "drop_caches");
  }
  s.params = string_map(member(f, "params"));
  if (const auto given = optional_member(f, "params_given")) {
    s.given_params = strings(*given);
    for (std::size_t i = 0; i < s.given_params.size(); ++i) {
      if (!s.params.contains(s.given_params[i])) {
        fail(json_pointer_child(given->pointer, i),
             fmt::format("\"{}\" is not one of the step's params", s.given_params[i]));
      }
    }
  }
  s.targets = strings(member(f, "targets"));
  each_member(member(f, "attributes"), [&](const std::string& key, const Field& value) {
    s.attributes.emplace_back(key, attribute(value));
  });
  s.warnings = strings(member(f, "warnings"));
  each(member(f, "phases"), [&](const Field& p) { s.phases.push_back(phase(p)); });
  return s;
}

std::optional<StepPlacement> placement(const Field& f) {
  const auto suite_step = optional_member(f, "suite_step");
  if (!suite_step) return std::nullopt;
  StepPlacement p;
  p.suite_step = text(*suite_step);
  const Field point = member(f, "sweep_point");
  if (!point.value.is_null()) p.sweep_point = text(point);
  const Field repetition = member(f, "repetition");
  p.repetition = size_of(repetition);
  if (p.repetition == 0) fail(repetition.pointer, "repetitions count from 1");
  return p;
}

Environment environment(const Field& f, std::string version) {
  Environment env;
  env.iobench_version = std::move(version);
  env.hostname = text(f, "hostname");
  env.kernel = text(f, "kernel");
  env.arch = text(f, "arch");
  env.cpu_model = text(f, "cpu_model");
  const Field cpus = member(f, "cpu_count");
  if (u64(cpus) > std::numeric_limits<unsigned>::max()) fail(cpus.pointer, "is too large");
  env.cpu_count = static_cast<unsigned>(u64(cpus));
  env.memory_bytes = u64(f, "memory_bytes");
  env.start_time_utc = text(f, "start_time_utc");
  if (const auto clock = optional_member(f, "clock")) env.clock = text(*clock);
  each(member(f, "targets"), [&](const Field& t) {
    TargetInfo target;
    target.path = text(t, "path");
    target.fs_type = text(t, "fs_type");
    target.mount_point = text(t, "mount_point");
    target.mount_options = text(t, "mount_options");
    target.device = text(t, "device");
    target.size_bytes = u64(t, "size_bytes");
    target.free_bytes = u64(t, "free_bytes");
    env.targets.push_back(std::move(target));
  });
  return env;
}

Invocation invocation(const Field& f) {
  Invocation inv;
  inv.argv = strings(member(f, "argv"));
  inv.working_directory = text(f, "working_directory");
  inv.suite_source = text(f, "suite_source");
  inv.suite_text = text(f, "suite_text");
  inv.targets = strings(member(f, "targets"));
  inv.params = string_map(member(f, "params"));
  inv.engine = text(f, "engine");
  inv.time_limit_ns = u64(f, "time_limit_ns");
  inv.warmup_ns = u64(f, "warmup_ns");
  inv.ops_limit = u64(f, "ops_limit");
  inv.drop_caches = boolean(f, "drop_caches");
  inv.seed = seed(member(f, "seed"));
  inv.repeated_from = text(f, "repeated_from");
  return inv;
}
// Refuses nesting deeper than kMaxDepth before nlohmann parses (strings skipped).
void check_depth(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) {
        fail("", fmt::format("byte {}: nested deeper than {} levels; this is no result document", i,
                             kMaxDepth));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace

ResultDocument parse_result_json(std::string_view text_in) {
  check_depth(text_in);
  Json root;
  try {
    root = Json::parse(text_in.begin(), text_in.end());
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    if (const auto pos = what.find("syntax error"); pos != std::string::npos) {
      what = what.substr(pos);
    }
    fail("", fmt::format("byte {}: not valid JSON: {}", e.byte, what));
  } catch (const Json::out_of_range& e) {
    // A number beyond a double (1e400): nlohmann's error 406, thrown while parsing.
    std::string what = e.what();
    if (const auto pos = what.find("number overflow"); pos != std::string::npos) {
      what = what.substr(pos);
    }
    fail("", fmt::format("not a usable JSON document: {}", what));
  }
  const Field doc{root, ""};
  if (!root.is_object()) wrong_type("", root, "a JSON object (a result document)");
  ResultDocument out;
  const Field schema = member(doc, "schema");
  out.schema = text(schema);
  if (out.schema != kResultSchemaV1 && out.schema != kResultSchemaV2 &&
      out.schema != kResultSchemaV3 && out.schema != kResultSchema) {
    fail(schema.pointer,
         fmt::format("\"{}\" is not a result schema this iobench reads ({}, {}, {})", out.schema,
                     kResultSchemaV1, kResultSchemaV2, kResultSchemaV3));
  }
  out.run.environment = environment(member(doc, "environment"), text(doc, "iobench_version"));
  out.run.status = status(doc);
  if (const auto inv = optional_member(doc, "invocation")) out.invocation = invocation(*inv);
  const Field steps = member(doc, "steps");
  bool placed = false;
  each(steps, [&](const Field& s) {
    out.run.steps.push_back(step(s));
    std::optional<StepPlacement> p = placement(s);
    if (out.run.steps.size() == 1) placed = p.has_value();
    if (p.has_value() != placed) {
      fail(s.pointer,
           "either every step has \"suite_step\", \"sweep_point\" and \"repetition\" "
           "or none has");
    }
    if (p) out.placements.push_back(std::move(*p));
  });
  if (const auto s = optional_member(doc, "suite"))
    out.suite = suite_record(*s, out.run.steps.size());
  if (const auto s = optional_member(doc, "source")) {
    out.source = ResultSource{.format = text(*s, "format"),
                              .tool_version = text(*s, "tool_version"),
                              .not_mapped = strings(member(*s, "not_mapped"))};
  }
  return out;
}

ResultDocument load_result_file(const std::filesystem::path& path) {
  const std::string text = read_input_file(path, "result file");
  try {
    return parse_result_json(text);
  } catch (const ResultFormatError& e) {
    throw ConfigError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace iobench
