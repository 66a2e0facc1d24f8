#include "plugins/dbench/dbench_config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iobench/error.hpp>
#include <iobench/params.hpp>

namespace iobench::plugins::dbench {

namespace {

ParamSpec flag(std::string key, std::string help) {
  return ParamSpec{.key = std::move(key),
                   .type = ParamType::kBool,
                   .default_value = "false",
                   .help = std::move(help)};
}

}  // namespace

std::vector<ParamSpec> dbench_param_specs() {
  return {
      ParamSpec{.key = "procs",
                .type = ParamType::kCount,
                .default_value = "1",
                .unit = "processes",
                .help = "client processes started together (dbench's NPROCS argument)",
                .min = 1,
                .max = 4096},
      ParamSpec{.key = "clients_per_process",
                .type = ParamType::kCount,
                .default_value = "1",
                .unit = "clients",
                .help = "clients per process, run in lock-step (--clients-per-process)",
                .min = 1,
                .max = 256},
      ParamSpec{.key = "time_limit",
                .type = ParamType::kDuration,
                .default_value = "600s",
                .unit = "s",
                .help = "length of the timed execute period after warm-up (-t)",
                .min = 1'000'000},
      ParamSpec{.key = "warmup",
                .type = ParamType::kDuration,
                .unit = "s",
                .help = "warm-up before the execute period; default: whole seconds of "
                        "time_limit / 5, as dbench"},
      ParamSpec{.key = "loadfile",
                .type = ParamType::kString,
                .default_value = "/usr/share/dbench/client.txt",
                .help = "loadfile (plain or gzip); a comma-separated list is spread over the "
                        "processes (-c)"},
      ParamSpec{.key = "max_loadfile_size",
                .type = ParamType::kSize,
                .default_value = "128m",
                .unit = "bytes",
                .help = "largest loadfile text accepted (after gzip decompression); reading "
                        "stops there, so memory stays bounded",
                .min = 1,
                .max = 1ULL << 40},
      ParamSpec{.key = "format",
                .type = ParamType::kEnum,
                .default_value = "auto",
                .help = "loadfile dialect: dbench 3/4 NBench or dbench 2; auto decides from the "
                        "first operation line",
                .choices = {"auto", "nbench", "dbench2"}},
      ParamSpec{.key = "unknown_ops",
                .type = ParamType::kEnum,
                .default_value = "error",
                .help = "unknown operation names: a parse error, or skipped with a counted "
                        "warning",
                .choices = {"error", "warn"}},
      ParamSpec{.key = "status_mismatch",
                .type = ParamType::kEnum,
                .default_value = "stop",
                .help = "an Unlink/Rmdir/Rename status mismatch, a failed write or a missing "
                        "handle stops the run (dbench) or is counted per operation",
                .choices = {"stop", "count"}},
      ParamSpec{.key = "target_rate",
                .type = ParamType::kDouble,
                .default_value = "0",
                .unit = "MB/s",
                .help = "per-client target rate, MB = 10^6 bytes; overrides timestamps; 0: "
                        "none (-R)"},
      flag("sync_open", "open files with O_SYNC (-s)"),
      flag("sync_dirs", "fdatasync the directory after unlink, rmdir and rename (-S)"),
      flag("fsync", "fsync after every write (-F)"),
      flag("xattr", "keep DOS attributes in the user.DosAttrib xattr (-x)"),
      flag("no_resolve", "no case-insensitive directory scan after a failed stat (--no-resolve)"),
      flag("stat_check", "skip pointless creates, mkdirs and rmdirs after a stat (--stat-check)"),
      flag("one_byte_write_fix",
           "turn 1-byte writes of a byte already there into no-ops or truncates "
           "(--one-byte-write-fix)"),
      flag("fake_io", "count ReadX/WriteX bytes without doing the I/O (--fake-io)"),
      flag("skip_cleanup", "leave the clients' files (--skip-cleanup)"),
      flag("per_client_results", "print a table per client (--per-client-results)"),
      flag("run_once", "stop at the end of the loadfile instead of looping it (--run-once)"),
      data_param_spec("zeros", "default zeros, as dbench 4.00; a WRITEPATTERN line overrides it"),
  };
}

std::uint64_t DbenchConfig::tick_seconds() const noexcept {
  const auto ns = static_cast<std::uint64_t>(time_limit.count());
  const std::uint64_t whole = (ns + 999'999'999ULL) / 1'000'000'000ULL;
  return whole > 0 ? whole - 1 : 0;
}

DbenchConfig read_dbench_config(const Params& params) {
  DbenchConfig c;
  c.procs = static_cast<std::size_t>(params.get_u64("procs"));
  c.clients_per_process = static_cast<std::size_t>(params.get_u64("clients_per_process"));
  c.time_limit = params.get_duration("time_limit");
  if (params.has("warmup")) {
    c.warmup = params.get_duration("warmup");
  } else {
    // dbench: warmup = timelimit / 5 in integer seconds (-t 10 gives 2, -t 4 gives 0).
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(c.time_limit).count();
    c.warmup = std::chrono::seconds(seconds / 5);
  }
  const std::string& list = params.get_string("loadfile");
  for (const std::string_view name : split_list_param(
           list, "dbench: loadfile", "client.txt,other.txt", ListSeparators::kCommas)) {
    c.loadfiles.emplace_back(name);
  }
  c.max_loadfile_bytes = static_cast<std::size_t>(params.get_u64("max_loadfile_size"));
  const std::string& format = params.get_string("format");
  c.format = format == "nbench"    ? LoadfileFormat::kNbench
             : format == "dbench2" ? LoadfileFormat::kDbench2
                                   : LoadfileFormat::kAuto;
  c.unknown_ops =
      params.get_string("unknown_ops") == "warn" ? UnknownOpPolicy::kWarn : UnknownOpPolicy::kError;
  c.target_rate_mb_s = params.get_double("target_rate");
  if (!std::isfinite(c.target_rate_mb_s) || c.target_rate_mb_s < 0) {
    throw ConfigError(fmt::format(
        "dbench: target_rate '{}' is not a rate; give MB/s per client (MB = 10^6 bytes) >= 0, "
        "or 0 for none",
        params.get_string("target_rate")));
  }
  c.fileio.sync_open = params.get_bool("sync_open");
  c.fileio.sync_dirs = params.get_bool("sync_dirs");
  c.fileio.fsync_writes = params.get_bool("fsync");
  c.fileio.xattr = params.get_bool("xattr");
  c.fileio.no_resolve = params.get_bool("no_resolve");
  c.fileio.stat_check = params.get_bool("stat_check");
  c.fileio.one_byte_write_fix = params.get_bool("one_byte_write_fix");
  c.fileio.fake_io = params.get_bool("fake_io");
  c.fileio.stop_on_mismatch = params.get_string("status_mismatch") == "stop";
  c.fileio.data = DataPattern::parse(params.get_string("data"), "dbench: data");
  c.skip_cleanup = params.get_bool("skip_cleanup");
  c.per_client_results = params.get_bool("per_client_results");
  c.run_once = params.get_bool("run_once");
  return c;
}

}  // namespace iobench::plugins::dbench
