#include "plugins/disk/disk_curve.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iobench/error.hpp>
#include <iobench/units.hpp>
#include <ostream>

namespace iobench::plugins::disk {

std::uint32_t CurveConfig::search_steps() const noexcept {
  // Each step halves the bracket: after n steps it is search_max_percent / 2^n % of max wide.
  std::uint32_t steps = 1;
  while (search_max_percent / std::pow(2.0, steps) > precision_percent) ++steps;
  return steps;
}

std::size_t CurveConfig::probe_phases() const noexcept {
  if (!latency_target) return 0;
  const std::uint32_t steps = by_depth ? DepthSearch::steps(max_depth) : search_steps();
  return static_cast<std::size_t>(steps) * (1 + confirm);
}

std::uint32_t DepthSearch::steps(std::uint32_t max_depth) noexcept {
  // The bracket (0, max_depth + 1) shrinks to at most ceil(length / 2) per probe.
  std::uint32_t steps = 0;
  for (std::uint64_t length = std::uint64_t{max_depth} + 1; length > 1; length = (length + 1) / 2) {
    ++steps;
  }
  return steps;
}

void DepthSearch::start(std::uint32_t max_depth, std::uint32_t runs_per_probe) noexcept {
  low_ = 0;
  high_ = max_depth + 1;
  runs_per_probe_ = runs_per_probe;
  runs_ = 0;
  failed_ = false;
  result_iops_ = 0;
}

void DepthSearch::record(bool pass, double iops) noexcept {
  failed_ = failed_ || !pass;
  probe_iops_ = runs_ == 0 ? iops : std::min(probe_iops_, iops);
  if (++runs_ < runs_per_probe_) return;
  const std::uint32_t probed = depth();
  if (failed_) {
    high_ = probed;
  } else {
    low_ = probed;
    result_iops_ = probe_iops_;
  }
  runs_ = 0;
  failed_ = false;
}

void after_depth_probe(PrepareContext& ctx, DepthSearch& search, std::size_t run, std::size_t runs,
                       const CurvePoint& point, std::uint64_t target_ns) {
  const bool pass = point.iops > 0 && point.target_percentile_ns <= target_ns;
  set_depth_probe(ctx, run, search.depth(), point, pass);
  search.record(pass, point.iops);
  if (!search.done() && run < runs) return;
  ctx.set_attribute("latency_search.result_depth", static_cast<std::int64_t>(search.result()));
  ctx.set_attribute("latency_search.result_iops", search.result_iops());
  ctx.set_attribute("latency_search.upper_depth", static_cast<std::int64_t>(search.upper()));
  if (run < runs) {
    ctx.skip_remaining_phases(
        fmt::format("the queue-depth search converged after {} of its {} probe runs (result: "
                    "depth {})",
                    run, runs, search.result()));
  }
}

std::vector<ParamSpec> curve_param_specs() {
  return {
      {.key = "curve",
       .type = ParamType::kString,
       .default_value = "",
       .unit = "% of max",
       .help = "after the closed-loop read phase (as fast as possible), open-loop phases at "
               "these percentages of its IOPS, e.g. 10,50,70,80,90,100 (operation=read; each "
               "phase as long as the step's); a \"curve\" table of IOPS and response times"},
      {.key = "latency_target",
       .type = ParamType::kString,
       .default_value = "",
       .help = "pP:TIME, e.g. p99:2ms: bisect the open-loop rate in (0, closed-loop IOPS] for "
               "the highest one whose response-time percentile stays at or under TIME; every "
               "probe is reported (operation=read)"},
      {.key = "latency_precision",
       .type = ParamType::kDouble,
       .default_value = "1",
       .unit = "% of max",
       .help = "latency_target: stop once the bracket around the knee is this narrow "
               "(0.1..50 % of the closed-loop IOPS); sets the number of probes"},
      {.key = "latency_confirm",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "runs",
       .help = "latency_target: extra runs of each probed rate; a rate passes only if every "
               "run meets the target",
       .max = 10},
      {.key = "latency_target_mode",
       .type = ParamType::kEnum,
       .default_value = "rate",
       .help = "latency_target: rate (open loop: the highest rate meeting it) or depth (closed "
               "loop, fio's latency_target: the highest queue depth in 1..iodepth meeting it, "
               "bisected, each probe a closed-loop phase at one depth)",
       .choices = {"rate", "depth"}},
      {.key = "latency_window",
       .type = ParamType::kDuration,
       .default_value = "0s",
       .help = "latency_target_mode=depth: each probe's length (fio's latency_window; 0: the "
               "step's phase length)"},
      {.key = "latency_ramp",
       .type = ParamType::kDuration,
       .default_value = "500ms",
       .help = "curve/latency_target: each open-loop phase first idles for half of this (a "
               "throttle's time slice lapses, a backlog left by the phase before drains), then "
               "runs its open loop unjudged for the other half, before its measured part (which "
               "replaces --warmup there; 0: neither, --warmup applies)"},
      {.key = "latency_search_max",
       .type = ParamType::kCount,
       .default_value = "100",
       .unit = "% of max",
       .help = "latency_target: the highest rate probed, in % of the closed-loop IOPS (above "
               "100 where that figure may fall short of the knee, e.g. a throttled device whose "
               "closed-loop phase ends waiting out a time slice)",
       .min = 10,
       .max = 1000},
  };
}

std::vector<std::uint32_t> parse_curve(std::string_view text) {
  std::vector<std::uint32_t> percents;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    std::uint32_t value = 0;
    bool ok = !item.empty() && item.size() <= 4;
    for (const char c : item) {
      if (c < '0' || c > '9') ok = false;
      value = value * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (!ok || value == 0 || value > 1000) {
      throw ConfigError(fmt::format(
          "disk: curve={} has '{}', not a whole percentage 1..1000; give percentages of the "
          "closed-loop IOPS separated by commas, e.g. curve=10,50,70,80,90,100",
          text, item));
    }
    percents.push_back(value);
    start = comma + 1;
  }
  return percents;
}

LatencyTarget parse_latency_target(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return ConfigError(fmt::format(
        "disk: latency_target={} {}; give pPERCENTILE:TIME, e.g. latency_target=p99:2ms", text,
        why));
  };
  const std::size_t colon = text.find(':');
  if (text.size() < 2 || text[0] != 'p' || colon == std::string_view::npos) {
    throw bad("is not of the form pPERCENTILE:TIME");
  }
  LatencyTarget target;
  target.text = std::string(text);
  try {
    target.percentile = parse_double(text.substr(1, colon - 1), "latency_target");
    target.target_ns = static_cast<std::uint64_t>(
        parse_duration(text.substr(colon + 1), "latency_target").count());
  } catch (const ConfigError&) {
    throw bad("has a percentile or time that does not parse");
  }
  if (!(target.percentile > 0 && target.percentile <= 100)) {
    throw bad("has a percentile outside (0, 100]");
  }
  if (target.target_ns == 0) throw bad("has a time of 0");
  return target;
}

