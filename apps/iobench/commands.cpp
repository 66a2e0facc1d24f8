#include "commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <iobench/html_report.hpp>
#include <iobench/printable.hpp>
#include <iobench/registry.hpp>
#include <iobench/result_history.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <iobench/suite.hpp>
#include <iobench/version.hpp>
#include <iobench/workloads.hpp>
#include <iostream>
#include <set>
#include <sstream>

#include "again.hpp"
#include "compare_command.hpp"
#include "csv_outputs.hpp"
#include "history_command.hpp"
#include "kept_dirs.hpp"
#include "live_display.hpp"
#include "output_file.hpp"
#include "output_formats.hpp"
#include "plan_printer.hpp"
#include "progress_printer.hpp"
#include "report_command.hpp"
#include "run_results.hpp"

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
  fmt::print("\nEngines (--engine NAME[:OPTION,...], or the engine param of disk and tiotest):\n");
  for (const EngineInfo* engine : registry.engines()) {
    fmt::print("  {:<10} {}\n", engine->name, engine->summary);
    for (const EngineOptionSpec& option : engine->options) {
      fmt::print("    :{:<14} {}\n", option.name, option.help);
    }
  }
  fmt::print(
      "\nSuites (iobench run SUITE [key=value]..., suite:SUITE where a workload has the same "
      "name, or a suite file FILE.json):\n");
  for (const BuiltinSuite& builtin : builtin_suites()) {
    fmt::print("  {:<14} {}\n", builtin.name, builtin.summary);
  }
}

// Where the default target (no -d) is made: $TMPDIR, else /tmp.
std::filesystem::path temporary_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? std::filesystem::path(tmp) : "/tmp";
}

