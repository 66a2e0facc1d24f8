#include "cli_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/program_options.hpp>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iobench/classic_results.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/time_series.hpp>
#include <iobench/units.hpp>
#include <sstream>
#include <tuple>

#include "cli_run_options.hpp"
#include "output_formats.hpp"

namespace iobench::cli {
namespace po = boost::program_options;

namespace {

// The usage text; {0}: history's --format names, {1}: compare's (from the format table).
constexpr const char* kUsage =
    "usage: iobench run [WORKLOAD | SUITE | FILE.json] [-d DIR]... [key=value]... [options]\n"
    "       iobench run --again RESULT.json [-d DIR]... [--format F] [-o FILE]\n"
    "       iobench validate [WORKLOAD | SUITE | FILE.json] [-d DIR]... [key=value]...\n"
    "       iobench list\n"
    "       iobench history FILE.db [workload=W] [host=H] [fs=TYPE] [kernel=TEXT] [last=N]\n"
    "               [--format {0}] [--html REPORT.html]\n"
    "       iobench completion bash|zsh\n"
    "       iobench compare BASE.json OTHER.json [MORE.json]... [--format {1}]\n"
    "               [--metrics LIST] [--phases LIST] [--fail-if-worse PCT] [--from FORMAT[,...]]\n"
    "       iobench report RUN.json [MORE.json]... -o REPORT.html|- [--from FORMAT[,...]]\n"
    "       iobench --help | --version\n"
    "\n"
    "Without WORKLOAD, `run` runs the built-in suite `quick` (every family at small sizes, about "
    "a\n"
    "minute) on a temporary directory. A suite (a JSON file, or a built-in one from `iobench\n"
    "list`) runs its steps in order; key=value then applies to every step whose workload declares\n"
    "the param, and -d replaces every step's targets. Each run works in a fresh directory\n"
    "iobench.<pid>.<random> inside each target and removes only what it created. `iobench list`\n"
    "shows workloads, their parameters and the built-in suites.\n"
    "Exit status: 0 ok, 1 a step failed, 2 bad usage or input (nothing written), 3 a phase\n"
    "measured nothing (it ended inside its warm-up), 130 interrupted; compare: 1 a selected\n"
    "metric got worse by more than --fail-if-worse PCT (significantly, where n > 1), a\n"
    "failure counter (mismatches, ...) is higher than the baseline's, or a compared phase\n"
    "failed where the baseline's ended ok; 2 the gate has nothing to compare.\n"
    "`report` writes one self-contained HTML page (charts inline, nothing fetched) of the runs;\n"
    "`run ... --html FILE` writes the same page of the run it makes.\n"
    "compare and report also read the classic tools' own results: bonnie++ CSV and text\n"
    "tables, tiotest tables and terse lines, tiobench.pl tables, dbench's final output, fio JSON,\n"
    "the seeds' \"Completed writing ...\" lines, mdtest's SUMMARY rate table and filebench's\n"
    "IO Summary; the format is detected, or named with --from.\n";

// --from's help: the names of the result readers' table (classic_results.hpp).
std::string from_help() {
  std::vector<std::string_view> names{"auto"};
  for (const ResultFormat format : result_formats()) names.push_back(to_string(format));
  return fmt::format(
      "compare, report: the inputs' format, one for all or one per file in order "
      "(comma-separated): {} (default: auto, detected per file)",
      fmt::join(names, ", "));
}

po::options_description run_options() {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
    ("help,h", "show this help")
    ("version", "show the version")
    ("dir,d", po::value<std::vector<std::string>>()->composing(),
     "target directory (repeat for one worker per target); default: a new temporary directory")
    ("format,f", po::value<std::string>()->default_value("text"), output_format_help().c_str())
    ("output,o", po::value<std::string>(),
     "write the --format output to FILE, - for stdout (beside FILE, json/csv runs print the "
     "text report on stdout)")
    ("html", po::value<std::string>(),
     "run: also write the HTML report of the run to FILE (replaced once the run has ended)")
    ("time-series-csv", po::value<std::string>(),
     "also write every phase's time series as CSV to FILE (one row per interval and worker)")
    ("interval", po::value<std::string>(),
     "time-series interval, 100ms to 60s (default 1s): each phase's results per interval")
    ("keep", "keep the run directories and files for inspection")
    ("store", po::value<std::string>(),
     "run: also keep the run's result document in the history FILE.db (SQLite, made if new; "
     "see 'iobench history')")
    ("time,t", po::value<std::string>(), "time limit per phase, e.g. 30s (default: the workload's)")
    ("warmup", po::value<std::string>(), "warm-up per phase discarded from results, e.g. 5s")
    ("ops", po::value<std::string>(), "op limit per worker per phase, e.g. 100k")
    ("engine", po::value<std::string>()->default_value("psync"), "I/O engine NAME[:OPTION,...]: psync, pvsync2, mmap, io_uring, libaio, null (see 'iobench list')")
    ("seed", po::value<std::string>(), "seed of the random generators (default: random, reported)")
    ("progress", po::value<std::string>()->default_value("5s"),
     "interval of the progress lines on stderr (0 turns them off)")
    ("live", "run: a full-screen view on stderr's terminal, per worker and total: rates, "
             "latency percentiles, state and ETA, redrawn every progress interval (at most 1s)")
    ("live-csv", po::value<std::string>(),
     "run: also write the live view's numbers to FILE as CSV, one row per worker and a total "
     "row per progress interval (written once the run has ended)")
    ("plugin", po::value<std::vector<std::string>>()->composing(), "load a workload plugin (.so)")
    ("drop-caches",
     "sync and drop the page cache before each phase (root); the result keeps what the drop "
     "left (/proc/meminfo Buffers and Cached)")
    ("destructive", po::value<std::string>(),
     "allow disk writes, trims and mixed phases on whole block device targets whose serial or "
     "WWN (/sys/block/NAME: device/serial, serial, wwid; loop devices: loop/backing_file) is "
     "SERIAL; the same as the param destructive=SERIAL (see README, Raw devices)")
    ("force-signature", "with --destructive: overwrite a device whose first blocks hold a file "
                        "system or partition table signature (param force_signature=true)")
    ("fail-fast", "stop the run at the first failed step")
    ("stonewall", "end every worker of a phase (under mpirun: of every rank) when the first one "
                  "is done, as IOR's stonewalling")
    ("wear-out", "at a phase's time limit, go on until every worker (under mpirun: of every "
                 "rank) has done as many ops as the most, as IOR's stoneWallingWearOut")
    ("explain", po::value<std::string>()->implicit_value("ops"),
     "split each phase's op latency of the workers into file system + kernel, block queue, "
     "device and off-CPU wait, measured with eBPF (root or CAP_BPF; elsewhere the result says "
     "why it is unavailable); --explain=syscalls splits their system calls instead (also "
     "io_uring at any depth, but every system call of the machine pays for it)")
    ("again", po::value<std::string>(),
     "repeat the run RESULT.json records: its steps, params, seeds and options (targets too, "
     "unless -d is given)")
    ("quiet,q", "no progress or status lines on stderr, nor the text report of a json or csv "
                "run without -o (warnings, errors and --keep's lines still)")
    ("metrics", po::value<std::string>(),
     "compare: metrics to show, comma-separated: throughput, iops, lat_mean, lat_p50, lat_p99, "
     "lat_p99_9, lat_max, cpu (default: all)")
    ("phases", po::value<std::string>(), "compare: phases to show, comma-separated (default: all)")
    ("fail-if-worse", po::value<std::string>(),
     "compare: exit 1 if a selected metric is worse than the baseline by more than PCT % "
     "(and significantly, where both sides have repetitions), a failure counter "
     "(mismatches, corrupt_blocks, *_errors, ...) is higher than the baseline's (its ok and "
     "failed results), a phase --phases selects failed where the baseline's ended ok "
     "(a failed data check), or a step failed outside its phases (e.g. its set-up) where the "
     "baseline's ended ok, whatever PCT; exit 2 if nothing is compared")
    ("from", po::value<std::string>(), from_help().c_str());
  // clang-format on
  return options;
}

// Options of run and validate that compare and report refuse.
// clang-format off
constexpr std::array<const char*, 21> kRunOnly{
    "dir",         "keep",      "time",  "warmup", "ops",      "seed",           "plugin",
    "drop-caches", "fail-fast", "again", "html",   "interval", "time-series-csv", "stonewall",
    "wear-out",    "store",     "live",  "live-csv", "explain", "destructive", "force-signature"};
// clang-format on

// Items of a comma-separated list; empty items are refused.
std::vector<std::string> comma_list(const std::string& text, const char* option) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (item.empty()) {
      throw ConfigError(
          fmt::format("--{} '{}': an empty name; give NAME[,NAME]...", option, printable(text)));
    }
    items.push_back(std::move(item));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

double parse_percent(const std::string& text) {
  std::string number = text;
  if (number.ends_with('%')) number.pop_back();
  double value = 0;
  const char* end = number.data() + number.size();
  const auto [ptr, ec] = std::from_chars(number.data(), end, value);
  if (number.empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || value < 0) {
    throw ConfigError(
        fmt::format("--fail-if-worse '{}' is not a percentage; give a number >= 0, e.g. 5 for 5 %",
                    printable(text)));
  }
  return value;
}

// --from FORMAT[,FORMAT...] of compare and report: one format for all `files` or one per file.
std::vector<ResultFormat> parse_from(const po::variables_map& vm, std::size_t files) {
  if (!vm.count("from")) return {};
  std::vector<ResultFormat> formats;
  for (const std::string& name : comma_list(vm["from"].as<std::string>(), "from")) {
    try {
      formats.push_back(parse_result_format(name));
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("--from: {}", e.what()));
    }
  }
  if (formats.size() != 1 && formats.size() != files) {
    throw ConfigError(
        fmt::format("--from names {} formats for {} files; give one format for all or one per file",
                    formats.size(), files));
  }
  return formats;
}

// `iobench compare FILE...`: only the files and the compare options.
CliOptions parse_compare(const po::variables_map& vm, const std::vector<std::string>& args,
                         CliOptions cli) {
  cli.command = CliOptions::Command::kCompare;
  cli.compare_files.assign(args.begin() + 1, args.end());
  if (cli.compare_files.size() < 2) {
    throw ConfigError(
        fmt::format("compare needs two or more result files (BASE.json OTHER.json ...), got {}",
                    cli.compare_files.size()));
  }
  for (const char* option : kRunOnly) {
    if (vm.count(option)) {
      throw ConfigError(fmt::format("--{} goes with run or validate, not compare", option));
    }
  }
  if (vm.count("output"))
    throw ConfigError("--output goes with run, validate or report, not compare");
  if (!vm["engine"].defaulted() || !vm["progress"].defaulted()) {
    throw ConfigError("--engine and --progress go with run or validate, not compare");
  }
  cli.format = find_output_format(vm["format"].as<std::string>(), FormatCommand::kCompare).name;
  if (vm.count("metrics"))
    cli.compare_metrics = comma_list(vm["metrics"].as<std::string>(), "metrics");
  if (vm.count("phases")) cli.compare_phases = comma_list(vm["phases"].as<std::string>(), "phases");
  if (vm.count("fail-if-worse"))
    cli.fail_if_worse = parse_percent(vm["fail-if-worse"].as<std::string>());
  cli.input_formats = parse_from(vm, cli.compare_files.size());
  return cli;
}

// `iobench report FILE... -o OUT`: the files and -o only.
CliOptions parse_report(const po::variables_map& vm, const std::vector<std::string>& args,
                        CliOptions cli) {
  cli.command = CliOptions::Command::kReport;
  cli.report_files.assign(args.begin() + 1, args.end());
  if (cli.report_files.empty()) {
    throw ConfigError(
        "report needs one or more result files: iobench report RUN.json -o "
        "report.html");
  }
  for (const char* option : kRunOnly) {
    if (vm.count(option)) {
      throw ConfigError(fmt::format("--{} goes with run or validate, not report", option));
    }
  }
  for (const char* option : kCompareOnly) {
    if (vm.count(option))
      throw ConfigError(fmt::format("--{} goes with compare, not report", option));
  }
  cli.input_formats = parse_from(vm, cli.report_files.size());
  if (!vm["engine"].defaulted() || !vm["progress"].defaulted() || !vm["format"].defaulted()) {
    throw ConfigError(
        "--engine, --progress and --format go with run or compare, not report "
        "(a report is HTML)");
  }
  if (!vm.count("output")) {
    throw ConfigError("report: give -o REPORT.html (or -o - for stdout)");
  }
  cli.output_path = vm["output"].as<std::string>();
  if (cli.output_path.empty()) throw ConfigError("-o: the file name is empty; give a file name");
  return cli;
}

// `iobench history FILE.db [key=value]...`: the filters, --format and --html only.
CliOptions parse_history(const po::variables_map& vm, const std::vector<std::string>& args,
                         CliOptions cli) {
  cli.command = CliOptions::Command::kHistory;
  if (args.size() < 2 || args[1].find('=') != std::string::npos) {
    throw ConfigError(
        "history needs the history file: iobench history FILE.db [workload=W] [host=H] "
        "[fs=TYPE] [kernel=TEXT] [last=N]");
  }
  cli.history_file = args[1];
  constexpr std::array<std::string_view, 5> kFilters{"workload", "host", "fs", "kernel", "last"};
  for (std::size_t i = 2; i < args.size(); ++i) {
    const auto eq = args[i].find('=');
    const std::string key = args[i].substr(0, eq);
    if (eq == std::string::npos ||
        std::find(kFilters.begin(), kFilters.end(), key) == kFilters.end()) {
      throw ConfigError(fmt::format(
          "history: '{}' is not a filter; give workload=W, host=H, fs=TYPE, kernel=TEXT or last=N",
          printable(args[i])));
    }
    if (!cli.params.emplace(key, args[i].substr(eq + 1)).second) {
      throw ConfigError(fmt::format("history: {} given twice; give it once", printable(key)));
    }
  }
  for (const char* option : kRunOnly) {
    if (vm.count(option) && std::string_view(option) != "html") {
      throw ConfigError(fmt::format("--{} goes with run or validate, not history", option));
    }
  }
  for (const char* option : kCompareOnly) {
    if (vm.count(option))
      throw ConfigError(fmt::format("--{} goes with compare, not history", option));
  }
  if (vm.count("from") || vm.count("output") || !vm["engine"].defaulted() ||
      !vm["progress"].defaulted()) {
    throw ConfigError(fmt::format(
        "--from, --output, --engine and --progress do not go with history: it lists runs on "
        "stdout (--format {}) and writes their HTML report with --html FILE",
        output_format_choices(FormatCommand::kHistory)));
  }
  cli.format = find_output_format(vm["format"].as<std::string>(), FormatCommand::kHistory).name;
  if (vm.count("html")) {
    cli.html_path = vm["html"].as<std::string>();
    if (cli.html_path.empty()) throw ConfigError("--html needs a file name");
  }
  return cli;
}

// `completion SHELL`: the script goes to stdout; options of other commands are refused by
// parse_command_line's callers only through the shell name check (they change nothing here).
CliOptions parse_completion(const std::vector<std::string>& args, CliOptions cli) {
  if (args.size() != 2) {
    throw ConfigError(
        "completion takes one shell name: iobench completion bash (or zsh); see 'iobench --help'");
  }
  cli.command = CliOptions::Command::kCompletion;
  cli.completion_shell = args[1];
  return cli;
}

}  // namespace

