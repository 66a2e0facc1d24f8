// Fuzz target: the iobench command line (parse_command_line: Boost.Program_options plus the
// command, workload and key=value arguments, durations and counts).
//
// Input: one argument per line (argv[0] is "iobench").
// Invariants: only ConfigError is thrown (exit 2, never an uncaught Boost exception); the options
// it parses to, written back as a canonical command line (--opt=value forms, then "--" and the
// positional arguments), parse to the same options. ("--dir=" is refused by Boost while "-d ''"
// gives an empty target that validation then refuses: empty values are written apart.)
#include <iobench/error.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apps/iobench/cli_options.hpp"
#include "suite/units_detail.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "util/duration_text.hpp"

namespace {

using iobench::cli::CliOptions;

std::optional<CliOptions> parse(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    return iobench::cli::parse_command_line(static_cast<int>(argv.size()), argv.data());
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0', "empty message");
    return std::nullopt;
  }
}

std::string duration(std::chrono::nanoseconds ns) {
  return iobench::detail::format_duration(static_cast<std::uint64_t>(ns.count()),
                                          iobench::detail::DurationStyle::kExact);
}

// "--option=value", which takes values starting with '-'; an empty value as its own argument
// (Boost refuses "--option=").
void add_option(std::vector<std::string>& args, const std::string& option,
                const std::string& value) {
  if (value.empty()) {
    args.push_back(option);
    args.emplace_back();
  } else {
    args.push_back(option + "=" + value);
  }
}

std::vector<std::string> canonical(const CliOptions& cli) {
  std::vector<std::string> args{"iobench"};
  for (const std::string& t : cli.targets) add_option(args, "--dir", t);
  add_option(args, "--format", cli.format);
  if (!cli.output_path.empty()) add_option(args, "--output", cli.output_path);
  for (const std::string& p : cli.plugins) add_option(args, "--plugin", p);
  if (cli.engine_given) add_option(args, "--engine", cli.engine);
  if (cli.time_limit.count() > 0) add_option(args, "--time", duration(cli.time_limit));
  if (cli.warmup.count() > 0) add_option(args, "--warmup", duration(cli.warmup));
  if (cli.ops_limit > 0) add_option(args, "--ops", std::to_string(cli.ops_limit));
  if (cli.seed > 0) add_option(args, "--seed", std::to_string(cli.seed));
  // -q with a non-zero --progress is refused: with -q the interval is the default or 0.
  if (!cli.quiet || cli.progress_interval.count() == 0) {
    add_option(args, "--progress", duration(cli.progress_interval));
  }
  if (cli.keep) args.emplace_back("--keep");
  if (cli.drop_caches) args.emplace_back("--drop-caches");
  if (cli.fail_fast) args.emplace_back("--fail-fast");
  if (cli.quiet) args.emplace_back("--quiet");
  args.emplace_back("--");
  args.emplace_back(cli.command == CliOptions::Command::kList  ? "list"
                    : cli.command == CliOptions::Command::kRun ? "run"
                                                               : "validate");
  if (!cli.workload.empty()) args.push_back(cli.workload);
  for (const auto& [key, value] : cli.params) args.push_back(key + "=" + value);
  return args;
}

bool same(const CliOptions& a, const CliOptions& b) {
  return a.command == b.command && a.workload == b.workload && a.params == b.params &&
         a.targets == b.targets && a.format == b.format && a.output_path == b.output_path &&
         a.plugins == b.plugins && a.engine == b.engine && a.engine_given == b.engine_given &&
         a.time_limit == b.time_limit && a.warmup == b.warmup && a.ops_limit == b.ops_limit &&
         a.seed == b.seed && a.progress_interval == b.progress_interval && a.keep == b.keep &&
         a.drop_caches == b.drop_caches && a.fail_fast == b.fail_fast && a.quiet == b.quiet;
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += "[" + a + "] ";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  std::vector<std::string> args{"iobench"};
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    args.emplace_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  const auto cli = parse(args);
  // The round trip covers run, validate and list, the commands canonical() writes; the other
  // commands' options (compare's and report's files, --metrics, --fail-if-worse, --from, -o;
  // history's; completion's) are parsed above, only checked not to throw anything but
  // ConfigError. A list of the covered commands, not of the others, so that a command added
  // later is not written back as `validate`.
  const auto round_tripped = [](CliOptions::Command c) {
    return c == CliOptions::Command::kList || c == CliOptions::Command::kRun ||
           c == CliOptions::Command::kValidate;
  };
  if (!cli || !round_tripped(cli->command)) return 0;
  const std::vector<std::string> written = canonical(*cli);
  const auto again = parse(written);
  FUZZ_CHECK(again && same(*cli, *again), joined(written));
  return 0;
}