// Why `root` cannot hold the default target, or "" if it can.
std::string temporary_root_problem(const std::filesystem::path& root) {
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "Not a directory";
  if (::access(root.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return {};
}

// A temporary directory for the default target; removed at exit unless --keep.
class DefaultTarget {
 public:
  DefaultTarget(const std::filesystem::path& root, bool keep) : keep_(keep) {
    std::string pattern = (root / "iobench-target.XXXXXX").string();
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
    throw ConfigError(fmt::format("'{}': there is no built-in suite '{}' (see 'iobench list')",
                                  printable(arg), printable(name)));
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

// Puts the default target, made after validation, into the runs validated against the
// directory it was made in: those whose step, suite and command line give no targets.
void use_default_target(SuitePlan& plan, const CliOptions& options,
                        const std::filesystem::path& dir) {
  if (!options.targets.empty() || !plan.suite.targets.empty()) return;
  for (PlannedRun& run : plan.runs) {
    const bool has_own = run.suite_step < plan.suite.steps.size() &&
                         !plan.suite.steps[run.suite_step].targets.empty();
    if (!has_own) run.step.targets = {dir};
  }
}

// True if `workload` times its own warm-up through a duration param "warmup" (as the runner
// decides where --warmup goes).
bool declares_warmup(const Registry& registry, const std::string& workload) {
  const WorkloadInfo* found = nullptr;
  try {
    found = &registry.workload(workload);
  } catch (const ConfigError&) {
    return false;  // reported with the suite's other problems
  }
  const WorkloadInfo& info = *found;
  return std::any_of(info.params.begin(), info.params.end(), [](const ParamSpec& spec) {
    return spec.key == "warmup" && spec.type == ParamType::kDuration;
  });
}

// An explicit --warmup 0 means no warm-up at all: a step's own warm-up and a workload's default
// one (dbench: time_limit / 5) included, not "keep what there is" as a 0 in the options does.
void apply_zero_warmup(const CliOptions& options, const Registry& registry,
                       std::optional<Suite>& suite, std::map<std::string, std::string>& params) {
  if (!options.warmup_given || options.warmup.count() != 0) return;
  bool declared = false;
  if (suite) {
    for (SuiteStep& step : suite->steps) {
      step.warmup = std::chrono::nanoseconds(0);
      declared = declared || declares_warmup(registry, step.workload);
    }
  } else {
    declared = declares_warmup(registry, options.workload);
  }
  if (declared) params.emplace("warmup", "0s");
}

SuiteOverrides overrides_from(const CliOptions& options, const std::filesystem::path& default_dir) {
  SuiteOverrides o;
  o.targets.assign(options.targets.begin(), options.targets.end());
  o.default_target = default_dir;
  o.params = options.params;
  o.engine = options.engine_given ? options.engine : std::string();
  o.time_limit = options.time_limit;
  o.warmup = options.warmup;
  if (options.interval_given) o.interval = options.interval;
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
  step.engine = options.engine_given ? options.engine : std::string();
  step.time_limit = options.time_limit;
  step.warmup = options.warmup;
  step.interval = options.interval;
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

// OutputFile's messages name -o: the same rules for another option name that option.
void check_output_option(std::string_view option, const std::string& path) {
  try {
    OutputFile::check(path);
  } catch (const ConfigError& e) {
    const std::string_view text = e.what();
    if (!text.starts_with("-o: ")) throw;
    throw ConfigError(fmt::format("{}: {}", option, text.substr(4)));
  }
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
    case Status::kNoMeasurement:
      return 3;
  }
  return 1;
}

// help, usage, version and the commands that need no workload registry; nothing for the others.
std::optional<int> run_registry_free_command(const CliOptions& options, std::ostream& err) {
  using Command = CliOptions::Command;
  if (options.command == Command::kHelp) {
    std::cout << options.help_text;
    return 0;
  }
  if (options.command == Command::kUsage) {
    // No command: bad usage, so not on stdout and not exit 0 (a script's `iobench $CMD` with
    // an empty $CMD must not pass).
    err << options.help_text;
    return 2;
  }
  if (options.command == Command::kVersion) {
    fmt::print("iobench {}\n", IOBENCH_VERSION);
    return 0;
  }
  if (options.command == Command::kCompare) return run_compare(options);
  if (options.command == Command::kReport) return run_report(options);
  if (options.command == Command::kHistory) return run_history(options);
  return std::nullopt;
}

// list and completion, which only read the registry; nothing for the others.
std::optional<int> run_registry_command(const CliOptions& options, const Registry& registry) {
  using Command = CliOptions::Command;
  if (options.command == Command::kList) {
    print_list(registry);
    return 0;
  }
  if (options.command == Command::kCompletion) {
    fmt::print("{}", completion_script(options.completion_shell, registry, completion_options()));
    return 0;
  }
  return std::nullopt;
}

// The output options, checked before anything is created.
void check_output_options(const CliOptions& options) {
  if (!options.output_path.empty()) OutputFile::check(options.output_path);
  if (!options.html_path.empty()) OutputFile::check(options.html_path);
  if (!options.time_series_csv_path.empty()) OutputFile::check(options.time_series_csv_path);
  if (!options.live_csv_path.empty()) check_output_option("--live-csv", options.live_csv_path);
  // --store: a new file is made only after the run; an existing one must be a history now.
  if (!options.store_path.empty()) check_history_for_store(options.store_path);
}

// What the run's input resolved to: the suite (none for one workload or a repeat) and the plan.
struct ResolvedRun {
  bool again = false;
  std::optional<Suite> suite;
  bool needs_default_dir = false;
  std::filesystem::path tmp_root;
  ResultDocument repeated;  // the result --again repeats
  SuitePlan plan;
};

// The suite or workload of the command line (the result to repeat has none).
std::optional<Suite> resolve_suite(const CliOptions& options, const Registry& registry,
                                   const RankContext& ranks, bool again) {
  std::optional<Suite> suite =
      again ? std::optional<Suite>() : suite_for(options.workload, registry);
  if (suite) {
    // A suite file's targets take the rank templates as -d does.
    const RankIdentity& who = ranks.coordinator.identity();
    for (auto& target : suite->targets) target = expand_rank_template(target.string(), who);
    for (SuiteStep& step : suite->steps) {
      for (auto& target : step.targets) target = expand_rank_template(target.string(), who);
    }
  }
  if (!suite && !again) (void)registry.workload(options.workload);
  return suite;
}

SuiteRunOptions suite_run_options(const CliOptions& options, RankContext& ranks) {
  SuiteRunOptions suite_options{
      .run = RunOptions{.keep_files = options.keep,
                        .fail_fast = options.fail_fast,
                        .progress_interval = options.progress_interval,
                        .stonewall = options.stonewall,
                        .wear_out = options.wear_out,
                        .explain = options.explain,
                        .explain_mode =
                            options.explain_syscalls ? ExplainMode::kSyscalls : ExplainMode::kOps},
      .on_progress = {}};
  if (ranks.ranked()) {
    suite_options.run.coordinator = &ranks.coordinator;
    suite_options.run.on_ranked_step = [&ranks](const RankedStep& step) {
      ranks.steps.push_back(step);
    };
  }
  return suite_options;
}

// The plan of the repeat, the suite or the workload; a bad input without -d also says when the
// default target's directory cannot be used.
void build_plan(const CliOptions& options, const CliOptions& effective, const Registry& registry,
                const Runner& runner, const SuiteRunOptions& suite_options, ResolvedRun& run) {
  try {
    run.plan = run.again   ? again_plan(options, runner, run.repeated)
               : run.suite ? plan_suite(*run.suite, registry,
                                        overrides_from(effective, run.tmp_root), suite_options.run)
                           : workload_plan(effective, run.tmp_root, runner);
  } catch (const ConfigError& e) {
    const std::string problem = run.needs_default_dir ? temporary_root_problem(run.tmp_root) : "";
    if (problem.empty()) throw;
    throw ConfigError(fmt::format(
        "{}\nno -d given: the target would be a new directory in '{}' (TMPDIR or /tmp), which "
        "cannot be used: {}; give -d DIR or set TMPDIR",
        e.what(), printable(run.tmp_root.string()), problem));
  }
}

// `validate`: previews every step (may still throw) and prints the plan.
int validate_plan(const CliOptions& options, const Runner& runner,
                  const std::vector<Step>& planned_steps, const ResolvedRun& run, std::ostream& out,
                  std::ostream& err) {
  const std::vector<Runner::StepPreview> previews =
      runner.preview(planned_steps);  // may still throw
  if (stop_requested()) {
    fmt::print(err, "iobench: interrupted during validation\n");
    return exit_status(Status::kInterrupted);
  }
  if (run.suite || run.again) {
    fmt::print("ok: {}suite '{}': {} step(s), {} run(s) valid\n",
               run.again ? fmt::format("repeat of {}: ", printable(options.again)) : std::string(),
               run.plan.suite.name, run.plan.suite.steps.size(), run.plan.runs.size());
  } else {
    fmt::print("ok: 1 step(s) valid\n");
  }
  out.flush();
  print_plan(run.plan, previews, out);
  return 0;
}

// What is run, on stderr unless -q.
void announce_run(const CliOptions& options, const ResolvedRun& run,
                  const std::optional<DefaultTarget>& default_dir, std::ostream& err) {
  if (default_dir && !options.quiet)
    fmt::print(err, "iobench: target {} (temporary)\n", default_dir->path().string());
  if (run.again && !options.quiet) {
    fmt::print(err, "iobench: repeating {} (suite '{}'): {} run(s) with their seeds\n",
               printable(options.again), run.plan.suite.name, run.plan.runs.size());
  }
  if (run.suite && !options.quiet) {
    fmt::print(err, "iobench: suite '{}' ({}): {} run(s)\n", run.plan.suite.name,
               run.plan.suite.source, run.plan.runs.size());
  }
}

// Where the run's progress goes: the plain or live line (`show_progress`) and --live or
// --live-csv's view (`live`), which refreshes at least every second when shown.
void route_progress(const CliOptions& options, bool show_progress, bool live_csv,
                    ProgressPrinter& progress, LiveDisplay& live, std::ostream& err,
                    SuiteRunOptions& suite_options) {
  if (show_progress) {
    suite_options.on_progress = [&progress](const SuiteProgress& p) { progress.update(p); };
  }
  if (options.live || live_csv) {
    const bool shown = live.start(err);
    if (shown) {
      suite_options.run.progress_interval =
          std::min<std::chrono::nanoseconds>(options.progress_interval, std::chrono::seconds(1));
    }
    suite_options.on_progress = [&live, &progress, shown,
                                 plain = show_progress](const SuiteProgress& p) {
      live.update(p);
      if (!shown && plain) progress.update(p);
    };
  }
}

// The run's result document (JSON) when `wanted` (by the format or --store), else empty.
std::string result_json(const CliOptions& given, const SuitePlan& plan,
                        const SuiteRunResult& result, const ResultDocument* repeated,
                        const RankContext& ranks, bool wanted) {
  std::string document;
  if (wanted) {
    const Invocation invocation = invocation_of(given, plan, repeated);
    // The document runs to megabytes for a sweep: not copied once more by a conditional
    // expression with a temporary in it.
    document = suite_to_json(plan, result, 2, &invocation);
    if (ranks.ranked()) document = add_ranks_to_json(document, ranks.steps, 2);
  }
  return document;
}

// The streams of this rank: what other ranks than 0 print goes to `none`.
struct RankStreams {
  std::ostream& out;
  std::ostream& err;
  std::ostream& none;
};

// Runs the valid plan: opens the outputs, runs the suite, writes the results.
int run_plan(const CliOptions& given, const CliOptions& options, RankContext& ranks,
             Registry& registry, ResolvedRun& run, SuiteRunOptions& suite_options,
             const RankStreams& streams) {
  const bool root = ranks.root();
  std::ostream& out = streams.out;
  std::ostream& err = streams.err;
  SuitePlan& plan = run.plan;
  // Input is valid: now -o (and the family CSV files beside it) are opened for real, then the
  // default target made.
  RunFiles files;
  open_run_files(options, files);
  // Progress on stderr: a live line on a terminal that can rewrite one (cleared before any
  // result, by the reporter first in the set), else plain lines.
  const bool show_progress = !options.quiet && options.progress_interval.count() > 0;
  ProgressPrinter progress(std::cerr, show_progress ? Terminal::open(STDERR_FILENO) : std::nullopt);
  ReporterSet reporters;
  if (progress.live()) {
    reporters.add(make_progress_clearer(progress));
    // The live line is redrawn at least every second, so it shows a phase from its start.
    suite_options.run.progress_interval =
        std::min<std::chrono::nanoseconds>(options.progress_interval, std::chrono::seconds(1));
  }
  const bool to_file = files.output.has_value();
  // The text report: in the file or on stdout for --format text; for a machine format on stdout
  // beside -o FILE, else on stderr, where -q silences it (stdout then holds the machine format).
  const OutputFormat& format = find_output_format(options.format, FormatCommand::kRun);
  const bool machine_format = !format.is_text_report;
  std::ostream& text_out = !machine_format && to_file ? static_cast<std::ostream&>(files.file_text)
                           : !machine_format || to_file ? out
                           : options.quiet              ? streams.none
                                                        : err;
  std::ostream& machine = to_file ? static_cast<std::ostream&>(files.file_text) : out;
  reporters.add(make_text_reporter(text_out, registry));
  if (ranks.ranked() && root) reporters.add(make_rank_table_reporter(text_out, ranks));
  const std::unique_ptr<RunOutput> format_output = format.run();
  format_output->prepare(RunOutputTarget{.plan = plan,
                                         .registry = registry,
                                         .output_path = options.output_path,
                                         .stdout_stream = out,
                                         .file_text = files.file_text,
                                         .err = err},
                         reporters);
  std::optional<DefaultTarget> default_dir;
  if (run.needs_default_dir) {
    default_dir.emplace(run.tmp_root, options.keep);
    use_default_target(plan, options, default_dir->path());
  }
  announce_run(options, run, default_dir, err);

  // --live replaces the progress line (or lines) on a terminal; --live-csv keeps its numbers.
  LiveDisplay live(options.live && root, files.live_csv_output.has_value());
  route_progress(options, show_progress, files.live_csv_output.has_value(), progress, live, err,
                 suite_options);

  // The stop signal handlers were installed first thing in main(): a stop during validation
  // makes run_suite() return at once with no runs, status interrupted, reported as usual.
  const std::set<std::filesystem::path> run_dirs_before =
      options.keep ? run_dirs_named_as_ours(plan) : std::set<std::filesystem::path>();
  const SuiteRunResult result = run_suite(plan, registry, suite_options, reporters);
  live.finish();
  progress.clear();
  const bool live_csv_write_failed = live_csv_failed(files, live.csv_text(), err);
  if (options.keep) {
    report_kept_run_dirs(plan, run_dirs_before,
                         default_dir ? std::optional(default_dir->path()) : std::nullopt, err);
  }
  write_suite_summary_text(result, text_out);
  const bool store = !options.store_path.empty() && root;
  const ResultDocument* repeated = run.again ? &run.repeated : nullptr;
  const std::string document =
      result_json(given, plan, result, repeated, ranks, format_output->wants_document() || store);
  format_output->write(format_output->wants_document() ? document : std::string(), machine);
  const bool store_write_failed = store && store_failed(options, document, err);
  const bool html_write_failed = html_failed(files, given, plan, result, repeated, err);
  if (const std::optional<int> failed = commit_result_files(files, plan, result, out, err)) {
    return *failed;
  }
  if (!format_output->commit_files(err)) return 1;
  const int status = exit_status(result.run.status);
  return status == 0 && (html_write_failed || store_write_failed || live_csv_write_failed) ? 1
                                                                                           : status;
}

}  // namespace

int run_command(const CliOptions& given, RankContext& ranks) {
  using Command = CliOptions::Command;
  const CliOptions options = options_for_rank(given, ranks);
  std::ostream null_stream(nullptr);  // what other ranks than 0 print goes nowhere
  const RankStreams streams{.out = ranks.root() ? std::cout : null_stream,
                            .err = ranks.root() ? std::cerr : null_stream,
                            .none = null_stream};
  if (const std::optional<int> status = run_registry_free_command(options, streams.err)) {
    return *status;
  }
  Registry registry = make_builtin_registry();
  for (const std::string& plugin : options.plugins) load_plugin(registry, plugin);
  if (const std::optional<int> status = run_registry_command(options, registry)) return *status;

  // All input is checked before anything is created: -o, the suite or workload (or the result
  // to repeat), every param and target (the default target's checks run against the directory
  // it will be made in).
  check_output_options(options);
  ResolvedRun run;
  run.again = !options.again.empty();
  run.suite = resolve_suite(options, registry, ranks, run.again);
  CliOptions effective = options;
  if (!run.again) apply_zero_warmup(options, registry, run.suite, effective.params);
  run.needs_default_dir =
      !run.again && options.targets.empty() && (!run.suite || needs_default_target(*run.suite));
  run.tmp_root = temporary_root();

  SuiteRunOptions suite_options = suite_run_options(options, ranks);
  const Runner runner(registry, suite_options.run);
  build_plan(options, effective, registry, runner, suite_options, run);
  // Across ranks: every rank's input is valid before any rank creates anything, and the steps
  // whose ranks share their targets name the same ones on every rank (preview() agrees on
  // both).
  if (ranks.ranked()) agree_on_input(ranks, "");
  std::vector<Step> planned_steps;
  for (const PlannedRun& planned : run.plan.runs) planned_steps.push_back(planned.step);
  if (ranks.ranked() && options.command != Command::kValidate) {
    (void)runner.preview(planned_steps);
  }
  if (options.command == Command::kValidate) {
    return validate_plan(options, runner, planned_steps, run, streams.out, streams.err);
  }
  return run_plan(given, options, ranks, registry, run, suite_options, streams);
}

}  // namespace iobench::cli