namespace {

// latency_target_mode=depth: closed-loop probes of queue depths, nothing of the rate search.
void check_depth_search(const Params& params, const CurveConfig& config) {
  const auto refuse = [](std::string_view why) {
    throw ConfigError(fmt::format("disk: latency_target_mode=depth {}", why));
  };
  if (!config.latency_target) {
    refuse(
        "searches the queue depth meeting latency_target, which is not given; give e.g. "
        "latency_target=p99:2ms");
  }
  if (!config.percents.empty()) {
    refuse(
        fmt::format("runs closed-loop probes at queue depths, but curve={} runs open-loop "
                    "phases at rates; drop curve or use latency_target_mode=rate",
                    params.get_string("curve")));
  }
  for (const char* key : {"latency_precision", "latency_search_max", "latency_ramp"}) {
    if (params.given(key)) {
      refuse(
          fmt::format("bisects whole queue depths, so {}={} (a rate search's) does not apply; "
                      "drop it",
                      key, params.get_string(key)));
    }
  }
  if (config.max_depth < 2) {
    refuse(
        "searches queue depths 1..iodepth, but iodepth=1 leaves nothing to search; give "
        "iodepth=N (the highest depth to try), e.g. iodepth=32");
  }
}

}  // namespace

CurveConfig curve_from_params(const Params& params) {
  CurveConfig config;
  // No default: unset unless given.
  if (params.has("curve")) config.percents = parse_curve(params.get_string("curve"));
  if (params.has("latency_target")) {
    config.latency_target = parse_latency_target(params.get_string("latency_target"));
  }
  config.precision_percent = params.get_double("latency_precision");
  if (!(config.precision_percent >= 0.1 && config.precision_percent <= 50)) {
    throw ConfigError(fmt::format(
        "disk: latency_precision={} is outside 0.1..50 (% of the closed-loop IOPS); give e.g. "
        "latency_precision=1",
        params.get_string("latency_precision")));
  }
  config.confirm = static_cast<std::uint32_t>(params.get_u64("latency_confirm"));
  config.search_max_percent = static_cast<std::uint32_t>(params.get_u64("latency_search_max"));
  config.by_depth = params.get_string("latency_target_mode") == "depth";
  config.max_depth = static_cast<std::uint32_t>(params.get_u64("iodepth"));
  config.window = params.get_duration("latency_window");
  config.ramp = params.get_duration("latency_ramp");
  if (config.by_depth) check_depth_search(params, config);
  if (!config.by_depth && params.given("latency_window")) {
    throw ConfigError(
        fmt::format("disk: latency_window={} is the length of a queue-depth probe, but "
                    "latency_target_mode is not depth; set latency_target_mode=depth or drop it",
                    params.get_string("latency_window")));
  }
  return config;
}

