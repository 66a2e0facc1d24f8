// Suite files: JSON text -> Suite. Pure; every problem is collected and reported at once with
// its JSON pointer.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/params.hpp>
#include <iobench/printable.hpp>
#include <iobench/suite.hpp>
#include <iobench/time_series.hpp>
#include <iobench/units.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "suite/units_detail.hpp"
#include "util/json_pointer.hpp"

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;

constexpr unsigned kMaxRepeat = 1000;

const std::vector<std::string> kSuiteKeys{"name",        "description", "targets", "params",
                                          "drop_caches", "pause",       "steps"};
const std::vector<std::string> kStepKeys{"name",        "workload", "params",  "targets", "repeat",
                                         "sweep",       "engine",   "time",    "warmup",  "ops",
                                         "drop_caches", "seed",     "interval"};
const std::vector<std::string> kSweepKeys{"param", "values"};

class Errors {
 public:
  explicit Errors(std::string_view source) : source_(source) {}
  void add(const std::string& pointer, const std::string& message) {
    lines_.push_back(fmt::format("{}: {}: {}", source_, pointer.empty() ? "/" : pointer, message));
  }
  [[nodiscard]] bool empty() const { return lines_.empty(); }
  void throw_if_any() const {
    if (!lines_.empty()) throw ConfigError(fmt::format("{}", fmt::join(lines_, "\n")));
  }

 private:
  std::string source_;
  std::vector<std::string> lines_;
};

using detail::json_kind;
using detail::json_pointer_child;

void check_keys(const Json& object, const std::vector<std::string>& allowed,
                const std::string& pointer, Errors& errors) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string suggestion = closest_match(key, allowed);
    errors.add(
        json_pointer_child(pointer, key),
        suggestion.empty()
            ? fmt::format("unknown key '{}'; allowed: {}", printable(key), fmt::join(allowed, ", "))
            : fmt::format("unknown key '{}'; did you mean '{}'?", printable(key), suggestion));
  }
}

std::optional<std::string> get_string(const Json& object, const char* key,
                                      const std::string& pointer, Errors& errors) {
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (!it->is_string()) {
    errors.add(json_pointer_child(pointer, key),
               fmt::format("'{}' must be a string, not {}", key, json_kind(*it)));
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::optional<bool> get_bool(const Json& object, const char* key, const std::string& pointer,
                             Errors& errors) {
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (!it->is_boolean()) {
    errors.add(json_pointer_child(pointer, key),
               fmt::format("'{}' must be true or false, not {}", key, json_kind(*it)));
    return std::nullopt;
  }
  return it->get<bool>();
}

// Text of a scalar param or sweep value: strings as is, integers and numbers printed, booleans
// as true/false. nullopt (with an error) for null, arrays and objects.
std::optional<std::string> scalar_text(const Json& value, const std::string& pointer,
                                       const std::string& what, Errors& errors) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  errors.add(pointer,
             fmt::format("{} must be a string, number or boolean, not {}", what, json_kind(value)));
  return std::nullopt;
}

std::map<std::string, std::string> get_params(const Json& object, const std::string& pointer,
                                              Errors& errors) {
  std::map<std::string, std::string> params;
  const auto it = object.find("params");
  if (it == object.end()) return params;
  const std::string at = json_pointer_child(pointer, "params");
  if (!it->is_object()) {
    errors.add(at, fmt::format("'params' must be an object of key: value, not {}", json_kind(*it)));
    return params;
  }
  for (const auto& [key, value] : it->items()) {
    if (key.empty()) {
      errors.add(json_pointer_child(at, key), "a parameter name is empty");
      continue;
    }
    if (key == "destructive" || key == "force_signature") {
      // Leave to the user at the command line, never to a file that may be shared or reused.
      errors.add(
          json_pointer_child(at, key),
          fmt::format("'{}' may not come from a suite file: it lets a run overwrite whole "
                      "block devices; remove it and give {} on the command line",
                      key, key == "destructive" ? "--destructive=SERIAL" : "--force-signature"));
      continue;
    }
    if (auto text = scalar_text(value, json_pointer_child(at, key),
                                fmt::format("parameter '{}'", key), errors)) {
      params[key] = *text;
    }
  }
  return params;
}

std::vector<std::filesystem::path> get_targets(const Json& object, const std::string& pointer,
                                               Errors& errors) {
  std::vector<std::filesystem::path> targets;
  const auto it = object.find("targets");
  if (it == object.end()) return targets;
  const std::string at = json_pointer_child(pointer, "targets");
  if (!it->is_array()) {
    errors.add(at,
               fmt::format("'targets' must be an array of directories, not {}", json_kind(*it)));
    return targets;
  }
  if (it->empty())
    errors.add(at, "'targets' is empty; list at least one directory or leave it out");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& t = (*it)[i];
    if (!t.is_string() || t.get<std::string>().empty()) {
      errors.add(json_pointer_child(at, i),
                 fmt::format("a target must be a non-empty path string, not {}",
                             t.is_string() ? "an empty string" : json_kind(t)));
      continue;
    }
    targets.emplace_back(t.get<std::string>());
  }
  return targets;
}

