#include "commands.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <iobench/version.hpp>

#include "default_job.hpp"
#include "plugins/builtin_plugins.hpp"
#include "progress_printer.hpp"

namespace iobench::cli {
namespace {

const char* type_name(ParamType type) {
  switch (type) {
    case ParamType::kBool: return "bool";
    case ParamType::kCount: return "count";
    case ParamType::kSize: return "size";
    case ParamType::kInt: return "int";
    case ParamType::kDouble: return "number";
    case ParamType::kDuration: return "duration";
    case ParamType::kEnum: return "choice";
    case ParamType::kString: return "text";
  }
  return "text";
}

void print_list(const Registry& registry) {
  fmt::print("Workloads (iobench run WORKLOAD key=value ...):\n");
  for (const WorkloadInfo* info : registry.workloads()) {
    fmt::print("\n{}: {}\n", info->name, info->summary);
    for (const ParamSpec& spec : info->params) {
      std::string detail = type_name(spec.type);
      if (!spec.unit.empty()) detail += ", " + spec.unit;
      if (!spec.choices.empty()) detail += ": " + fmt::format("{}", fmt::join(spec.choices, "|"));
      if (spec.min || spec.max) {
        detail += fmt::format(", {}..{}", spec.min ? fmt::format("{}", *spec.min) : "",
                              spec.max ? fmt::format("{}", *spec.max) : "");
      }
      const std::string default_text =
          spec.required ? "required" : spec.default_value.empty() ? "unset" : spec.default_value;
      fmt::print("  {:<16} {:<12} ({})  {}\n", spec.key, default_text, detail, spec.help);
    }
  }
  fmt::print("\nEngines: {}\n", fmt::join(registry.engine_names(), ", "));
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

std::vector<Step> build_steps(const CliOptions& options, const std::filesystem::path& default_dir) {
  std::vector<std::filesystem::path> targets(options.targets.begin(), options.targets.end());
  std::vector<Step> steps;
  if (options.workload.empty()) {
    if (!options.params.empty()) {
      throw ConfigError(fmt::format("parameter '{}' given without a workload; name one, e.g. "
                                    "'iobench run disk bs=4k'",
                                    options.params.begin()->first));
    }
    if (targets.size() > 1) {
      throw ConfigError("the default job takes one target (-d DIR); name a workload for more");
    }
    steps = default_job(targets.empty() ? default_dir : targets.front());
  } else {
    steps.push_back(Step{.name = options.workload,
                         .workload = options.workload,
                         .params = options.params,
                         .targets = targets.empty() ? std::vector{default_dir} : targets});
  }
  for (Step& step : steps) {
    step.engine = options.engine;
    if (options.time_limit.count() > 0) step.time_limit = options.time_limit;
    if (options.warmup.count() > 0) step.warmup = options.warmup;
    if (options.ops_limit > 0) step.ops_limit = options.ops_limit;
    step.drop_caches = options.drop_caches;
    step.seed = options.seed;
  }
  return steps;
}

int exit_status(Status status) {
  switch (status) {
    case Status::kOk:
    case Status::kSkipped: return 0;
    case Status::kFailed: return 1;
    case Status::kInterrupted: return 130;
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

  const bool needs_default_dir = options.targets.empty();
  if (!options.workload.empty()) (void)registry.workload(options.workload);  // fail before mkdtemp
  std::optional<DefaultTarget> default_dir;
  if (needs_default_dir && options.command == Command::kRun) default_dir.emplace(options.keep);
  const std::filesystem::path default_path =
      default_dir ? default_dir->path() : std::filesystem::temp_directory_path();
  const std::vector<Step> steps = build_steps(options, default_path);

  ProgressPrinter progress(std::cerr, ::isatty(2) != 0);
  RunOptions run_options{.keep_files = options.keep,
                         .fail_fast = options.fail_fast,
                         .progress_interval = options.progress_interval};
  if (!options.quiet && options.progress_interval.count() > 0) {
    run_options.on_progress = [&progress](const ProgressSnapshot& s) { progress.update(s); };
  }
  Runner runner(registry, run_options);
  if (options.command == Command::kValidate) {
    runner.validate(steps);
    fmt::print("ok: {} step(s) valid\n", steps.size());
    return 0;
  }
  if (default_dir) fmt::print(stderr, "iobench: target {} (temporary)\n", default_dir->path().string());

  // Output files are written only after the run, so bad input leaves nothing behind.
  std::ostringstream file_text;
  ReporterSet reporters;
  const bool to_file = !options.output_path.empty();
  if (options.format == "text") {
    reporters.add(make_text_reporter(to_file ? static_cast<std::ostream&>(file_text) : std::cout,
                                     registry));
  } else {
    reporters.add(make_text_reporter(to_file ? std::cout : std::cerr, registry));
    std::ostream& machine = to_file ? static_cast<std::ostream&>(file_text) : std::cout;
    reporters.add(options.format == "json" ? make_json_reporter(machine)
                                           : make_csv_reporter(machine, registry));
  }
  install_stop_signal_handlers();
  const RunResult result = runner.run(steps, reporters);
  progress.finish();
  if (to_file) {
    std::ofstream out(options.output_path, std::ios::binary | std::ios::trunc);
    out << file_text.str();
    out.flush();
    if (!out) {
      fmt::print(stderr, "iobench: cannot write {}: {}\n", options.output_path,
                 std::strerror(errno));
      return 1;
    }
  }
  if (options.keep && default_dir) {
    fmt::print(stderr, "iobench: files kept in {}\n", default_dir->path().string());
  }
  return exit_status(result.status);
}

}  // namespace iobench::cli