CurvePoint measure_point(const PhaseResult& phase, double percentile) {
  CurvePoint point;
  const std::size_t k = phase.op_index("read");
  if (k >= phase.ops.size()) return point;
  const OpResult& reads = phase.ops[k];
  point.iops = phase.wall_ns > 0
                   ? static_cast<double>(reads.ops) * 1e9 / static_cast<double>(phase.wall_ns)
                   : 0.0;
  point.mean_ns = reads.latency.mean();
  point.p50_ns = reads.latency.percentile(50);
  point.p99_ns = reads.latency.percentile(99);
  point.max_ns = reads.latency.max();
  point.target_percentile_ns = reads.latency.percentile(percentile);
  point.measured_ns = phase.wall_ns;
  return point;
}

ProbeVerdict judge_probe(double rate_iops, const CurvePoint& point, std::uint64_t target_ns,
                         double precision_percent) noexcept {
  ProbeVerdict verdict;
  verdict.completed = point.iops > 0 && point.iops >= ProbeVerdict::kMinCompletedShare * rate_iops;
  verdict.percentile = point.target_percentile_ns <= target_ns;
  verdict.steady =
      point.growth_ns <= precision_percent / 100.0 * static_cast<double>(point.measured_ns);
  return verdict;
}

LatencySearch::LatencySearch(const CurveConfig& config) noexcept
    : runs_per_probe_(1 + config.confirm), search_max_(config.search_max_percent / 100.0) {}

void LatencySearch::start(double max_iops) noexcept {
  low_ = 0;
  high_ = max_iops * search_max_;
  runs_ = 0;
  failed_ = false;
}

void LatencySearch::record(bool pass) noexcept {
  failed_ = failed_ || !pass;
  if (++runs_ < runs_per_probe_) return;
  const double probed = rate();
  (failed_ ? high_ : low_) = probed;
  runs_ = 0;
  failed_ = false;
}

void set_depth_probe(PrepareContext& ctx, std::size_t run, std::uint32_t depth,
                     const CurvePoint& point, bool pass) {
  const std::string key = fmt::format("latency_search.probe.{}.", run);
  ctx.set_attribute(key + "depth", static_cast<std::int64_t>(depth));
  ctx.set_attribute(key + "iops", point.iops);
  ctx.set_attribute(key + "percentile_ns", static_cast<std::int64_t>(point.target_percentile_ns));
  ctx.set_attribute(key + "result", std::string(pass ? "pass" : "fail"));
}

void set_curve_point(PrepareContext& ctx, std::uint32_t percent, double target_iops,
                     const CurvePoint& point) {
  const std::string key = fmt::format("curve.{}%.", percent);
  ctx.set_attribute(key + "target_iops", target_iops);
  ctx.set_attribute(key + "iops", point.iops);
  ctx.set_attribute(key + "mean_ns", point.mean_ns);
  ctx.set_attribute(key + "p50_ns", static_cast<std::int64_t>(point.p50_ns));
  ctx.set_attribute(key + "p99_ns", static_cast<std::int64_t>(point.p99_ns));
  ctx.set_attribute(key + "max_ns", static_cast<std::int64_t>(point.max_ns));
  ctx.set_attribute(key + "growth_ns", static_cast<std::int64_t>(std::llround(point.growth_ns)));
}

void set_probe(PrepareContext& ctx, std::size_t run, double rate_iops, const CurvePoint& point,
               const ProbeVerdict& verdict) {
  const std::string key = fmt::format("latency_search.probe.{}.", run);
  ctx.set_attribute(key + "rate_iops", rate_iops);
  ctx.set_attribute(key + "iops", point.iops);
  ctx.set_attribute(key + "percentile_ns", static_cast<std::int64_t>(point.target_percentile_ns));
  ctx.set_attribute(key + "growth_ns", static_cast<std::int64_t>(std::llround(point.growth_ns)));
  ctx.set_attribute(key + "result", std::string(verdict.pass() ? "pass" : "fail"));
  if (!verdict.pass()) {
    std::vector<std::string> failed;
    if (!verdict.completed) failed.emplace_back("completions");
    if (!verdict.percentile) failed.emplace_back("percentile");
    if (!verdict.steady) failed.emplace_back("growth");
    ctx.set_attribute(key + "failed", fmt::format("{}", fmt::join(failed, ",")));
  }
}

