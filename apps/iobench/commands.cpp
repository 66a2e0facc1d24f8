#include "commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <iobench/suite.hpp>
#include <iobench/version.hpp>
#include <iostream>
#include <sstream>

#include "plan_printer.hpp"
#include "plugins/builtin_plugins.hpp"
#include "progress_printer.hpp"

namespace iobench::cli {
namespace {

void print_list(const Registry& registry) {
  fmt::print("Workloads (iobench run WORKLOAD key=value ...):\n");
  for (const WorkloadInfo* info : registry.workloads()) {
    fmt::print("\n{}: {}\n", info->name, info->summary);
    for (const ParamSpec& spec : info->params) {
      std::string detail(to_string(spec.type));
      if (!spec.unit.empty()) detail += ", " + spec.unit;
      if (!spec.choices.empty()) detail += ": " + fmt::format("{}", fmt::join(spec.choices, "|"));
      if (spec.min || spec.max) {
        // Duration bounds are nanoseconds: show them with a unit.
        const auto bound = [&spec](std::optional<std::uint64_t> value) {
          if (!value) return std::string();
          return spec.type == ParamType::kDuration ? format_duration(*value)
                                                   : fmt::format("{}", *value);
        };
        detail += fmt::format(", {}..{}", bound(spec.min), bound(spec.max));
      }
      const std::string default_text = spec.required                ? "required"
                                       : spec.default_value.empty() ? "unset"
                                                                    : spec.default_value;
      fmt::print("  {:<16} {:<12} ({})  {}\n", spec.key, default_text, detail, spec.help);
    }
  }
  fmt::print("\nEngines: {}\n", fmt::join(registry.engine_names(), ", "));
  fmt::print(
      "\nSuites (iobench run SUITE [key=value]..., suite:SUITE where a workload has the same "
      "name, or a suite file FILE.json):\n");
  for (const BuiltinSuite& builtin : builtin_suites()) {
    fmt::print("  {:<14} {}\n", builtin.name, builtin.summary);
  }
}

// A temporary directory for the default target; removed at exit unless --keep.
class DefaultTarget {
 public:
  explicit DefaultTarget(bool keep) : keep_(keep) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/iobench-target.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw IoError(errno, "mkdtemp", pattern);
    path_ = pattern;
  }
  ~DefaultTarget() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove(path_, ec);  // empty by now: the runner removed its run directories
  }
  DefaultTarget(const DefaultTarget&) = delete;
  DefaultTarget& operator=(const DefaultTarget&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool keep_;
};

// What the positional argument names, in this order: a suite file (ends in .json or is an
// existing file), a workload, a built-in suite (`suite:NAME` reaches a built-in suite whose name
// is also a workload, e.g. suite:dbench, the client sweep). No argument: the built-in `quick`.
std::optional<Suite> suite_for(const std::string& arg, const Registry& registry) {
  if (arg.empty()) return builtin_suite("quick");
  constexpr std::string_view kSuitePrefix = "suite:";
  if (arg.starts_with(kSuitePrefix)) {
    const std::string name = arg.substr(kSuitePrefix.size());
    if (auto suite = builtin_suite(name)) return suite;
    throw ConfigError(
        fmt::format("'{}': there is no built-in suite '{}' (see 'iobench list')", arg, name));
  }
  std::error_code ec;
  if (arg.ends_with(".json") || std::filesystem::is_regular_file(arg, ec)) {
    return load_suite_file(arg);
  }
  for (const WorkloadInfo* info : registry.workloads()) {
    if (info->name == arg) return std::nullopt;
  }
  return builtin_suite(arg);
}

// True if some step of `suite` has no targets of its own or from the suite.
bool needs_default_target(const Suite& suite) {
  if (!suite.targets.empty()) return false;
  for (const SuiteStep& step : suite.steps) {
    if (step.targets.empty()) return true;
  }
  return false;
}

// -o is written after the run; refuse a path that cannot be written before any I/O.
void check_output_path(const std::string& text) {
  if (text.empty()) return;
  const std::filesystem::path path(text);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(
        fmt::format("-o: '{}' is a directory; give a file name, e.g. {}/result.json", text, text));
  }
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  if (!std::filesystem::is_directory(dir, ec)) {
    throw ConfigError(fmt::format("-o: directory '{}' of '{}' does not exist; create it first",
                                  dir.string(), text));
  }
  const bool exists = std::filesystem::exists(path, ec);
  if (exists ? ::access(path.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(
        fmt::format("-o: cannot write '{}' ({}); choose another file", text, std::strerror(errno)));
  }
}

SuiteOverrides overrides_from(const CliOptions& options, const std::filesystem::path& default_dir) {
  SuiteOverrides o;
  o.targets.assign(options.targets.begin(), options.targets.end());
  o.default_target = default_dir;
  o.params = options.params;
  o.engine = options.engine_given ? options.engine : std::string();
  o.time_limit = options.time_limit;
  o.warmup = options.warmup;
  o.ops_limit = options.ops_limit;
  o.drop_caches = options.drop_caches;
  o.seed = options.seed;
  return o;
}

// A single workload run as a one-step plan, validated by the runner (its own messages).
SuitePlan workload_plan(const CliOptions& options, const std::filesystem::path& default_dir,
                        const Runner& runner) {
  Step step{.name = options.workload,
            .workload = options.workload,
            .params = options.params,
            .targets = {options.targets.begin(), options.targets.end()}};
  if (step.targets.empty()) step.targets.push_back(default_dir);
  step.engine = options.engine;
  step.time_limit = options.time_limit;
  step.warmup = options.warmup;
  step.ops_limit = options.ops_limit;
  step.drop_caches = options.drop_caches;
  step.seed = options.seed;
  runner.validate(std::span<const Step>(&step, 1));
  SuitePlan plan;
  plan.suite.name = options.workload;
  plan.suite.source = options.workload;
  plan.suite.steps.push_back(
      SuiteStep{.name = step.name, .workload = step.workload, .params = step.params});
  plan.runs.push_back(PlannedRun{.step = std::move(step)});
  return plan;
}

int exit_status(Status status) {
  switch (status) {
    case Status::kOk:
    case Status::kSkipped:
      return 0;
    case Status::kFailed:
      return 1;
    case Status::kInterrupted:
      return 130;
  }
  return 1;
}

}  // namespace

