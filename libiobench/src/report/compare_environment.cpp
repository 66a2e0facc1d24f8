// "What differs" for `iobench compare`: the system, targets and per aligned step its params
// (normalised, compare_params.hpp) and options, listed where two inputs state different values.
#include "report/compare_environment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/format.hpp>
#include <map>
#include <set>

#include "report/compare_params.hpp"

namespace iobench::detail {
namespace {

// Appends `field` when two inputs have different values of it; an input without the field (a
// classic tool's result that does not state it) shows "(none)" beside them, but a field that
// only some inputs state and all of them alike is no difference. `normal`: the values as
// compared (params normalised, compare_params.hpp), else `values` themselves.
void add_difference(std::vector<EnvironmentDifference>& out, std::string field,
                    std::vector<std::optional<std::string>> values,
                    const std::vector<std::optional<std::string>>* normal = nullptr) {
  std::set<std::string> distinct;
  for (const auto& value : normal != nullptr ? *normal : values) {
    if (value) distinct.insert(*value);
  }
  if (distinct.size() < 2) return;
  EnvironmentDifference difference{.field = std::move(field), .values = {}};
  for (const auto& value : values) difference.values.push_back(value.value_or("(none)"));
  // A step field already listed with the same values (another sweep point) is not repeated.
  for (const EnvironmentDifference& existing : out) {
    if (existing.field == difference.field && existing.values == difference.values) return;
  }
  out.push_back(std::move(difference));
}

}  // namespace

void environment_differences(std::span<const CompareInput> inputs,
                             std::vector<EnvironmentDifference>& out) {
  const auto field = [&](const char* name, auto get) {
    std::vector<std::optional<std::string>> values;
    for (const CompareInput& input : inputs) {
      const Environment& e = input.document.run.environment;
      // A classic tool's result knows only what its source states: the rest is "(none)".
      const bool unknown = input.document.source &&
                           ((std::string_view(name) == "cpu_count" && e.cpu_count == 0) ||
                            (std::string_view(name) == "memory_bytes" && e.memory_bytes == 0));
      std::optional<std::string> value;
      if (!unknown) value = get(e);
      if (input.document.source && value && value->empty()) value.reset();
      values.push_back(std::move(value));
    }
    add_difference(out, name, std::move(values));
  };
  {
    std::vector<std::optional<std::string>> values;
    for (const CompareInput& input : inputs) {
      const auto& source = input.document.source;
      if (!source) {
        values.emplace_back("iobench-json");
      } else {
        values.emplace_back(source->tool_version.empty()
                                ? source->format
                                : fmt::format("{} ({})", source->format, source->tool_version));
      }
    }
    add_difference(out, "source", std::move(values));
  }
  field("hostname", [](const Environment& e) { return e.hostname; });
  field("kernel", [](const Environment& e) { return e.kernel; });
  field("arch", [](const Environment& e) { return e.arch; });
  field("cpu_model", [](const Environment& e) { return e.cpu_model; });
  field("cpu_count", [](const Environment& e) { return std::to_string(e.cpu_count); });
  field("memory_bytes", [](const Environment& e) {
    return fmt::format("{} ({})", e.memory_bytes, format_bytes(e.memory_bytes));
  });
  field("iobench_version", [](const Environment& e) { return e.iobench_version; });
  // The clock's kind only: a TSC's calibrated rate differs in its last digits from run to run.
  field("clock", [](const Environment& e) { return e.clock.substr(0, e.clock.find(' ')); });
  std::size_t targets = 0;
  for (const CompareInput& input : inputs) {
    targets = std::max(targets, input.document.run.environment.targets.size());
  }
  for (std::size_t t = 0; t < targets; ++t) {
    const auto target_field = [&](const char* name, auto get) {
      std::vector<std::optional<std::string>> values;
      for (const CompareInput& input : inputs) {
        const auto& list = input.document.run.environment.targets;
        values.push_back(t < list.size() ? std::optional<std::string>(get(list[t])) : std::nullopt);
      }
      add_difference(out, fmt::format("target {} {}", t, name), std::move(values));
    };
    target_field("path", [](const TargetInfo& i) { return i.path; });
    target_field("fs_type", [](const TargetInfo& i) { return i.fs_type; });
    target_field("mount_point", [](const TargetInfo& i) { return i.mount_point; });
    target_field("mount_options", [](const TargetInfo& i) { return i.mount_options; });
    target_field("device", [](const TargetInfo& i) { return i.device; });
    target_field("size_bytes", [](const TargetInfo& i) {
      return fmt::format("{} ({})", i.size_bytes, format_bytes(i.size_bytes));
    });
  }
}

void step_differences(const std::string& step, const std::optional<std::string>& point,
                      const std::vector<const StepResult*>& steps, const std::vector<bool>& own,
                      std::vector<EnvironmentDifference>& out) {
  using Text = std::optional<std::string>;
  // `values[i]`: input i's value, nullopt where it has none; `normal`: as compared.
  const auto step_field = [&](const std::string& name, std::vector<Text> values,
                              const std::vector<Text>* normal = nullptr) {
    std::set<std::string> distinct;
    for (const Text& value : normal != nullptr ? *normal : values) {
      if (value) distinct.insert(*value);
    }
    if (distinct.size() < 2) return;
    std::string field = fmt::format("step {}: {}", step, name);
    for (const EnvironmentDifference& existing : out) {
      if (existing.field != field) continue;
      std::vector<std::string> shown;
      for (const auto& value : values) shown.push_back(value.value_or("(none)"));
      if (existing.values == shown) return;
      field = point ? fmt::format("step {} point {}: {}", step, *point, name) : field;
    }
    add_difference(out, std::move(field), std::move(values), normal);
  };
  // A step option of iobench's own results; a classic tool's result states none of them (but
  // its engine where it names one: fio's ioengine).
  const auto option = [&](const std::string& name, auto get, bool classic_states = false) {
    std::vector<Text> values(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (steps[i] != nullptr && (own[i] || classic_states)) values[i] = get(*steps[i]);
    }
    step_field(name, std::move(values));
  };
  // Params by name (aliases resolved), compared by their normal form.
  std::vector<std::map<std::string, detail::ComparedParam>> params(steps.size());
  std::set<std::string> keys;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] == nullptr) continue;
    params[i] = detail::compared_params(*steps[i], own[i]);
    for (const auto& [key, value] : params[i]) keys.insert(key);
  }
  for (const std::string& key : keys) {
    std::vector<Text> shown(steps.size());
    std::vector<Text> normal(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto it = params[i].find(key);
      if (it == params[i].end()) continue;
      shown[i] = it->second.shown;
      normal[i] = it->second.normal;
    }
    step_field("param " + key, std::move(shown), &normal);
  }
  option(
      "engine", [](const StepResult& s) -> Text { return s.engine.empty() ? Text() : s.engine; },
      true);
  option("time_limit", [](const StepResult& s) -> Text {
    return s.time_limit_ns == 0 ? "none" : format_duration(s.time_limit_ns);
  });
  option("warmup", [](const StepResult& s) -> Text {
    return s.warmup_ns == 0 ? "none" : format_duration(s.warmup_ns);
  });
  option("ops_limit", [](const StepResult& s) -> Text {
    return s.ops_limit == 0 ? "none" : std::to_string(s.ops_limit);
  });
  option("drop_caches",
         [](const StepResult& s) -> Text { return s.drop_caches ? "true" : "false"; });
  option("targets",
         [](const StepResult& s) -> Text { return fmt::format("{}", fmt::join(s.targets, ", ")); });
}

}  // namespace iobench::detail
