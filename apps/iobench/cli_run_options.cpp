#include "cli_run_options.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/time_series.hpp>
#include <iobench/units.hpp>
#include <tuple>

#include "output_formats.hpp"

namespace iobench::cli {
namespace po = boost::program_options;

namespace {

// The workload (one word) and its key=value params.
void parse_workload_and_params(const std::vector<std::string>& args, CliOptions& cli) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      if (!cli.workload.empty() || cli.command == CliOptions::Command::kList) {
        throw ConfigError(
            fmt::format("unexpected argument '{}'; parameters are key=value (see 'iobench list')",
                        printable(arg)));
      }
      cli.workload = arg;
      continue;
    }
    const std::string key = arg.substr(0, eq);
    if (key.empty()) {
      throw ConfigError(fmt::format("parameter '{}' has no name; write key=value", printable(arg)));
    }
    if (!cli.params.emplace(key, arg.substr(eq + 1)).second) {
      throw ConfigError(fmt::format("parameter '{}' given twice; give it once", printable(key)));
    }
  }
}

// The options of compare and report, refused by name.
void refuse_other_commands_options(const po::variables_map& vm, const std::string& command) {
  for (const char* option : kCompareOnly) {
    if (vm.count(option)) {
      throw ConfigError(fmt::format("--{} goes with compare, not {}", option, command));
    }
  }
  if (vm.count("from")) {
    throw ConfigError(fmt::format("--from goes with compare or report, not {}", command));
  }
}

// The targets (-d) and where the results go: --format, -o, --html, --store; and --again.
void parse_target_and_output_options(const po::variables_map& vm, const std::string& command,
                                     CliOptions& cli) {
  if (vm.count("dir")) cli.targets = vm["dir"].as<std::vector<std::string>>();
  for (const std::string& dir : cli.targets) {
    if (dir.empty()) throw ConfigError("-d: the directory name is empty; give -d DIR");
  }
  cli.format = find_output_format(vm["format"].as<std::string>(), FormatCommand::kRun).name;
  if (vm.count("output")) {
    cli.output_path = vm["output"].as<std::string>();
    if (cli.output_path.empty()) throw ConfigError("--output needs a file name");
    // "-" is standard output, as without -o (and as report -o - does): not a file named "-".
    if (cli.output_path == "-") cli.output_path.clear();
  }
  if (vm.count("html")) {
    if (cli.command != CliOptions::Command::kRun) {
      throw ConfigError(fmt::format("--html goes with run, not {}", command));
    }
    cli.html_path = vm["html"].as<std::string>();
    if (cli.html_path.empty()) throw ConfigError("--html needs a file name");
    if (cli.html_path == "-") {
      throw ConfigError(
          "--html -: standard output carries the run's results; give a file name, or write the "
          "page afterwards with iobench report RESULT.json -o -");
    }
  }
  if (vm.count("store")) {
    if (cli.command != CliOptions::Command::kRun) {
      throw ConfigError(fmt::format("--store goes with run, not {}", command));
    }
    cli.store_path = vm["store"].as<std::string>();
    if (cli.store_path.empty()) throw ConfigError("--store needs a file name (FILE.db)");
  }
  if (vm.count("again")) {
    cli.again = vm["again"].as<std::string>();
    if (cli.again.empty()) throw ConfigError("--again needs a result file (RESULT.json)");
    if (cli.command == CliOptions::Command::kList) {
      throw ConfigError("--again goes with run or validate, not list");
    }
  }
}

// Plugins, the engine and the run's limits: --time, --time-series-csv, --interval, --warmup,
// --ops, --seed.
void parse_engine_and_limit_options(const po::variables_map& vm, CliOptions& cli) {
  if (vm.count("plugin")) cli.plugins = vm["plugin"].as<std::vector<std::string>>();
  cli.engine = vm["engine"].as<std::string>();
  cli.engine_given = !vm["engine"].defaulted();
  if (cli.engine_given && cli.engine.empty()) {
    throw ConfigError(
        "--engine: the engine name is empty; give one, e.g. --engine pvsync2 (see 'iobench "
        "list'), or leave --engine out for the workload's own");
  }
  if (vm.count("time")) {
    cli.time_limit = parse_duration(vm["time"].as<std::string>(), "--time");
    if (cli.time_limit.count() == 0) {
      throw ConfigError("--time: 0 is no limit; leave --time out for the workload's own length");
    }
  }
  if (vm.count("time-series-csv")) {
    cli.time_series_csv_path = vm["time-series-csv"].as<std::string>();
    if (cli.time_series_csv_path.empty()) throw ConfigError("--time-series-csv needs a file name");
    if (cli.time_series_csv_path == "-") {
      throw ConfigError(
          "--time-series-csv -: standard output carries the run's results; give a file name");
    }
  }
  if (vm.count("interval")) {
    const std::string& text = vm["interval"].as<std::string>();
    cli.interval = parse_duration(text, "--interval");
    if (cli.interval < kMinSeriesInterval || cli.interval > kMaxSeriesInterval) {
      throw ConfigError(fmt::format(
          "--interval {}: the time-series interval must be 100ms to 60s; e.g. --interval 1s",
          printable(text)));
    }
    cli.interval_given = true;
  }
  if (vm.count("warmup")) {
    cli.warmup = parse_duration(vm["warmup"].as<std::string>(), "--warmup");
    cli.warmup_given = true;
  }
  if (vm.count("ops")) {
    cli.ops_limit = parse_count(vm["ops"].as<std::string>(), "--ops");
    if (cli.ops_limit == 0) {
      throw ConfigError("--ops: 0 is no limit; give 1 or more, or leave --ops out for no limit");
    }
  }
  if (vm.count("seed")) {
    cli.seed = parse_count(vm["seed"].as<std::string>(), "--seed");
    if (cli.seed == 0) {
      throw ConfigError(
          "--seed: give 1 or more; leave --seed out for a random seed (the seed used is reported)");
    }
  }
}

