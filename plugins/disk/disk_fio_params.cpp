#include "plugins/disk/disk_fio_params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/units.hpp>

namespace iobench::plugins::disk {
namespace {

constexpr std::chrono::seconds kMaxThinktime{60};

// fio's time unit for thinktime: a plain number is microseconds; "2ms", "1s" as a duration.
std::chrono::nanoseconds parse_thinktime(const Params& params, const std::string& key) {
  const std::string& text = params.get_string(key);
  const auto fix = [&](std::string_view why) {
    return ConfigError(fmt::format(
        "disk: {}={} {}; give microseconds (e.g. {}=500) or a duration with a unit (250us, 2ms, "
        "1s), at most {} s",
        key, text, why, key, kMaxThinktime.count()));
  };
  if (!text.empty() && text.front() == '-') throw fix("is negative");
  std::chrono::nanoseconds value{0};
  if (!text.empty() &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (text.size() > 12) throw fix("is too long");
    value = std::chrono::microseconds(std::stoull(text));
  } else {
    try {
      value = parse_duration(text, key);
    } catch (const ConfigError&) {
      throw fix("is not a time");
    }
  }
  if (value > kMaxThinktime) throw fix("is too long");
  return value;
}

}  // namespace

std::vector<ParamSpec> fio_param_specs() {
  return {
      {.key = "numjobs",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "workers",
       .help = "fio's numjobs: workers per target, each with its own file(s) (FILE.JOB.N when "
               "numjobs or nrfiles is above 1) and its own size/blocks, all running together; "
               "per-worker figures list each",
       .min = 1,
       .max = 1024},
      {.key = "nrfiles",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "files",
       .help = "fio's nrfiles: files per worker, size (or blocks) split evenly among them (as "
               "fio); ops go to the files in turn (fio's default file_service_type=roundrobin, "
               "the only one here), each file with its own sequential or random order; the "
               "files are removed with the run directory. Not with verify or shared_file",
       .min = 1,
       .max = 4096},
      {.key = "bssplit",
       .type = ParamType::kString,
       .default_value = "",
       .help = "fio's bssplit: a mix of block sizes, SIZE/PERCENT joined by ':' summing to 100 "
               "(4k/50:64k/40:1m/10); read,write,trim lists separated by ',' as fio takes them. "
               "Unlike fio, every op starts on a block of the largest size (the working set is "
               "counted in those blocks), so a sequential pass leaves the rest of a block "
               "untouched after a smaller op; results count ops per size (ops_bs_SIZE). Not "
               "with bs"},
      {.key = "thinktime",
       .type = ParamType::kString,
       .default_value = "0",
       .unit = "us",
       .help = "fio's thinktime: pause this long after each op (or each thinktime_blocks ops), "
               "untimed, before the next; microseconds, or with a unit (2ms). With iodepth 1 "
               "and no rate only"},
      {.key = "thinktime_spin",
       .type = ParamType::kString,
       .default_value = "0",
       .unit = "us",
       .help = "fio's thinktime_spin: busy-spin the first part of each thinktime instead of "
               "sleeping (at most thinktime)"},
      {.key = "thinktime_blocks",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "ops",
       .help = "fio's thinktime_blocks: ops between pauses",
       .min = 1},
      {.key = "rwmixtrim",
       .type = ParamType::kCount,
       .default_value = "0",
       .unit = "% trims",
       .help =
           "operation=mixed: percentage of ops that are trims (holes punched with fallocate "
           "PUNCH_HOLE|KEEP_SIZE, as fio's trims on files); writes get what rwmix and this "
           "leave; giving it implies operation=mixed. fio has no trim share in randrw (its "
           "trimwrite pairs them instead). A trim is one fallocate call made synchronously where "
           "the engine submits (io_uring and libaio too), so it holds the queue up meanwhile",
       .min = 0,
       .max = 100},
  };
}

void read_fio_params(const Params& params, DiskConfig& config) {
  config.numjobs = static_cast<std::uint32_t>(params.get_u64("numjobs"));
  config.nrfiles = static_cast<std::uint32_t>(params.get_u64("nrfiles"));
  config.thinktime = parse_thinktime(params, "thinktime");
  config.thinktime_spin = parse_thinktime(params, "thinktime_spin");
  config.thinktime_blocks = params.get_u64("thinktime_blocks");
  if (config.thinktime_spin > config.thinktime) {
    throw ConfigError(fmt::format(
        "disk: thinktime_spin={} is longer than thinktime={}; the spin is part of the pause, "
        "give at most thinktime",
        params.get_string("thinktime_spin"), params.get_string("thinktime")));
  }
  if (params.has("bssplit")) {
    if (params.given("bs")) {
      throw ConfigError(fmt::format(
          "disk: bs={} and bssplit={} both given; give one (bssplit sets every op's size)",
          params.get_string("bs"), params.get_string("bssplit")));
    }
    config.bssplit =
        BlockSizeSplit::parse(params.get_string("bssplit"), "bssplit", 1ULL << 30,
                              config.mode == IoMode::kDirect ? AlignedBuffer::kAlignment : 1);
    config.block_size_bytes = config.bssplit.max_size();
  }
  config.trim_percent = static_cast<std::uint32_t>(params.get_u64("rwmixtrim"));
  if (params.given("rwmixtrim")) {
    if (!params.given("operation")) config.operation = Operation::kMixed;  // as rwmix does
    if (config.operation != Operation::kMixed) {
      throw ConfigError(
          fmt::format("disk: rwmixtrim={} is a share of a mixed phase, but operation={} ({}); use "
                      "operation=mixed, or operation=trim for trims only",
                      params.get_string("rwmixtrim"), params.get_string("operation"),
                      config.operation == Operation::kRead ? "read-only" : "not mixed"));
    }
    if (config.trim_percent + config.read_percent > 100) {
      throw ConfigError(fmt::format(
          "disk: rwmixtrim={} with rwmix={} is {} % of ops; the two shares must sum to at most "
          "100 (writes get the rest)",
          config.trim_percent, config.read_percent, config.trim_percent + config.read_percent));
    }
  }
}

void check_fio_params(const Params& params, const DiskConfig& config) {
  if (config.blocks % config.nrfiles != 0) {
    throw ConfigError(fmt::format(
        "disk: nrfiles={} does not divide the {} blocks of bs={} evenly; give blocks (or size) "
        "a multiple of {} blocks",
        config.nrfiles, config.blocks, config.block_size_bytes, config.nrfiles));
  }
  const bool several = config.nrfiles > 1 || config.numjobs > 1;
  if (several && config.shared_file != SharedFile::kOff) {
    throw ConfigError(fmt::format(
        "disk: shared_file={} shares one file among ranks, but numjobs={} nrfiles={}; use "
        "numjobs=1 nrfiles=1 with shared_file",
        params.get_string("shared_file"), config.numjobs, config.nrfiles));
  }
  if (config.verify && (config.nrfiles > 1 || config.trims())) {
    throw ConfigError(fmt::format(
        "disk: verify=true with {}; verify checks one file that keeps what was written, drop "
        "verify or {}",
        config.nrfiles > 1 ? fmt::format("nrfiles={}", config.nrfiles) : std::string("trims"),
        config.nrfiles > 1 ? "use nrfiles=1" : "the trims"));
  }
  if (config.verify && !config.bssplit.empty()) {
    throw ConfigError(fmt::format(
        "disk: verify=true with bssplit={}: verify checks whole blocks of one size; drop verify "
        "or give bs",
        config.bssplit.text()));
  }
  if (config.thinktime.count() > 0 && config.iodepth > 1) {
    throw ConfigError(fmt::format(
        "disk: thinktime={} with iodepth={}: the pause would fall into the latency of the "
        "requests in flight; use iodepth=1 or drop thinktime",
        params.get_string("thinktime"), config.iodepth));
  }
  if (config.thinktime.count() > 0 && config.rate.active()) {
    throw ConfigError(fmt::format(
        "disk: thinktime={} with a rate: an open loop sets each op's issue time itself; drop "
        "thinktime or the rate",
        params.get_string("thinktime")));
  }
}

std::string disk_file_name(const DiskConfig& config, std::uint32_t job, std::uint32_t file) {
  if (config.numjobs == 1 && config.nrfiles == 1) return config.file_name;
  return fmt::format("{}.{}.{}", config.file_name, job, file);
}

void set_fio_attributes(const DiskConfig& config, PrepareContext& ctx) {
  if (config.numjobs > 1) ctx.set_attribute("numjobs", static_cast<std::int64_t>(config.numjobs));
  if (config.nrfiles > 1) {
    ctx.set_attribute("nrfiles", static_cast<std::int64_t>(config.nrfiles));
    ctx.set_attribute("file_service_type", std::string("roundrobin"));
  }
  if (!config.bssplit.empty()) ctx.set_attribute("bssplit", config.bssplit.text());
  if (config.thinktime.count() > 0) {
    ctx.set_attribute("thinktime_us", static_cast<std::int64_t>(config.thinktime.count() / 1000));
    ctx.set_attribute("thinktime_spin_us",
                      static_cast<std::int64_t>(config.thinktime_spin.count() / 1000));
    ctx.set_attribute("thinktime_blocks", static_cast<std::int64_t>(config.thinktime_blocks));
  }
  if (config.trim_percent > 0) {
    ctx.set_attribute("rwmixtrim_percent", static_cast<std::int64_t>(config.trim_percent));
  }
}

}  // namespace iobench::plugins::disk
