// compared_params: a step's params normalised by its workload's ParamSpec, so that "64m" and
// "64M", an unset param and its default, dbench's clients and procs are not listed as
// differences.
#include "report/compare_params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/units.hpp>
#include <iobench/workloads.hpp>
#include <optional>
#include <variant>
#include <vector>

namespace iobench::detail {
namespace {

// The built-in workloads' params (the registry is built once, then only read).
const std::vector<ParamSpec>* specs_of(std::string_view workload) {
  static const Registry registry = make_builtin_registry();
  for (const WorkloadInfo* info : registry.workloads()) {
    if (info->name == workload) return &info->params;
  }
  return nullptr;
}

const ParamSpec* spec_of(const std::vector<ParamSpec>* specs, std::string_view key) {
  if (specs == nullptr) return nullptr;
  for (const ParamSpec& spec : *specs) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

// The value as its type reads it; the text itself where it does not parse (an expression such as
// "2*ram", a classic tool's own spelling).
std::string normal_of(const ParamSpec* spec, const std::string& text) {
  if (spec == nullptr) return text;
  try {
    switch (spec->type) {
      case ParamType::kSize:
        return std::to_string(parse_size(text, spec->key));
      case ParamType::kCount:
        return std::to_string(parse_count(text, spec->key));
      case ParamType::kDuration:
        return std::to_string(parse_duration(text, spec->key).count());
      case ParamType::kBool:
        return parse_bool(text, spec->key) ? "true" : "false";
      default:
        return text;
    }
  } catch (const ConfigError&) {
    return text;
  }
}

std::optional<std::uint64_t> whole_number(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::map<std::string, ComparedParam> compared_params(const StepResult& step, bool own_result) {
  std::map<std::string, std::string> params = step.params;
  if (!own_result && step.workload == "dbench") {
    // dbench 4 prints "N clients M procs"; iobench's dbench has procs and clients_per_process.
    const auto clients = params.find("clients");
    const auto procs = params.find("procs");
    if (clients != params.end() && procs != params.end()) {
      const auto c = whole_number(clients->second);
      const auto p = whole_number(procs->second);
      if (c && p && *p > 0 && *c % *p == 0) {
        params["clients_per_process"] = std::to_string(*c / *p);
        params.erase("clients");
      }
    }
  }
  const std::vector<ParamSpec>* specs = specs_of(step.workload);
  if (own_result && specs != nullptr) {
    for (const ParamSpec& spec : *specs) {
      if (!spec.default_value.empty()) params.emplace(spec.key, spec.default_value);
    }
  }
  std::map<std::string, ComparedParam> out;
  for (auto& [key, value] : params) {
    std::string normal = normal_of(spec_of(specs, key), value);
    out.emplace(key, ComparedParam{.shown = value, .normal = std::move(normal)});
  }
  return out;
}

}  // namespace iobench::detail

namespace iobench::detail {

std::optional<double> dbench_headline_bytes_per_s(const StepResult& step,
                                                  const PhaseResult& phase) {
  const AttributeValue* attribute = step.attribute("tick_seconds");
  std::optional<std::int64_t> tick;
  if (const auto* i = attribute != nullptr ? std::get_if<std::int64_t>(attribute) : nullptr) {
    tick = *i;
  } else if (const auto* d = attribute != nullptr ? std::get_if<double>(attribute) : nullptr) {
    tick = static_cast<std::int64_t>(*d);
  }
  const auto name = std::find(phase.counter_names.begin(), phase.counter_names.end(),
                              std::string_view("bytes_to_last_tick"));
  if (!tick || name == phase.counter_names.end()) return std::nullopt;
  const auto index = static_cast<std::size_t>(name - phase.counter_names.begin());
  if (index >= phase.counters.size()) return std::nullopt;
  // A run that ended early (run_once, a stop) has fewer whole seconds, as dbench's formatter says.
  const std::int64_t seconds =
      std::min(*tick, static_cast<std::int64_t>(phase.wall_ns / 1'000'000'000ULL));
  if (seconds <= 0) return std::nullopt;
  return static_cast<double>(phase.counters[index]) / static_cast<double>(seconds);
}

}  // namespace iobench::detail