std::vector<CompletionOption> completion_options() {
  std::vector<CompletionOption> out;
  const po::options_description options = run_options();
  for (const auto& option : options.options()) {
    CompletionOption o;
    o.long_name = option->long_name();
    // canonical_display_name(dashed_short_option_style) gives "-d" where there is a short name.
    const std::string shown =
        option->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (shown.size() == 2 && shown[0] == '-') o.short_name = shown.substr(1);
    o.takes_value = option->semantic()->max_tokens() > 0;
    out.push_back(std::move(o));
  }
  return out;
}

CliOptions parse_command_line(int argc, const char* const* argv) {
  CliOptions cli;
  cli.argv.assign(argv, argv + argc);
  po::options_description visible = run_options();
  po::options_description hidden;
  hidden.add_options()("args", po::value<std::vector<std::string>>(), "");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("args", -1);

  std::ostringstream help;
  help << fmt::format(fmt::runtime(kUsage),
                      fmt::join(output_format_names(FormatCommand::kHistory), "|"),
                      fmt::join(output_format_names(FormatCommand::kCompare), "|"))
       << "\n"
       << visible;
  cli.help_text = help.str();

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error_with_option_name& e) {
    // Boost substitutes the offending token into its message template; a token that holds a
    // placeholder itself ("%original_token%") makes that substitution loop forever (Boost 1.81,
    // found by fuzz_cli), so with a '%' in the command line the message is built here.
    const bool has_percent = std::any_of(argv, argv + argc, [](const char* arg) {
      return arg != nullptr && std::string_view(arg).find('%') != std::string_view::npos;
    });
    if (has_percent) {
      throw ConfigError(fmt::format("option '{}': not valid as given (see 'iobench --help')",
                                    printable(e.get_option_name())));
    }
    throw ConfigError(fmt::format("{} (see 'iobench --help')", printable(e.what())));
  } catch (const po::error& e) {
    throw ConfigError(fmt::format("{} (see 'iobench --help')", printable(e.what())));
  }
  if (vm.count("help")) return cli;
  if (vm.count("version")) {
    cli.command = CliOptions::Command::kVersion;
    return cli;
  }
  std::vector<std::string> args;
  if (vm.count("args")) args = vm["args"].as<std::vector<std::string>>();
  if (args.empty()) {
    cli.command = CliOptions::Command::kUsage;
    return cli;
  }

  const std::string& command = args.front();
  if (command == "list") {
    cli.command = CliOptions::Command::kList;
  } else if (command == "run") {
    cli.command = CliOptions::Command::kRun;
  } else if (command == "validate") {
    cli.command = CliOptions::Command::kValidate;
  } else if (command == "compare") {
    return parse_compare(vm, args, std::move(cli));
  } else if (command == "report") {
    return parse_report(vm, args, std::move(cli));
  } else if (command == "history") {
    return parse_history(vm, args, std::move(cli));
  } else if (command == "completion") {
    return parse_completion(args, std::move(cli));
  } else if (command == "help") {
    return cli;
  } else {
    throw ConfigError(
        fmt::format("unknown command '{}'; use run, validate, list, compare, report, history or "
                    "completion (see "
                    "'iobench --help')",
                    printable(command)));
  }
  parse_run_command(vm, args, command, cli);
  return cli;
}

}  // namespace iobench::cli