int run_command(const CliOptions& options) {
  using Command = CliOptions::Command;
  if (options.command == Command::kHelp) {
    std::cout << options.help_text;
    return 0;
  }
  if (options.command == Command::kVersion) {
    fmt::print("iobench {}\n", IOBENCH_VERSION);
    return 0;
  }
  Registry registry;
  register_builtins(registry);
  plugins::register_all(registry);
  for (const std::string& plugin : options.plugins) load_plugin(registry, plugin);
  if (options.command == Command::kList) {
    print_list(registry);
    return 0;
  }

  check_output_path(options.output_path);
  // Fail on a bad suite file or workload name before creating anything.
  const std::optional<Suite> suite = suite_for(options.workload, registry);
  if (!suite) (void)registry.workload(options.workload);
  const bool needs_default_dir =
      options.targets.empty() && (!suite || needs_default_target(*suite));
  std::optional<DefaultTarget> default_dir;
  if (needs_default_dir && options.command == Command::kRun) default_dir.emplace(options.keep);
  const std::filesystem::path default_path =
      default_dir ? default_dir->path() : std::filesystem::temp_directory_path();

  SuiteRunOptions suite_options{.run = RunOptions{.keep_files = options.keep,
                                                  .fail_fast = options.fail_fast,
                                                  .progress_interval = options.progress_interval},
                                .on_progress = {}};
  const Runner runner(registry, suite_options.run);
  const SuitePlan plan =
      suite ? plan_suite(*suite, registry, overrides_from(options, default_path), suite_options.run)
            : workload_plan(options, default_path, runner);
  if (options.command == Command::kValidate) {
    std::vector<Step> steps;
    for (const PlannedRun& run : plan.runs) steps.push_back(run.step);
    const std::vector<Runner::StepPreview> previews = runner.preview(steps);  // may still throw
    if (suite) {
      fmt::print("ok: suite '{}': {} step(s), {} run(s) valid\n", plan.suite.name,
                 plan.suite.steps.size(), plan.runs.size());
    } else {
      fmt::print("ok: 1 step(s) valid\n");
    }
    std::cout.flush();
    print_plan(plan, previews, std::cout);
    return 0;
  }
  if (default_dir && !options.quiet)
    fmt::print(stderr, "iobench: target {} (temporary)\n", default_dir->path().string());
  if (suite && !options.quiet) {
    fmt::print(stderr, "iobench: suite '{}' ({}): {} run(s)\n", plan.suite.name, plan.suite.source,
               plan.runs.size());
  }

  ProgressPrinter progress(std::cerr, ::isatty(2) != 0);
  if (!options.quiet && options.progress_interval.count() > 0) {
    suite_options.on_progress = [&progress](const SuiteProgress& p) { progress.update(p); };
  }

  // Output files are written only after the run, so bad input leaves nothing behind.
  std::ostringstream file_text;
  ReporterSet reporters;
  const bool to_file = !options.output_path.empty();
  std::ostream& text_out = (options.format == "text" && to_file)
                               ? static_cast<std::ostream&>(file_text)
                           : options.format == "text" || to_file ? std::cout
                                                                 : std::cerr;
  std::ostream& machine = to_file ? static_cast<std::ostream&>(file_text) : std::cout;
  reporters.add(make_text_reporter(text_out, registry));
  if (options.format == "csv") reporters.add(make_csv_reporter(machine, registry));
  install_stop_signal_handlers();
  const SuiteRunResult result = run_suite(plan, registry, suite_options, reporters);
  progress.finish();
  write_suite_summary_text(result, text_out);
  if (options.format == "json") machine << suite_to_json(plan, result, 2) << '\n';
  if (to_file) {
    std::ofstream out(options.output_path, std::ios::binary | std::ios::trunc);
    out << file_text.str();
    out.flush();
    if (!out) {
      // Checked before the run, so this is rare (the disk filled up meanwhile): keep the results.
      fmt::print(stderr, "iobench: cannot write {}: {}; the results follow on stdout\n",
                 options.output_path, std::strerror(errno));
      std::cout << file_text.str();
      return 1;
    }
  }
  if (options.keep && default_dir) {
    fmt::print(stderr, "iobench: files kept in {}\n", default_dir->path().string());
  }
  return exit_status(result.run.status);
}

}  // namespace iobench::cli
