#include "plugins/tiotest/step_params.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/units.hpp>

namespace iobench::plugins::tiotest {

namespace {

const std::string* find_param(const StepResult& step, std::string_view key) {
  const auto it = step.params.find(std::string(key));
  return it == step.params.end() ? nullptr : &it->second;
}

}  // namespace

bool param_bool(const StepResult& step, std::string_view key, bool fallback) {
  const std::string* text = find_param(step, key);
  if (text == nullptr) return fallback;
  try {
    return parse_bool(*text, key);
  } catch (const ConfigError&) {
    return fallback;
  }
}

std::uint64_t param_u64(const StepResult& step, std::string_view key, std::uint64_t fallback) {
  const std::string* text = find_param(step, key);
  if (text == nullptr) return fallback;
  try {
    return parse_size(*text, key);
  } catch (const ConfigError&) {
    return fallback;
  }
}

std::string param_text(const StepResult& step, std::string_view key, std::string_view fallback) {
  const std::string* text = find_param(step, key);
  return text == nullptr ? std::string(fallback) : *text;
}

std::string attribute_text(const StepResult& step, std::string_view key) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return {};
  if (const auto* s = std::get_if<std::string>(value)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(value)) return fmt::format("{}", *i);
  return fmt::format("{}", std::get<double>(*value));
}

std::size_t step_threads(const StepResult& step) {
  const std::uint64_t threads = param_u64(step, "threads", 0);
  if (threads > 0) return static_cast<std::size_t>(threads);
  if (!step.phases.empty() && !step.phases.front().workers.empty()) {
    return step.phases.front().workers.size();
  }
  return 1;
}

}  // namespace iobench::plugins::tiotest