// --progress, -q, --live and --live-csv, and where they contradict.
void parse_progress_options(const po::variables_map& vm, CliOptions& cli) {
  cli.progress_interval = parse_duration(vm["progress"].as<std::string>(), "--progress");
  if (vm.count("quiet") && !vm["progress"].defaulted() && cli.progress_interval.count() > 0) {
    throw ConfigError(fmt::format(
        "-q and --progress {} contradict: -q turns the progress lines off; give one of them",
        printable(vm["progress"].as<std::string>())));
  }
  cli.live = vm.count("live") > 0;
  if (cli.live && vm.count("quiet")) {
    throw ConfigError("-q and --live contradict: -q turns the progress display off; give one");
  }
  if (vm.count("live-csv")) {
    cli.live_csv_path = vm["live-csv"].as<std::string>();
    if (cli.live_csv_path.empty()) throw ConfigError("--live-csv needs a file name");
    if (cli.live_csv_path == "-") {
      throw ConfigError(
          "--live-csv -: standard output carries the run's results; give a file name");
    }
  }
  if ((cli.live || vm.count("live-csv")) && cli.progress_interval.count() == 0) {
    throw ConfigError(fmt::format(
        "{} and --progress 0 contradict: the live numbers come every progress interval; give "
        "--progress 1s or leave --progress out",
        cli.live ? "--live" : "--live-csv"));
  }
}

// An option and a param that set the same thing: which one was meant is not known.
void refuse_option_and_param_for_the_same_thing(const po::variables_map& vm,
                                                const CliOptions& cli) {
  for (const auto& [option, given, param] :
       {std::tuple{"--time", vm.count("time") > 0, "time_limit"},
        std::tuple{"--warmup", vm.count("warmup") > 0, "warmup"},
        std::tuple{"--seed", vm.count("seed") > 0, "seed"},
        std::tuple{"--engine", cli.engine_given, "engine"}}) {
    if (!given) continue;
    for (const auto& [key, value] : cli.params) {
      const bool same = key == param || (key.size() > std::strlen(param) + 1 &&
                                         key.ends_with(std::string(".") + param));
      if (!same) continue;
      throw ConfigError(fmt::format(
          "{} {} and {}={} both given: both set the workload's {}; give one of them", option,
          printable(vm[option + 2].as<std::string>()), printable(key), printable(value), param));
    }
  }
}

// --destructive SERIAL and --force-signature: the disk workload's params of the same meaning
// (a suite applies them to the steps that declare them), refused beside those params.
void parse_destructive_options(const po::variables_map& vm, CliOptions& cli) {
  for (const auto& [option, given, param, value] :
       {std::tuple{"--destructive", vm.count("destructive") > 0, "destructive",
                   vm.count("destructive") ? vm["destructive"].as<std::string>() : std::string()},
        std::tuple{"--force-signature", vm.count("force-signature") > 0, "force_signature",
                   std::string("true")}}) {
    if (!given) continue;
    if (std::string_view(param) == "destructive" && value.empty()) {
      throw ConfigError(
          "--destructive: the serial is empty; give the device's serial or WWN as "
          "/sys/block/NAME reports it (device/serial, serial or wwid; a loop device: "
          "loop/backing_file)");
    }
    if (!cli.params.emplace(param, value).second) {
      throw ConfigError(fmt::format("{} and {}={} both given; give one of them", option, param,
                                    printable(cli.params.at(param))));
    }
  }
}

}  // namespace

void parse_run_command(const po::variables_map& vm, const std::vector<std::string>& args,
                       const std::string& command, CliOptions& cli) {
  parse_workload_and_params(args, cli);
  parse_destructive_options(vm, cli);
  refuse_other_commands_options(vm, command);
  parse_target_and_output_options(vm, command, cli);
  parse_engine_and_limit_options(vm, cli);
  parse_progress_options(vm, cli);
  refuse_option_and_param_for_the_same_thing(vm, cli);
  cli.keep = vm.count("keep") > 0;
  cli.drop_caches = vm.count("drop-caches") > 0;
  cli.fail_fast = vm.count("fail-fast") > 0;
  cli.stonewall = vm.count("stonewall") > 0;
  cli.wear_out = vm.count("wear-out") > 0;
  cli.explain = vm.count("explain") > 0;
  if (cli.explain) {
    const std::string& what = vm["explain"].as<std::string>();
    if (what != "ops" && what != "syscalls") {
      throw ConfigError(fmt::format(
          "--explain={} is not a split iobench knows; give --explain (ops) or --explain=syscalls",
          printable(what)));
    }
    cli.explain_syscalls = what == "syscalls";
  }
  cli.quiet = vm.count("quiet") > 0;
}

}  // namespace iobench::cli