std::chrono::nanoseconds get_duration(const Json& object, const char* key,
                                      const std::string& pointer, Errors& errors) {
  const auto text = get_string(object, key, pointer, errors);
  if (!text) return std::chrono::nanoseconds(0);
  try {
    return parse_duration(*text, key);
  } catch (const ConfigError& e) {
    errors.add(json_pointer_child(pointer, key), e.what());
    return std::chrono::nanoseconds(0);
  }
}

std::optional<SweepSpec> get_sweep(const Json& step, const std::string& pointer, Errors& errors) {
  const auto it = step.find("sweep");
  if (it == step.end()) return std::nullopt;
  const std::string at = json_pointer_child(pointer, "sweep");
  if (!it->is_object()) {
    errors.add(at, fmt::format("'sweep' must be an object {{\"param\": ..., \"values\": [...]}}, "
                               "not {}",
                               json_kind(*it)));
    return std::nullopt;
  }
  check_keys(*it, kSweepKeys, at, errors);
  SweepSpec sweep;
  if (const auto param = get_string(*it, "param", at, errors)) {
    sweep.param = *param;
    if (sweep.param.empty())
      errors.add(json_pointer_child(at, "param"), "'param' is empty; name an integer param");
  } else if (!it->contains("param")) {
    errors.add(at, "'sweep' needs 'param', the integer param to vary (e.g. \"threads\")");
  }
  const auto values = it->find("values");
  if (values == it->end()) {
    errors.add(at, "'sweep' needs 'values', e.g. [1, 2, 4, 8]");
  } else if (!values->is_array() || values->empty()) {
    errors.add(json_pointer_child(at, "values"),
               fmt::format("'values' must be a non-empty array, not {}",
                           values->is_array() ? "an empty one" : json_kind(*values)));
  } else {
    std::set<std::uint64_t> seen;
    std::set<std::string> seen_expressions;
    for (std::size_t i = 0; i < values->size(); ++i) {
      const Json& v = (*values)[i];
      const std::string vp = json_pointer_child(json_pointer_child(at, "values"), i);
      std::string text;
      if (v.is_number_unsigned()) {
        text = std::to_string(v.get<std::uint64_t>());
      } else if (v.is_string()) {
        text = v.get<std::string>();
      } else {
        errors.add(vp, fmt::format("a sweep value must be a non-negative integer or a size such "
                                   "as \"64k\", not {}",
                                   json_kind(v)));
        continue;
      }
      // A size expression ("ram/4") resolves per run, on the machine that runs it.
      const bool expression = detail::is_size_expression(text);
      bool repeated = false;
      if (expression) {
        repeated = !seen_expressions.insert(detail::to_lower(text)).second;
      } else {
        try {
          repeated = !seen.insert(parse_size(text, "sweep value")).second;
        } catch (const ConfigError&) {
          errors.add(vp, fmt::format("sweep value '{}' is neither an integer, a size (e.g. 64k) "
                                     "nor a size expression (e.g. ram/4)",
                                     text));
          continue;
        }
      }
      if (repeated) {
        errors.add(vp, fmt::format("sweep value '{}' is repeated; give each value once", text));
        continue;
      }
      sweep.values.push_back(text);
    }
  }
  return sweep;
}

