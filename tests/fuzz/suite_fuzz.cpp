// Fuzz target: suite files (JSON with // and /* */ comments) through parse_suite, then planning
// (plan_suite: defaults, overrides, sweeps and repetitions expanded, every run validated by the
// Runner, the workloads' factories included), as `iobench validate FILE.json` does.
//
// Invariants: only ConfigError is thrown, every line of its message naming the suite file; a
// parsed suite written back as JSON parses to the same Suite; a plan has one run per sweep point
// and repetition of every step, in step order, each on the command line's target.
// Planning touches nothing but the one temporary target directory: -d replaces every step's
// targets, and dbench steps read a small loadfile in it instead of any path the input names.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/suite.hpp>
#include <iobench/workloads.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "suite/units_detail.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "util/duration_text.hpp"

namespace {

using Json = nlohmann::ordered_json;
constexpr std::string_view kSource = "fuzz.json";

const iobench::Registry& registry() {
  static const iobench::Registry instance = iobench::make_builtin_registry();
  return instance;
}

// A fresh directory for the whole process, removed at exit.
const std::filesystem::path& target_dir() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "iobench-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    std::ofstream(std::filesystem::path(pattern) / "load.txt")
        << "NTCreateX \"\\clients\\client1\\a\" 0x0 0x1 1 NT_STATUS_OK\n"
           "WriteX 1 0 4096 4096 NT_STATUS_OK\n"
           "Close 1 NT_STATUS_OK\n";
    static const std::string removed = pattern;
    std::atexit([] { std::filesystem::remove_all(removed); });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

Json param_object(const std::map<std::string, std::string>& params) {
  Json out = Json::object();
  for (const auto& [key, value] : params) out[key] = value;
  return out;
}

Json target_array(const std::vector<std::filesystem::path>& targets) {
  Json out = Json::array();
  for (const auto& t : targets) out.push_back(t.string());
  return out;
}

std::string duration_text(std::chrono::nanoseconds ns) {
  return iobench::detail::format_duration(static_cast<std::uint64_t>(ns.count()),
                                          iobench::detail::DurationStyle::kExact);
}

// The suite as a suite file that says everything explicitly.
std::string to_suite_file(const iobench::Suite& suite) {
  Json root = Json::object();
  root["name"] = suite.name;
  root["description"] = suite.description;
  if (!suite.targets.empty()) root["targets"] = target_array(suite.targets);
  root["params"] = param_object(suite.params);
  root["drop_caches"] = suite.drop_caches;
  root["pause"] = duration_text(suite.pause);
  Json steps = Json::array();
  for (const iobench::SuiteStep& step : suite.steps) {
    Json s = Json::object();
    s["name"] = step.name;
    s["workload"] = step.workload;
    s["params"] = param_object(step.params);
    if (!step.targets.empty()) s["targets"] = target_array(step.targets);
    s["repeat"] = step.repeat;
    if (step.sweep) s["sweep"] = Json{{"param", step.sweep->param}, {"values", step.sweep->values}};
    s["engine"] = step.engine;
    s["time"] = duration_text(step.time_limit);
    s["warmup"] = duration_text(step.warmup);
    if (step.ops_limit != 0) s["ops"] = step.ops_limit;
    if (step.drop_caches) s["drop_caches"] = *step.drop_caches;
    if (step.seed != 0) s["seed"] = step.seed;
    steps.push_back(std::move(s));
  }
  root["steps"] = std::move(steps);
  return root.dump(1);
}

bool same_step(const iobench::SuiteStep& a, const iobench::SuiteStep& b) {
  const bool same_sweep =
      a.sweep.has_value() == b.sweep.has_value() &&
      (!a.sweep || (a.sweep->param == b.sweep->param && a.sweep->values == b.sweep->values));
  return a.name == b.name && a.workload == b.workload && a.params == b.params &&
         a.targets == b.targets && a.repeat == b.repeat && same_sweep && a.engine == b.engine &&
         a.time_limit == b.time_limit && a.warmup == b.warmup && a.ops_limit == b.ops_limit &&
         a.drop_caches == b.drop_caches && a.seed == b.seed;
}

bool same_suite(const iobench::Suite& a, const iobench::Suite& b) {
  if (a.name != b.name || a.description != b.description || a.source != b.source ||
      a.targets != b.targets || a.params != b.params || a.drop_caches != b.drop_caches ||
      a.pause != b.pause || a.steps.size() != b.steps.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    if (!same_step(a.steps[i], b.steps[i])) return false;
  }
  return true;
}

void check_message(const iobench::ConfigError& e) {
  const std::string_view message = e.what();
  FUZZ_CHECK(!message.empty(), "empty message");
  for (std::size_t pos = 0; pos <= message.size();) {
    const std::size_t eol = std::min(message.find('\n', pos), message.size());
    FUZZ_CHECK(message.substr(pos, eol - pos).starts_with(kSource), message);
    pos = eol + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  std::optional<iobench::Suite> suite;
  try {
    suite = iobench::parse_suite(text, kSource);
  } catch (const iobench::ConfigError& e) {
    check_message(e);
    return 0;
  }
  FUZZ_CHECK(!suite->steps.empty(), "a suite without steps");
  const std::string written = to_suite_file(*suite);
  try {
    const iobench::Suite again = iobench::parse_suite(written, kSource);
    FUZZ_CHECK(same_suite(*suite, again), written);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(false, std::string(e.what()) + "\n" + written);
  }

  iobench::SuiteOverrides overrides;
  overrides.targets = {target_dir()};
  overrides.params["dbench.loadfile"] = (target_dir() / "load.txt").string();
  const iobench::RunOptions options;
  std::optional<iobench::SuitePlan> plan;
  try {
    plan = iobench::plan_suite(*suite, registry(), overrides, options);
  } catch (const iobench::ConfigError& e) {
    check_message(e);
    return 0;
  }
  std::size_t expected_runs = 0;
  for (const iobench::SuiteStep& step : plan->suite.steps) {
    expected_runs += (step.sweep ? step.sweep->values.size() : 1) * step.repeat;
  }
  FUZZ_CHECK(plan->runs.size() == expected_runs, written);
  std::size_t previous_step = 0;
  for (const iobench::PlannedRun& run : plan->runs) {
    FUZZ_CHECK(run.suite_step < plan->suite.steps.size() && run.suite_step >= previous_step,
               run.step.name);
    previous_step = run.suite_step;
    const iobench::SuiteStep& step = plan->suite.steps[run.suite_step];
    FUZZ_CHECK(run.repetition < step.repeat, run.step.name);
    FUZZ_CHECK(run.point < (step.sweep ? step.sweep->values.size() : 1), run.step.name);
    FUZZ_CHECK(run.step.workload == step.workload, run.step.name);
    FUZZ_CHECK(run.step.targets == overrides.targets, run.step.name);
    FUZZ_CHECK(run.step.name.starts_with(step.name), run.step.name);
  }
  return 0;
}
