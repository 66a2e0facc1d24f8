#include "plugins/bonnie/register.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>

#include <iobench/sysinfo.hpp>
#include <iobench/workload.hpp>

#include "plugins/bonnie/bonnie_workload.hpp"
#include "plugins/bonnie/config.hpp"
#include "plugins/bonnie/csv_formatter.hpp"
#include "plugins/bonnie/text_formatter.hpp"

namespace iobench::plugins::bonnie {
namespace {

std::vector<ParamSpec> param_specs() {
  return {
      {.key = "size",
       .type = ParamType::kString,
       .help = "bonnie++ -s: size[:chunk[:seeks[:seekers]]]; size in MiB (suffix g, t), chunk "
               "in bytes (power of 2, 256..1m, default 8k), seeks (default 8192), seekers "
               "(default 5); default max(300 MiB, 2 x RAM); 0 = no I/O tests"},
      {.key = "files",
       .type = ParamType::kString,
       .default_value = "16",
       .help = "bonnie++ -n: num[:max[:min[:dirs[:chunk]]]]; num in 1024s of files, max/min "
               "file size in bytes (max -1 = hard links, -2 = symlinks), dirs (1..99999), chunk; "
               "0 = no file tests"},
      {.key = "ram",
       .type = ParamType::kCount,
       .unit = "MiB",
       .help = "bonnie++ -r: RAM to plan for (default: this machine's); 0 turns the RAM checks "
               "off"},
      {.key = "force",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "run even when the file is smaller than 2 x RAM or the file count is large for "
               "the RAM (a warning is recorded)"},
      {.key = "per_char",
       .type = ParamType::kCount,
       .default_value = "3",
       .unit = "MiB",
       .help = "bonnie++ -fN: MiB moved by the per-char tests (one-byte write/read calls); 0 = "
               "bonnie++ -f, skip them"},
      {.key = "fsync",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "bonnie++ -b: fsync after each seek rewrite, file create (file and directory) "
               "and unlink (directory)"},
      {.key = "direct",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "bonnie++ -D: O_DIRECT for block output (not per-char output, where one-byte "
               "O_DIRECT writes fail); chunk must be a multiple of 4k"},
      {.key = "repetitions",
       .type = ParamType::kCount,
       .default_value = "1",
       .help = "bonnie++ -x: run all tests this many times, same seed each time",
       .min = 1,
       .max = 10000},
      {.key = "seed",
       .type = ParamType::kCount,
       .help = "bonnie++ -z: seed of names, file sizes, orders and seek offsets (default: the "
               "step's seed)"},
      {.key = "machine",
       .type = ParamType::kString,
       .help = "bonnie++ -m: machine name in the report (default: the host name)"},
      {.key = "phases",
       .type = ParamType::kString,
       .default_value = "all",
       .help = "tests to measure: all, io, files, per_char, or names putc, put_block, rewrite, "
               "getc, get_block, seeks, seq_create, seq_stat, seq_del, ran_create, ran_stat, "
               "ran_del (comma-separated)"},
      {.key = "processes",
       .type = ParamType::kCount,
       .help = "concurrent copies, each a process with its own file, started together before "
               "each test (bonnie++ -p N with -y s); default: one per target",
       .min = 1,
       .max = 256},
      {.key = "report_format",
       .type = ParamType::kEnum,
       .default_value = "2.00",
       .help = "text table and CSV of bonnie++ 2.00 (CSV 1.98) or 1.97",
       .choices = {"2.00", "1.97"}},
  };
}

HostFacts host_facts(std::size_t target_count) {
  HostFacts host;
  host.physical_memory_bytes = physical_memory_bytes();
  utsname names{};
  if (::uname(&names) == 0) host.hostname = names.nodename;
  if (host.hostname.empty()) host.hostname = "localhost";
  host.target_count = target_count;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) host.open_files_limit = limit.rlim_cur;
  return host;
}

}  // namespace

void register_family(PluginRegistrar& registrar) {
  registrar.add_workload(WorkloadInfo{
      .name = "bonnie",
      .summary = "bonnie++ 2.00a: per-char and block output, rewrite, per-char and block input, "
                 "random seeks, file create/stat/delete",
      .params = param_specs(),
      .factory = [](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        return std::make_unique<BonnieWorkload>(
            make_config(raw_options_from(setup.params), host_facts(setup.targets.size())));
      },
      .needs_directory_targets = true,
  });
  registrar.add_formatter("bonnie", "text", format_text_step);
  registrar.add_formatter("bonnie", "csv", format_csv_step);
}

}  // namespace iobench::plugins::bonnie