namespace {

const AttributeValue* find(const StepResult& step, const std::string& key) {
  return step.attribute(key);
}

double number(const StepResult& step, const std::string& key) {
  const AttributeValue* value = find(step, key);
  if (value == nullptr) return 0;
  if (const auto* d = std::get_if<double>(value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(value)) return static_cast<double>(*i);
  return 0;
}

double us(double ns) { return ns / 1e3; }

// latency_target_mode=depth: the probes by queue depth, then the result.
void format_depth_search(const StepResult& step, const std::string& target, std::ostream& out) {
  fmt::print(out, "latency search ({} by queue depth in 1..{}, closed loop):\n", target,
             number(step, "latency_search.max_depth"));
  fmt::print(out, "{:>6} {:>6} {:>12} {:>14} {:>7}\n", "probe", "depth", "IOPS", "percentile us",
             "result");
  for (std::size_t run = 1;; ++run) {
    const std::string key = fmt::format("latency_search.probe.{}.", run);
    const AttributeValue* result = find(step, key + "result");
    if (result == nullptr || !std::holds_alternative<std::string>(*result)) break;
    fmt::print(out, "{:>6} {:>6} {:>12.1f} {:>14.1f} {:>7}\n", run, number(step, key + "depth"),
               number(step, key + "iops"), us(number(step, key + "percentile_ns")),
               std::get<std::string>(*result));
  }
  if (find(step, "latency_search.result_depth") != nullptr) {
    fmt::print(out, "latency search result: queue depth {} meets {} ({:.1f} IOPS)\n",
               number(step, "latency_search.result_depth"), target,
               number(step, "latency_search.result_iops"));
  }
}

}  // namespace

void format_curve_text(const StepResult& step, std::ostream& out) {
  if (find(step, "curve.max_iops") == nullptr) return;
  const auto curve = step.params.find("curve");
  if (curve != step.params.end() && !curve->second.empty()) {
    fmt::print(out,
               "curve (open loop, % of the closed-loop {:.1f} IOPS; response times in usec):\n",
               number(step, "curve.max_iops"));
    fmt::print(out, "{:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10}\n", "point", "target IOPS",
               "IOPS", "mean", "p50", "p99", "max");
    for (const std::uint32_t percent : parse_curve(curve->second)) {
      const std::string key = fmt::format("curve.{}%.", percent);
      if (find(step, key + "iops") == nullptr) break;  // not run (the step ended first)
      fmt::print(out, "{:>5}% {:>12.1f} {:>12.1f} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n",
                 percent, number(step, key + "target_iops"), number(step, key + "iops"),
                 us(number(step, key + "mean_ns")), us(number(step, key + "p50_ns")),
                 us(number(step, key + "p99_ns")), us(number(step, key + "max_ns")));
    }
  }
  const AttributeValue* target = find(step, "latency_search.target");
  if (target == nullptr || !std::holds_alternative<std::string>(*target)) return;
  if (find(step, "latency_search.max_depth") != nullptr) {
    format_depth_search(step, std::get<std::string>(*target), out);
    return;
  }
  fmt::print(out, "latency search ({} in (0, {:.1f}] IOPS):\n", std::get<std::string>(*target),
             number(step, "latency_search.max_iops"));
  fmt::print(out, "{:>6} {:>12} {:>12} {:>14} {:>10} {:>7}\n", "probe", "rate IOPS", "IOPS",
             "percentile us", "growth ms", "result");
  for (std::size_t run = 1;; ++run) {
    const std::string key = fmt::format("latency_search.probe.{}.", run);
    const AttributeValue* result = find(step, key + "result");
    if (result == nullptr || !std::holds_alternative<std::string>(*result)) break;
    const AttributeValue* failed = find(step, key + "failed");
    fmt::print(out, "{:>6} {:>12.1f} {:>12.1f} {:>14.1f} {:>10.1f} {:>7}{}\n", run,
               number(step, key + "rate_iops"), number(step, key + "iops"),
               us(number(step, key + "percentile_ns")), number(step, key + "growth_ns") / 1e6,
               std::get<std::string>(*result),
               failed != nullptr && std::holds_alternative<std::string>(*failed)
                   ? " (" + std::get<std::string>(*failed) + ")"
                   : std::string());
  }
  if (find(step, "latency_search.result_iops") != nullptr) {
    fmt::print(out, "latency search result: {:.1f} IOPS meet {} (upper bound {:.1f} IOPS)\n",
               number(step, "latency_search.result_iops"), std::get<std::string>(*target),
               number(step, "latency_search.upper_iops"));
  }
}

}  // namespace iobench::plugins::disk
