#include "plugins/bonnie/register.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>

#include <iobench/data_pattern.hpp>
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
       .type = ParamType::kSize,
       .unit = "bytes",
       .help = "file size per copy, a whole number of MiB (bonnie++ -s; e.g. 2g, 2*ram); default "
               "max(300 MiB, 2 x RAM); 0 = no I/O tests",
       .bare_number_was_mib_in =
           "bonnie++ -s (give its whole size:chunk:seeks:seekers text as bonnie_s=)"},
      {.key = "chunk_size",
       .type = ParamType::kSize,
       .unit = "bytes",
       .help = "bytes per read and write of the I/O tests, a power of 2 (bonnie++ -s :chunk); "
               "default 8k",
       .min = kMinChunkBytes,
       .max = kMaxChunkBytes},
      {.key = "seeks",
       .type = ParamType::kCount,
       .unit = "seeks",
       .help = "random seeks per copy (bonnie++ -s ::seeks); default 8192; 0 skips the seeks test",
       .max = kMaxSeeks},
      {.key = "seekers",
       .type = ParamType::kCount,
       .unit = "workers",
       .help = "concurrent seekers per copy (bonnie++ -s :::seekers); default 5; 0 skips the "
               "seeks test",
       .max = kMaxSeekers},
      {.key = "bonnie_s",
       .type = ParamType::kString,
       .help = "bonnie++'s own -s text, size in MiB: size[:chunk[:seeks[:seekers]]], e.g. "
               "bonnie_s=64:8k (64 MiB); instead of size, chunk_size, seeks and seekers"},
      {.key = "files",
       .type = ParamType::kString,
       .default_value = "16",
       .help = "bonnie++ -n: num[:max[:min[:dirs[:chunk]]]]; num in 1024s of files, max/min "
               "file size in bytes (max -1 = hard links, -2 = symlinks), dirs (1..99999), chunk; "
               "0 = no file tests"},
      {.key = "ram",
       .type = ParamType::kSize,
       .unit = "bytes",
       .help = "RAM to plan for, a whole number of MiB (bonnie++ -r; e.g. 16g); default: this "
               "machine's; 0 turns the RAM checks off",
       .bare_number_was_mib_in = "bonnie++ -r"},
      {.key = "force",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "run even when the file is smaller than 2 x RAM or the file count is large for "
               "the RAM (a warning is recorded)"},
      {.key = "per_char",
       .type = ParamType::kSize,
       .default_value = "3m",
       .unit = "bytes",
       .help = "bytes moved by the per-char tests (one-byte write/read calls), a whole number of "
               "MiB (bonnie++ -fN); 0 = bonnie++ -f, skip them",
       .bare_number_was_mib_in = "bonnie++ -fN"},
      {.key = "fsync",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "bonnie++ -b: fsync after each seek rewrite, file create (file and directory) "
               "and unlink (directory)"},
      {.key = "direct",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "O_DIRECT on block output, rewrite, block input and seeks (bonnie++ 2.00a -D: only "
               "on creating the file); per-char phases stay buffered; chunk a multiple of 4k"},
      data_param_spec("bonnie", "block output and file data; default bonnie, as bonnie++ 2.00a"),
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
      .uses_engine = false,
      .fixed_engine_reason =
          "it makes the system calls bonnie++ makes (write/read/lseek with its own buffer "
          "sizes, putc/getc, creat/stat/unlink), so its figures stay comparable with bonnie++'s; "
          "compare engines with the disk or tiotest workloads",
  });
  registrar.add_formatter("bonnie", "text", format_text_step);
  registrar.add_formatter("bonnie", "csv", format_csv_step);
}

}  // namespace iobench::plugins::bonnie
