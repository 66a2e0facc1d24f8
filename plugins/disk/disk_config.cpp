#include "plugins/disk/disk_config.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iobench/coordinator.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/units.hpp>
#include <optional>

#include "plugins/common/path_mode.hpp"
#include "plugins/disk/device_safety.hpp"
#include "plugins/disk/disk_fio_params.hpp"
#include "plugins/disk/verify_pattern.hpp"

namespace iobench::plugins::disk {

std::vector<ParamSpec> disk_param_specs() {
  std::vector<ParamSpec> specs{
      {.key = "operation",
       .type = ParamType::kEnum,
       .default_value = "write",
       .help = "write the file(s), read them back, mixed reads and writes (see rwmix, "
               "rwmixtrim), or trim (fio's trim; randtrim = trim with seek=random): punch holes "
               "in a filled file with fallocate PUNCH_HOLE|KEEP_SIZE as fio does on files; a "
               "filesystem that cannot fails the phase with its errno (EOPNOTSUPP)",
       .choices = {"read", "write", "mixed", "trim", "randtrim"}},
      {.key = "rwmix",
       .type = ParamType::kCount,
       .default_value = "50",
       .unit = "% reads",
       .help = "operation=mixed: percentage of ops that are reads (fio's rwmixread); giving it "
               "implies operation=mixed",
       .min = 0,
       .max = 100},
      {.key = "engine",
       .type = ParamType::kString,
       .default_value = "psync",
       .help = "I/O engine: psync, pvsync2, io_uring, libaio, mmap or null, options after ':' "
               "(io_uring:fixedbufs,registerfiles,sqpoll); see the engines in this list"},
      {.key = "iodepth",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "requests",
       .help = "requests in flight per worker (asynchronous engines: io_uring, libaio)",
       .min = 1,
       .max = 4096},
      {.key = "mode",
       .type = ParamType::kEnum,
       .default_value = "buffered",
       .help = "buffered (page cache), direct (O_DIRECT) or mmap (memcpy to/from a mapping)",
       .choices = {"buffered", "direct", "mmap"}},
      {.key = "bs",
       .type = ParamType::kSize,
       .default_value = "1m",
       .unit = "bytes",
       .help = "block size of each read or write",
       .min = 1,
       .max = 1ULL << 30},
      {.key = "blocks",
       .type = ParamType::kCount,
       .default_value = "",
       .unit = "blocks",
       .help = "blocks per target (working set = blocks x bs); or give size",
       .min = 1},
      {.key = "size",
       .type = ParamType::kSize,
       .default_value = "64m",
       .unit = "bytes",
       .help = "working set per target when blocks is not given",
       .min = 1},
      {.key = "seek",
       .type = ParamType::kEnum,
       .default_value = "sequential",
       .help = "sequential, or random block order",
       .choices = {"sequential", "random"}},
      {.key = "random_order",
       .type = ParamType::kString,
       .default_value = "permutation",
       .help = "with seek=random: permutation (each block once per iteration), uniform (picks "
               "with repetition), zipf:THETA or pareto:H (skewed picks, as fio's "
               "random_distribution; pareto:0.2 = 80 % of ops on 20 % of blocks)"},
      {.key = "verify",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "stamp each block's first 40 bytes (the rest is the data pattern; not with "
               "dedupe or bonnie) with its offset, the run's seed, the write's generation (its "
               "pass) and a checksum, and check every block read (writes add a verify phase "
               "reading back what they wrote; on a block device only operation=write); a bad "
               "block fails the phase, naming its offset and whether it is misplaced (another "
               "offset's block), lost (an older generation, another run's block, or zeros) or "
               "corrupted"},
      {.key = "rate_iops",
       .type = ParamType::kCount,
       .default_value = "0",
       .unit = "ops/s",
       .help = "open loop: issue reads and writes at this rate per worker, latency measured "
               "from each op's intended time (0: as fast as possible); a write phase's closing "
               "fsync is not paced but counts in ops_per_s"},
      {.key = "rate_bytes",
       .type = ParamType::kSize,
       .default_value = "0",
       .unit = "bytes/s",
       .help = "open loop: as rate_iops, as bytes per second per worker (e.g. 100m)"},
      {.key = "latency_sample",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "ops",
       .help = "time and record the latency of 1 op in N, at a random position in each N (as "
               "fio's gtod_reduce, it cuts clock reads: psync, pvsync2 and mmap at iodepth 1 "
               "read no clock for the other ops); ops, bytes, IOPS and throughput stay exact, "
               "mean, percentiles, min and max come from the sampled ops only (JSON "
               "latency_ns.samples); 1: every op. Not with rate_iops or rate_bytes",
       .min = 1,
       .max = 1U << 20},
      {.key = "arrivals",
       .type = ParamType::kEnum,
       .default_value = "uniform",
       .help = "open loop: evenly spaced ops, or a Poisson process with the same mean rate",
       .choices = {"uniform", "poisson"}},
      {.key = "iterations",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "passes",
       .help = "passes over the working set",
       .min = 1},
      {.key = "time_based",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "fio's time_based: loop over the file(s), pass after pass, until the time limit "
               "(--time) even if a pass finishes early; needs --time (or --ops), excludes "
               "iterations. Off: the phase ends after its passes or at the limit, if sooner"},
      {.key = "prime",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "read the working set untimed first (with pread, whatever the engine), so "
               "reads come from the page cache"},
      {.key = "fsync",
       .type = ParamType::kBool,
       .default_value = "true",
       .help = "writes: fsync before close, timed (op 'fsync')"},
      {.key = "sync",
       .type = ParamType::kEnum,
       .default_value = "none",
       .help = "open with O_SYNC or O_DSYNC",
       .choices = {"none", "sync", "dsync"}},
      {.key = "shared_file",
       .type = ParamType::kEnum,
       .default_value = "off",
       .help = "under mpirun: off (a file per rank), or one file per target for all ranks, "
               "rank 0's (IOR's N-1): regions (rank r has blocks r*blocks..(r+1)*blocks-1) or "
               "interleaved (rank r has blocks r, r+N, r+2N...); blocks or size is per rank",
       .choices = {"off", "regions", "interleaved"}},
      {.key = "file",
       .type = ParamType::kString,
       .default_value = "bigfile",
       .help = "name of the file created in each target's run directory"},
      // The seeds' reports do not say what their tool wrote; incompressible data keeps a
      // compressing or deduplicating filesystem from flattering the run.
      data_param_spec("random", "default random; also fills the file a read creates"),
      {.key = "destructive",
       .type = ParamType::kString,
       .default_value = "",
       .help = "SERIAL (or --destructive SERIAL): allow writes, trims and mixed phases on whole "
               "block device targets whose serial or WWN, as sysfs reports it (device/serial, "
               "serial, wwid; a loop device: loop/backing_file), is SERIAL; refused for the "
               "root device, a mounted, swap or held device (or partition of it), and a device "
               "holding a file system or partition table signature (see force_signature)"},
      {.key = "force_signature",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "(or --force-signature) with destructive: overwrite a device even though its "
               "first blocks hold a file system, swap, LUKS, LVM or partition table signature"},
      {.key = "purge",
       .type = ParamType::kEnum,
       .default_value = "none",
       .help = "with destructive: purge each block device target before the step's phases "
               "(SNIA PTS): auto tries NVMe format/sanitize (needs libnvme, not in this build: "
               "recorded as skipped), then BLKSECDISCARD, then BLKDISCARD, then a full "
               "overwrite with zeros; secdiscard, discard or overwrite start the same order "
               "there. What was done, and why each earlier method was not, is recorded "
               "(attribute purge.N)",
       .choices = {"none", "auto", "secdiscard", "discard", "overwrite"}},
      {.key = "precondition",
       .type = ParamType::kEnum,
       .default_value = "none",
       .help = "with destructive, every target a block device: wipc = SNIA PTS's "
               "workload-independent preconditioning, an unmeasured phase 'precondition' "
               "before the others (after purge) writing twice the device's capacity in 128 KiB "
               "sequential O_DIRECT writes of the data pattern, with progress and ETA",
       .choices = {"none", "wipc"}},
  };
  for (ParamSpec& spec : fio_param_specs()) specs.push_back(std::move(spec));
  for (ParamSpec& spec : steady_state_param_specs()) specs.push_back(std::move(spec));
  for (ParamSpec& spec : curve_param_specs()) specs.push_back(std::move(spec));
  return specs;
}

namespace {

// destructive=, force_signature and purge= on their own (the targets are checked later).
void read_destructive_params(const Params& params, DiskConfig& config) {
  config.destructive = params.has("destructive") ? params.get_string("destructive") : "";
  // The ranks mpirun started: the stated number, even where iobench runs each process alone
  // (MPICH without PMIx); unknown (0) when mpirun launched this process and no variable says.
  const std::optional<std::uint32_t> stated = mpirun_stated_processes();
  const std::uint32_t ranks = stated ? *stated : (launched_by_mpirun() ? 0 : 1);
  if (!config.destructive.empty() && ranks != 1) {
    // Every rank would write, purge and precondition the same device at once.
    throw ConfigError(fmt::format(
        "disk: --destructive={} under mpirun ({}): every rank would write, purge and "
        "precondition the same block device at once; run it with one rank (without mpirun, or "
        "mpirun -n 1)",
        config.destructive, ranks > 0 ? fmt::format("{} ranks", ranks) : "ranks unknown"));
  }
  config.force_signature = params.get_bool("force_signature");
  if (config.force_signature && config.destructive.empty()) {
    throw ConfigError(
        "disk: force_signature=true (--force-signature) only applies to destructive runs on a "
        "block device; give --destructive=SERIAL too, or drop it");
  }
  config.precondition = params.get_string("precondition") == "wipc";
  if (config.precondition && config.destructive.empty()) {
    throw ConfigError(
        "disk: precondition=wipc writes whole block devices twice over, so it needs "
        "--destructive=SERIAL (the device's serial or WWN) and block device targets; give both, "
        "or drop precondition");
  }
  const std::string& purge = params.get_string("purge");
  if (purge != "none") {
    config.purge = purge == "auto"         ? PurgeMethod::kNvmeFormat
                   : purge == "secdiscard" ? PurgeMethod::kSecDiscard
                   : purge == "discard"    ? PurgeMethod::kDiscard
                                           : PurgeMethod::kOverwrite;
    if (config.destructive.empty()) {
      throw ConfigError(fmt::format(
          "disk: purge={} erases whole block devices, so it needs --destructive=SERIAL (the "
          "device's serial or WWN) and a block device target; give both, or drop purge",
          purge));
    }
  }
}

// A block device target of a destructive step: its safety rules (check_destructive_device,
// whose matched identity the config keeps) and its size.
void check_device_target(DiskConfig& config, const std::filesystem::path& target,
                         const std::string& what) {
  const CheckedDevice checked =
      check_destructive_device(target, config.destructive, config.force_signature, what);
  config.destructive_identity.back() = checked.identity;
  config.device_rdev.back() = checked.rdev;
  const std::uint64_t device_bytes = block_device_bytes(target);
  config.device_bytes.back() = device_bytes;
  if (config.precondition && device_bytes < kPreconditionBlockBytes) {
    throw ConfigError(fmt::format(
        "disk: precondition=wipc writes 128 KiB blocks, but block device '{}' has {} bytes; drop "
        "precondition",
        target.string(), device_bytes));
  }
  if (device_bytes < config.working_set_bytes()) {
    throw ConfigError(fmt::format(
        "disk: block device '{}' has {} bytes, fewer than blocks x bs = {} bytes; use a smaller "
        "size",
        target.string(), device_bytes, config.working_set_bytes()));
  }
}

// curve= and latency_target= scale the closed-loop read phase's IOPS into open-loop reads.
void check_curve(const Params& params, const DiskConfig& config) {
  if (!config.curve.active()) return;
  const std::string field = config.curve.percents.empty()
                                ? "latency_target=" + params.get_string("latency_target")
                                : "curve=" + params.get_string("curve");
  if (config.operation != Operation::kRead) {
    throw ConfigError(fmt::format(
        "disk: {} measures reads at open-loop rates, but the operation is not read; set "
        "operation=read (a write phase creates its file, so it cannot run once per rate)",
        field));
  }
  if (config.rate.active()) {
    throw ConfigError(fmt::format(
        "disk: {} sets the rates itself (from the closed-loop phase's IOPS), so {} cannot be "
        "given too; drop it",
        field, params.get_u64("rate_iops") > 0 ? "rate_iops" : "rate_bytes"));
  }
  if (config.latency_sample > 1) {
    throw ConfigError(fmt::format(
        "disk: {} runs open-loop phases, which time every op from its intended issue time; "
        "drop latency_sample={}",
        field, config.latency_sample));
  }
}

// verify=true stamps each block's first VerifyPattern::kHeaderBytes and checks the rest against
// the data pattern regenerated: patterns it cannot regenerate or that the stamp would defeat are
// refused, as is a block too small for the stamp.
void check_verify_data(const DiskConfig& config, const Params& params) {
  if (config.data.kind == DataPattern::Kind::kBonnie) {
    throw ConfigError(
        "disk: verify=true with data=bonnie: bonnie++'s buffer changes with every write, so a "
        "read cannot be checked against it; use data=random, zeros or compressible:PCT, or drop "
        "verify");
  }
  if (config.data.dedupe_percent != 0) {
    throw ConfigError(fmt::format(
        "disk: verify=true with data={}: verify stamps each block's first {} bytes with its "
        "offset, which makes every block unique, so none would repeat; drop verify or the "
        "dedupe",
        params.get_string("data"), VerifyPattern::kHeaderBytes));
  }
  if (config.block_size_bytes < VerifyPattern::kHeaderBytes) {
    throw ConfigError(fmt::format(
        "disk: verify=true with bs={}: each block starts with a {}-byte verify stamp; use bs={} "
        "or more, or drop verify",
        params.get_string("bs"), VerifyPattern::kHeaderBytes, VerifyPattern::kHeaderBytes));
  }
}

}  // namespace

DiskConfig make_disk_config(const Params& params, std::span<const std::filesystem::path> targets) {
  DiskConfig config;
  // Each value on its own first, then the rules between values: a bad value is named as itself,
  // not as a rule between values it happens to break too.
  config.distribution = BlockDistribution::parse(params.get_string("random_order"), "random_order");
  config.data = DataPattern::parse(params.get_string("data"), "disk: data");
  config.file_name = params.get_string("file");
  config.steady_state = steady_state_from_params(params, "disk");
  config.curve = curve_from_params(params);
  if (config.file_name.empty() || config.file_name.find('/') != std::string::npos ||
      config.file_name == "." || config.file_name == "..") {
    throw ConfigError(
        fmt::format("disk: file='{}' must be a plain file name without '/'", config.file_name));
  }
  config.block_size_bytes = params.get_u64("bs");
  if (config.block_size_bytes > UINT32_MAX) {
    throw ConfigError(fmt::format("disk: bs={} is too large for one request; use at most 1g",
                                  params.get_string("bs")));
  }
  const std::string& operation = params.get_string("operation");
  config.operation = operation == "read"                              ? Operation::kRead
                     : operation == "mixed"                           ? Operation::kMixed
                     : operation == "trim" || operation == "randtrim" ? Operation::kTrim
                                                                      : Operation::kWrite;
  if (params.given("rwmix")) {
    if (params.given("operation") && config.operation != Operation::kMixed) {
      throw ConfigError(fmt::format(
          "disk: rwmix={} mixes reads and writes, but operation={}; drop one of them (rwmix "
          "alone means operation=mixed)",
          params.get_string("rwmix"), operation));
    }
    config.operation = Operation::kMixed;
  }
  config.read_percent = static_cast<std::uint32_t>(params.get_u64("rwmix"));
  config.iodepth = static_cast<std::uint32_t>(params.get_u64("iodepth"));
  config.verify = params.get_bool("verify");
  if (params.get_u64("rate_iops") > 0 && params.get_u64("rate_bytes") > 0) {
    throw ConfigError(
        "disk: rate_iops and rate_bytes both given; give one rate per worker (ops or bytes per "
        "second)");
  }
  config.rate = RateLimit{.ops_per_s = static_cast<double>(params.get_u64("rate_iops")),
                          .bytes_per_s = static_cast<double>(params.get_u64("rate_bytes")),
                          .arrivals = parse_arrivals(params.get_string("arrivals"), "arrivals")};
  config.latency_sample = static_cast<std::uint32_t>(params.get_u64("latency_sample"));
  if (config.latency_sample > 1 && config.rate.active()) {
    throw ConfigError(fmt::format(
        "disk: latency_sample={} with {}={}: an open loop measures every op from its intended "
        "issue time, so that a stall shows in every op it delays (coordinated omission), and "
        "sampling would leave those delays out; drop latency_sample or the rate",
        config.latency_sample, params.get_u64("rate_iops") > 0 ? "rate_iops" : "rate_bytes",
        params.get_string(params.get_u64("rate_iops") > 0 ? "rate_iops" : "rate_bytes")));
  }
  check_curve(params, config);
  const std::string& mode = params.get_string("mode");
  config.mode = mode == "direct" ? IoMode::kDirect
                : mode == "mmap" ? IoMode::kMmap
                                 : IoMode::kBuffered;
  config.seek =
      params.get_string("seek") == "random" ? SeekPattern::kRandom : SeekPattern::kSequential;
  if (operation == "randtrim") {
    if (params.given("seek") && config.seek != SeekPattern::kRandom) {
      throw ConfigError(
          "disk: operation=randtrim trims in random order, but seek=sequential; use "
          "operation=trim for sequential trims, or drop seek");
    }
    config.seek = SeekPattern::kRandom;
  }
  const std::string& shared = params.get_string("shared_file");
  config.shared_file = shared == "regions"       ? SharedFile::kRegions
                       : shared == "interleaved" ? SharedFile::kInterleaved
                                                 : SharedFile::kOff;
  config.iterations = params.get_u64("iterations");
  config.time_based = params.get_bool("time_based");
  if (config.time_based && params.given("iterations")) {
    throw ConfigError(fmt::format(
        "disk: time_based=true repeats passes until the time limit, so iterations={} would be "
        "ignored; drop iterations or set time_based=false",
        params.get_string("iterations")));
  }
  config.prime = params.get_bool("prime");
  config.fsync = params.get_bool("fsync");
  config.sync = params.get_string("sync");
  if (config.verify) check_verify_data(config, params);

  read_fio_params(params, config);
  const char* const bs_name = config.bssplit.empty() ? "bs" : "bssplit";
  if (params.given("blocks") && params.given("size")) {
    throw ConfigError(
        "disk: blocks and size both given; give one of them (blocks=N or size=BYTES)");
  }
  if (params.has("blocks")) {
    config.blocks = params.get_u64("blocks");
  } else {
    const std::uint64_t size = params.get_u64("size");
    if (size < config.block_size_bytes) {
      throw ConfigError(fmt::format(
          "disk: {}={} is larger than size={} ({} bytes > {} bytes); use a smaller {} or a "
          "larger size",
          bs_name, params.get_string(bs_name), params.get_string("size"), config.block_size_bytes,
          size, bs_name));
    }
    if (size % config.block_size_bytes != 0) {
      throw ConfigError(fmt::format(
          "disk: size={} is not a whole number of blocks of {}={}; use a multiple of {} bytes",
          params.get_string("size"), bs_name, params.get_string(bs_name), config.block_size_bytes));
    }
    config.blocks = size / config.block_size_bytes;
  }
  if (config.blocks > (UINT64_MAX / config.block_size_bytes)) {
    throw ConfigError(fmt::format("disk: blocks={} x bs={} overflows 64 bits; use fewer blocks",
                                  config.blocks, config.block_size_bytes));
  }
  if (config.mode == IoMode::kDirect && config.block_size_bytes % AlignedBuffer::kAlignment != 0) {
    throw ConfigError(fmt::format(
        "disk: bs={} with mode=direct must be a multiple of {} bytes (O_DIRECT alignment)",
        params.get_string("bs"), AlignedBuffer::kAlignment));
  }
  if (config.prime && config.operation != Operation::kRead) {
    throw ConfigError("disk: prime=true only applies to operation=read");
  }
  check_fio_params(params, config);
  read_destructive_params(params, config);
  bool any_device = false;
  for (const auto& target : targets) {
    struct stat st {};
    const bool existing_file = ::stat(target.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
    config.existing_file_target.push_back(existing_file);
    config.destructive_identity.emplace_back();
    config.device_rdev.push_back(0);
    config.device_bytes.push_back(0);
    if (!existing_file) continue;
    any_device = any_device || S_ISBLK(st.st_mode);
    if (config.shared_file != SharedFile::kOff) {
      throw ConfigError(fmt::format(
          "disk: shared_file={} makes one file for all ranks in a directory, but target '{}' is "
          "an existing file; give a directory target or shared_file=off",
          shared, target.string()));
    }
    const std::string op_text = config.operation == Operation::kMixed ? "mixed" : operation;
    if (config.destroys() && S_ISBLK(st.st_mode) && config.destructive.empty()) {
      throw ConfigError(fmt::format(
          "disk: target '{}' is a block device; operation={} on it destroys its data, so it "
          "needs --destructive=SERIAL (the device's serial or WWN as /sys/block/NAME reports it: "
          "device/serial, serial or wwid; a loop device: loop/backing_file); reads need none",
          target.string(), op_text));
    }
    // verify on a device: after a write phase only (nothing fills a device for reads to check).
    const bool verified_device_write =
        config.verify && S_ISBLK(st.st_mode) && config.operation == Operation::kWrite;
    if (config.destroys() && S_ISBLK(st.st_mode)) {
      if (config.nrfiles == 1 && (!config.verify || verified_device_write)) {
        check_device_target(
            config, target,
            config.writes() ? "operation=" + op_text : "purge=" + params.get_string("purge"));
      }
    } else if (config.writes()) {
      throw ConfigError(fmt::format(
          "disk: target '{}' is an existing file (or device); iobench never overwrites or trims "
          "existing files, so operation={} needs a directory target",
          target.string(), op_text));
    }
    if (config.nrfiles > 1) {
      throw ConfigError(fmt::format(
          "disk: nrfiles={} makes files in a directory, but target '{}' is an existing file; "
          "give a directory target or nrfiles=1",
          config.nrfiles, target.string()));
    }
    if (config.verify && !verified_device_write) {
      throw ConfigError(fmt::format(
          "disk: verify=true checks what iobench wrote, but target '{}' is an existing file it "
          "reads in place (a block device: only operation=write under --destructive is "
          "verified, as nothing fills a device for reads to check); drop verify or give a "
          "directory target",
          target.string()));
    }
    if (S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) < config.working_set_bytes()) {
      throw ConfigError(fmt::format(
          "disk: target '{}' has {} bytes, fewer than blocks x bs = {} bytes; use fewer blocks",
          target.string(), st.st_size, config.working_set_bytes()));
    }
  }
  if (config.precondition && std::find(config.device_bytes.begin(), config.device_bytes.end(), 0) !=
                                 config.device_bytes.end()) {
    throw ConfigError(
        "disk: precondition=wipc writes whole block devices, but a target is not one (or not "
        "checked: nrfiles and verify are not for devices); give only block device targets, or "
        "drop precondition");
  }
  if (!config.destructive.empty() && (!any_device || !config.destroys())) {
    throw ConfigError(fmt::format(
        "disk: destructive={} (--destructive) allows writes to a block device target, but {}; "
        "drop it",
        config.destructive,
        any_device ? fmt::format("operation={} does not write (and there is no purge)", operation)
                   : std::string("no target is a block device")));
  }
  return config;
}

void check_disk_engine(const DiskConfig& config, const Engine& engine, const Params& params) {
  if (config.shared_file == SharedFile::kOff || !engine.caps().needs_map_size) return;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  if (config.block_size_bytes % page != 0) {
    throw ConfigError(fmt::format(
        "disk: bs={} with shared_file={} and engine {} must be a multiple of the page size ({} "
        "bytes): a mapping writes back whole pages, and a page shared with another rank's blocks "
        "would overwrite them from another host; use bs={} or more, or mode=buffered",
        params.get_string("bs"), params.get_string("shared_file"), engine.name(), page, page));
  }
}

void check_disk_limits(const DiskConfig& config, const Engine& engine,
                       std::chrono::nanoseconds time_limit, std::uint64_t ops_limit) {
  if (config.time_based && time_limit.count() <= 0 && ops_limit == 0) {
    throw ConfigError(
        "disk: time_based=true loops over the file until the time limit, but the step has none; "
        "give --time DURATION (or --ops N), or drop time_based");
  }
  // A request refused with EAGAIN is not an op: --ops alone might never be reached.
  if (config.time_based && time_limit.count() <= 0 && engine.caps().may_refuse_to_block) {
    throw ConfigError(fmt::format(
        "disk: time_based=true with engine {} (requests may be refused with EAGAIN, which count "
        "as no op) needs a time limit: --ops {} alone might never be reached; give --time "
        "DURATION",
        engine.name(), ops_limit));
  }
}

std::string disk_implied_engine(const Params& params) {
  return params.get_string("mode") == "mmap" ? "mmap" : "";
}

}  // namespace iobench::plugins::disk