SuiteStep parse_step(const Json& j, std::size_t index, Errors& errors) {
  const std::string pointer = json_pointer_child("/steps", index);
  SuiteStep step;
  if (!j.is_object()) {
    errors.add(pointer, fmt::format("a step must be an object, not {}", json_kind(j)));
    return step;
  }
  check_keys(j, kStepKeys, pointer, errors);
  if (const auto workload = get_string(j, "workload", pointer, errors)) {
    step.workload = *workload;
    if (step.workload.empty())
      errors.add(json_pointer_child(pointer, "workload"), "'workload' is empty");
  } else if (!j.contains("workload")) {
    errors.add(pointer, "step has no 'workload'; name one (see 'iobench list')");
  }
  step.name = get_string(j, "name", pointer, errors).value_or("");
  step.params = get_params(j, pointer, errors);
  step.targets = get_targets(j, pointer, errors);
  if (const auto it = j.find("repeat"); it != j.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
        it->get<std::int64_t>() > static_cast<std::int64_t>(kMaxRepeat)) {
      errors.add(
          json_pointer_child(pointer, "repeat"),
          fmt::format("'repeat' must be an integer from 1 to {}, not {}", kMaxRepeat, it->dump()));
    } else {
      step.repeat = static_cast<unsigned>(it->get<std::int64_t>());
    }
  }
  step.sweep = get_sweep(j, pointer, errors);
  if (step.sweep && !step.sweep->param.empty() && step.params.count(step.sweep->param) > 0) {
    errors.add(json_pointer_child(json_pointer_child(pointer, "params"), step.sweep->param),
               fmt::format("'{}' is swept and also set in params; remove it from params",
                           step.sweep->param));
  }
  step.engine = get_string(j, "engine", pointer, errors).value_or("");
  step.time_limit = get_duration(j, "time", pointer, errors);
  step.warmup = get_duration(j, "warmup", pointer, errors);
  step.interval = get_duration(j, "interval", pointer, errors);
  if (j.contains("interval") && j["interval"].is_string() && step.interval.count() != 0 &&
      (step.interval < kMinSeriesInterval || step.interval > kMaxSeriesInterval)) {
    errors.add(json_pointer_child(pointer, "interval"),
               fmt::format("\"{}\": the time-series interval must be 100ms to 60s, e.g. \"1s\"",
                           printable(j["interval"].get<std::string>())));
    step.interval = std::chrono::nanoseconds(0);
  }
  if (const auto it = j.find("ops"); it != j.end()) {
    bool parsed = false;
    if (it->is_number_unsigned()) {
      step.ops_limit = it->get<std::uint64_t>();
      parsed = true;
    } else if (const auto ops = get_string(j, "ops", pointer, errors)) {
      try {
        step.ops_limit = parse_count(*ops, "ops");
        parsed = true;
      } catch (const ConfigError& e) {
        errors.add(json_pointer_child(pointer, "ops"), e.what());
      }
    }
    if (parsed && step.ops_limit == 0) {
      errors.add(json_pointer_child(pointer, "ops"),
                 "'ops' must be at least 1; leave it out for no op limit");
    }
  }
  step.drop_caches = get_bool(j, "drop_caches", pointer, errors);
  if (const auto it = j.find("seed"); it != j.end()) {
    // A number, or its decimal text as results write seeds (a 64-bit seed loses digits as a JSON
    // number in jq or JavaScript).
    std::uint64_t seed = 0;
    if (it->is_number_unsigned()) {
      seed = it->get<std::uint64_t>();
    } else if (it->is_string()) {
      const std::string& digits = it->get_ref<const std::string&>();
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
      if (ec != std::errc() || end != digits.data() + digits.size()) seed = 0;
    }
    if (seed == 0) {
      errors.add(json_pointer_child(pointer, "seed"),
                 fmt::format("'seed' must be an integer of 1 or more, as a number or its decimal "
                             "text (leave it out for a random seed, which is reported), not {}",
                             it->is_number() || it->is_string() ? it->dump() : json_kind(*it)));
    } else {
      step.seed = seed;
    }
  }
  return step;
}

std::string default_name(std::string_view source) {
  std::string name(source);
  if (const auto slash = name.find_last_of('/'); slash != std::string::npos) {
    name = name.substr(slash + 1);
  }
  if (name.size() > 5 && name.ends_with(".json")) name.resize(name.size() - 5);
  return name;
}

