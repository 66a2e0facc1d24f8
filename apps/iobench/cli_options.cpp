#include "cli_options.hpp"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iobench/error.hpp>
#include <iobench/units.hpp>
#include <sstream>

namespace iobench::cli {
namespace po = boost::program_options;

namespace {

constexpr const char* kUsage =
    "usage: iobench run [WORKLOAD | SUITE | FILE.json] [-d DIR]... [key=value]... [options]\n"
    "       iobench validate [WORKLOAD | SUITE | FILE.json] [-d DIR]... [key=value]...\n"
    "       iobench list\n"
    "       iobench --help | --version\n"
    "\n"
    "Without WORKLOAD, `run` runs the built-in suite `quick` (every family at small sizes, about "
    "a\n"
    "minute) on a temporary directory. A suite (a JSON file, or a built-in one from `iobench\n"
    "list`) runs its steps in order; key=value then applies to every step whose workload declares\n"
    "the param, and -d replaces every step's targets. Each run works in a fresh directory\n"
    "iobench.<pid>.<random> inside each target and removes only what it created. `iobench list`\n"
    "shows workloads, their parameters and the built-in suites.\n"
    "Exit status: 0 ok, 1 a step failed, 2 bad usage or input (nothing written), 130 "
    "interrupted.\n";

po::options_description run_options() {
  po::options_description options("Options");
  // clang-format off
  options.add_options()
    ("help,h", "show this help")
    ("version", "show the version")
    ("dir,d", po::value<std::vector<std::string>>()->composing(),
     "target directory (repeat for one worker per target); default: a new temporary directory")
    ("format,f", po::value<std::string>()->default_value("text"), "output format: text, json or csv")
    ("output,o", po::value<std::string>(),
     "write the --format output to FILE (text still goes to stdout for json/csv)")
    ("keep", "keep the run directories and files for inspection")
    ("time,t", po::value<std::string>(), "time limit per phase, e.g. 30s (default: the workload's)")
    ("warmup", po::value<std::string>(), "warm-up per phase discarded from results, e.g. 5s")
    ("ops", po::value<std::string>(), "op limit per worker per phase, e.g. 100k")
    ("engine", po::value<std::string>()->default_value("psync"), "I/O engine: psync or mmap")
    ("seed", po::value<std::string>(), "seed of the random generators (default: random, reported)")
    ("progress", po::value<std::string>()->default_value("5s"),
     "interval of the progress lines on stderr (0 turns them off)")
    ("plugin", po::value<std::vector<std::string>>()->composing(), "load a workload plugin (.so)")
    ("drop-caches", "sync and drop the page cache before each phase (root)")
    ("fail-fast", "stop the run at the first failed step")
    ("quiet,q", "no progress or status lines on stderr (warnings and errors still)");
  // clang-format on
  return options;
}

}  // namespace

CliOptions parse_command_line(int argc, const char* const* argv) {
  CliOptions cli;
  po::options_description visible = run_options();
  po::options_description hidden;
  hidden.add_options()("args", po::value<std::vector<std::string>>(), "");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("args", -1);

  std::ostringstream help;
  help << kUsage << "\n" << visible;
  cli.help_text = help.str();

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError(fmt::format("{} (see 'iobench --help')", e.what()));
  }
  if (vm.count("help")) return cli;
  if (vm.count("version")) {
    cli.command = CliOptions::Command::kVersion;
    return cli;
  }
  std::vector<std::string> args;
  if (vm.count("args")) args = vm["args"].as<std::vector<std::string>>();
  if (args.empty()) return cli;

  const std::string& command = args.front();
  if (command == "list") {
    cli.command = CliOptions::Command::kList;
  } else if (command == "run") {
    cli.command = CliOptions::Command::kRun;
  } else if (command == "validate") {
    cli.command = CliOptions::Command::kValidate;
  } else if (command == "help") {
    return cli;
  } else {
    throw ConfigError(fmt::format(
        "unknown command '{}'; use run, validate or list (see 'iobench --help')", command));
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      if (!cli.workload.empty() || cli.command == CliOptions::Command::kList) {
        throw ConfigError(fmt::format(
            "unexpected argument '{}'; parameters are key=value (see 'iobench list')", arg));
      }
      cli.workload = arg;
      continue;
    }
    const std::string key = arg.substr(0, eq);
    if (key.empty()) {
      throw ConfigError(fmt::format("parameter '{}' has no name; write key=value", arg));
    }
    if (!cli.params.emplace(key, arg.substr(eq + 1)).second) {
      throw ConfigError(fmt::format("parameter '{}' given twice; give it once", key));
    }
  }
  if (vm.count("dir")) cli.targets = vm["dir"].as<std::vector<std::string>>();
  cli.format = vm["format"].as<std::string>();
  if (cli.format != "text" && cli.format != "json" && cli.format != "csv") {
    throw ConfigError(fmt::format("--format '{}' is not one of text, json, csv", cli.format));
  }
  if (vm.count("output")) {
    cli.output_path = vm["output"].as<std::string>();
    if (cli.output_path.empty()) throw ConfigError("--output needs a file name");
  }
  if (vm.count("plugin")) cli.plugins = vm["plugin"].as<std::vector<std::string>>();
  cli.engine = vm["engine"].as<std::string>();
  cli.engine_given = !vm["engine"].defaulted();
  if (vm.count("time")) cli.time_limit = parse_duration(vm["time"].as<std::string>(), "--time");
  if (vm.count("warmup")) cli.warmup = parse_duration(vm["warmup"].as<std::string>(), "--warmup");
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
  cli.progress_interval = parse_duration(vm["progress"].as<std::string>(), "--progress");
  cli.keep = vm.count("keep") > 0;
  cli.drop_caches = vm.count("drop-caches") > 0;
  cli.fail_fast = vm.count("fail-fast") > 0;
  cli.quiet = vm.count("quiet") > 0;
  return cli;
}

}  // namespace iobench::cli
