#pragma once

#include <chrono>
#include <cstdint>
#include <iobench/classic_results.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "completion.hpp"

namespace iobench::cli {

/// What the command line asked for, parsed but not yet validated against the registry.
struct CliOptions {
  /// kUsage: no command given (the usage goes to stderr, exit 2); kHelp: --help or `help`.
  enum class Command {
    kHelp,
    kUsage,
    kVersion,
    kList,
    kRun,
    kValidate,
    kCompare,
    kReport,
    kHistory,
    kCompletion
  };
  Command command = Command::kHelp;
  std::string help_text;
  std::vector<std::string> argv;  ///< the command line as given (recorded in results)
  /// --again FILE: repeat the run a result document records.
  std::string again;
  /// Workload name, suite file (ends in .json, or an existing file) or built-in suite name;
  /// empty for the default job (the built-in suite `quick`).
  std::string workload;
  std::map<std::string, std::string> params;
  std::vector<std::string> targets;
  std::string format = "text";  ///< --format: a name of the command's in output_formats()
  std::string output_path;
  std::string time_series_csv_path;  ///< --time-series-csv FILE (empty: none)
  /// --interval: the time-series interval (kMinSeriesInterval..kMaxSeriesInterval).
  std::chrono::nanoseconds interval{std::chrono::seconds(1)};
  bool interval_given = false;
  std::vector<std::string> plugins;
  std::string engine = "psync";
  bool engine_given = false;  ///< --engine was on the command line (overrides a suite's engines)
  std::chrono::nanoseconds time_limit{0};
  std::chrono::nanoseconds warmup{0};
  bool warmup_given = false;  ///< --warmup was given (0 then means: no warm-up at all)
  std::uint64_t ops_limit = 0;
  std::uint64_t seed = 0;
  std::chrono::nanoseconds progress_interval = std::chrono::seconds(5);
  bool keep = false;
  bool drop_caches = false;
  bool fail_fast = false;
  bool stonewall = false;         ///< --stonewall
  bool explain = false;           ///< --explain (RunOptions::explain)
  bool explain_syscalls = false;  ///< --explain=syscalls (RunOptions::explain_mode)
  bool wear_out = false;          ///< --wear-out
  bool quiet = false;
  bool live = false;          ///< --live: the full-screen per-worker view (on a terminal only)
  std::string live_csv_path;  ///< --live-csv FILE: the live numbers as CSV (empty: none)
  /// compare: the result documents, the first the baseline.
  std::vector<std::string> compare_files;
  std::vector<std::string> compare_metrics;  ///< --metrics, split at commas (names unchecked)
  std::vector<std::string> compare_phases;   ///< --phases, split at commas
  std::optional<double> fail_if_worse;       ///< --fail-if-worse PCT, >= 0
  /// report: the result documents, in the order given (the first the baseline of the bars).
  std::vector<std::string> report_files;
  /// run: --html FILE, the HTML report of the run (empty: none).
  std::string html_path;
  /// run: --store FILE.db, the history the run's document is added to (empty: none).
  std::string store_path;
  /// history: the history file; its filters are in `params` (workload, host, fs, kernel, last).
  std::string history_file;
  /// completion: the shell named ("bash" or "zsh"; checked when the script is made).
  std::string completion_shell;
  /// compare, report: --from, one format for every file or one per file; empty: detected.
  std::vector<ResultFormat> input_formats;

  /// The --from format of input file `index` (kAuto without --from).
  [[nodiscard]] ResultFormat input_format(std::size_t index) const {
    if (input_formats.empty()) return ResultFormat::kAuto;
    return input_formats[input_formats.size() == 1 ? 0 : index];
  }
};

/// The options of parse_command_line, for shell completion (completion_script).
[[nodiscard]] std::vector<CompletionOption> completion_options();

/// Parses argv. Throws iobench::ConfigError (exit 2) on unknown options, bad values, a param
/// without '=', a duplicate param, or an unknown --format.
[[nodiscard]] CliOptions parse_command_line(int argc, const char* const* argv);

}  // namespace iobench::cli