// Refuses a key given twice in one object while the text is parsed: nlohmann_json keeps the
// last one silently, so {"name":"s","name":"t"} would run suite "t" and never say so.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string_view source) : source_(source) {}

  bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    switch (event) {
      case Event::object_start:
        frames_.push_back(Frame{.object = true});
        break;
      case Event::array_start:
        frames_.push_back(Frame{.object = false});
        break;
      case Event::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second) {
          throw ConfigError(fmt::format(
              "{}: {}: key '{}' is given twice in one object (only one of the values would "
              "count); give each key once",
              source_, pointer(), printable(frame.key)));
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Event::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object = true;
    std::set<std::string> keys{};
    std::string key{};      // object: the member being parsed
    std::size_t index = 0;  // array: the element being parsed
  };
  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }
  // The JSON pointer of the member being parsed.
  [[nodiscard]] std::string pointer() const {
    std::string out;
    for (const Frame& frame : frames_) {
      out =
          frame.object ? json_pointer_child(out, frame.key) : json_pointer_child(out, frame.index);
    }
    return out;
  }

  std::string source_;
  std::vector<Frame> frames_;
};

}  // namespace

Suite parse_suite(std::string_view text, std::string_view source) {
  Errors errors(source);
  Json root;
  try {
    root = Json::parse(text.begin(), text.end(), DuplicateKeyCheck(source), true, true);
  } catch (const Json::parse_error& e) {
    // Line and column of the byte where parsing failed (1-based).
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    if (const auto pos = what.find("syntax error"); pos != std::string::npos)
      what = what.substr(pos);
    throw ConfigError(
        fmt::format("{}: line {} column {}: not valid JSON: {}", source, line, column, what));
  } catch (const Json::out_of_range& e) {
    // A number beyond a double (1e400) is out_of_range, not a parse_error, and has no position.
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw ConfigError(
        fmt::format("{}: not valid JSON: {}; numbers must be within +-1.7e308", source, what));
  }
  Suite suite;
  suite.source = std::string(source);
  suite.text = std::string(text);
  if (!root.is_object()) {
    errors.add(
        "", fmt::format("a suite must be a JSON object with \"steps\", not {}", json_kind(root)));
    errors.throw_if_any();
  }
  check_keys(root, kSuiteKeys, "", errors);
  suite.name = get_string(root, "name", "", errors).value_or(default_name(source));
  suite.description = get_string(root, "description", "", errors).value_or("");
  suite.targets = get_targets(root, "", errors);
  suite.params = get_params(root, "", errors);
  suite.drop_caches = get_bool(root, "drop_caches", "", errors).value_or(false);
  suite.pause = get_duration(root, "pause", "", errors);
  const auto steps = root.find("steps");
  if (steps == root.end()) {
    errors.add("", "the suite has no 'steps'; add \"steps\": [{\"workload\": ...}]");
  } else if (!steps->is_array() || steps->empty()) {
    errors.add("/steps", fmt::format("'steps' must be a non-empty array, not {}",
                                     steps->is_array() ? "an empty one" : json_kind(*steps)));
  } else {
    for (std::size_t i = 0; i < steps->size(); ++i) {
      suite.steps.push_back(parse_step((*steps)[i], i, errors));
    }
  }
  // Names: default to the workload, numbered when several unnamed steps share a workload.
  std::map<std::string, std::size_t> workload_count;  // of unnamed steps
  for (const SuiteStep& step : suite.steps) {
    if (step.name.empty()) ++workload_count[step.workload];
  }
  std::map<std::string, std::size_t> workload_seen;
  std::set<std::string> names;
  for (std::size_t i = 0; i < suite.steps.size(); ++i) {
    SuiteStep& step = suite.steps[i];
    if (step.name.empty()) {
      const std::size_t n = ++workload_seen[step.workload];
      step.name = workload_count[step.workload] > 1 ? fmt::format("{} {}", step.workload, n)
                                                    : step.workload;
    }
    if (!names.insert(step.name).second) {
      errors.add(
          json_pointer_child(json_pointer_child("/steps", i), "name"),
          fmt::format("step name '{}' is used twice; names must be unique", printable(step.name)));
    }
  }
  errors.throw_if_any();
  return suite;
}

Suite load_suite_file(const std::filesystem::path& path) {
  return parse_suite(read_input_file(path, "suite file"), path.filename().string());
}

}  // namespace iobench
