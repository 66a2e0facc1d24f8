#include "plugins/tiotest/tiotest_factory.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <iobench/error.hpp>
#include <iobench/sysinfo.hpp>
#include <iobench/units.hpp>
#include <system_error>

#include "plugins/tiotest/tiotest_workload.hpp"

namespace iobench::plugins::tiotest {

namespace {

ParamSpec boolean(std::string key, std::string help, std::string default_value = "false") {
  ParamSpec spec;
  spec.key = std::move(key);
  spec.type = ParamType::kBool;
  spec.default_value = std::move(default_value);
  spec.help = std::move(help);
  return spec;
}

ParamSpec number(std::string key, ParamType type, std::string default_value, std::string unit,
                 std::string help, std::uint64_t min, std::uint64_t max) {
  ParamSpec spec;
  spec.key = std::move(key);
  spec.type = type;
  spec.default_value = std::move(default_value);
  spec.unit = std::move(unit);
  spec.help = std::move(help);
  spec.min = min;
  if (max != UINT64_MAX) spec.max = max;  // unbounded otherwise
  return spec;
}

ParamSpec text(std::string key, std::string default_value, std::string help) {
  ParamSpec spec;
  spec.key = std::move(key);
  spec.type = ParamType::kString;
  spec.default_value = std::move(default_value);
  spec.help = std::move(help);
  return spec;
}

// Options both workloads share.
void add_io_specs(std::vector<ParamSpec>& specs, bool tiobench_names) {
  specs.push_back(boolean("serial_write",
                          tiobench_names ? "run the Write phase's threads one after another, less "
                                           "fragmentation (tiobench --nofrag)"
                                         : "run the Write phase's threads one after another, less "
                                           "fragmentation (tiotest -W)"));
  specs.push_back(boolean("drop_caches",
                          "sync and drop the page cache before each phase; needs "
                          "root (tiotest -F, tiobench --flushCaches)"));
  specs.push_back(boolean("direct",
                          "O_DIRECT on every open; block_size must be a multiple of "
                          "512 (tiotest -X, tiobench --directio)"));
  specs.push_back(boolean("raw_overwrite",
                          "allow the write phases to overwrite raw targets (devices or files); "
                          "their data is destroyed"));
  specs.push_back(text("engine", "psync",
                       "I/O engine: psync (tiotest's pread/pwrite), pvsync2, io_uring, libaio, "
                       "mmap or null, options after ':' (see the engines in this list)"));
  specs.push_back(number("iodepth", ParamType::kCount, "1", "requests",
                         "requests in flight per thread (asynchronous engines: io_uring, libaio)",
                         1, 4096));
  specs.push_back(number("rate_iops", ParamType::kCount, "0", "ops/s",
                         "open loop: issue reads and writes at this rate per thread, latency "
                         "measured from each op's intended time (0: as fast as possible, as "
                         "tiotest); the closing fsync is not paced and not an op",
                         0, UINT64_MAX));
  specs.push_back(number("rate_bytes", ParamType::kSize, "0", "bytes/s",
                         "open loop: as rate_iops, as bytes per second per thread", 0, UINT64_MAX));
  ParamSpec arrivals;
  arrivals.key = "arrivals";
  arrivals.type = ParamType::kEnum;
  arrivals.default_value = "uniform";
  arrivals.help = "open loop: evenly spaced ops, or a Poisson process with the same mean rate";
  arrivals.choices = {"uniform", "poisson"};
  specs.push_back(std::move(arrivals));
  specs.push_back(data_param_spec(
      "", tiobench_names ? "default zeros, as tiotest"
                         : "default zeros, as tiotest; random with consistency_check, as -c"));
  for (ParamSpec& spec : steady_state_param_specs()) specs.push_back(std::move(spec));
}

// The `data` param: tiotest's own choice when not given (zeros; random bytes when verifying).
DataPattern data_pattern_from(const Params& params, bool verify) {
  if (!params.has("data")) {
    return verify ? DataPattern{DataPattern::Kind::kRandom, 0}
                  : DataPattern{DataPattern::Kind::kZeros, 0};
  }
  const DataPattern data = DataPattern::parse(params.get_string("data"), "data");
  if (verify && data.kind != DataPattern::Kind::kRandom) {
    throw ConfigError(fmt::format(
        "data: consistency_check verifies every block read against random data stamped with "
        "its block number, so data={} cannot be checked; leave data out (random) or set "
        "consistency_check=false",
        data.to_string()));
  }
  return data;
}

constexpr std::uint64_t kMaxBlockSize = 1ULL << 30;

std::vector<TargetProbe> probe_all(std::span<const std::filesystem::path> targets) {
  std::vector<TargetProbe> probes;
  for (const auto& path : targets) probes.push_back(probe_target(path));
  return probes;
}

// Raw targets as the user named them: FileLocation::user_target follows their own links.
std::vector<std::filesystem::path> user_paths(std::span<const TargetProbe> probes) {
  std::vector<std::filesystem::path> paths;
  for (const TargetProbe& p : probes) paths.push_back(p.path);
  return paths;
}

// Text of an optional string param; "" when not given (an empty default means "unset").
std::string optional_text(const Params& params, std::string_view key) {
  return params.has(key) ? params.get_string(key) : std::string();
}

std::string kernel_release() {
  utsname names{};
  if (::uname(&names) != 0) return {};
  return names.release;
}

}  // namespace

std::vector<ParamSpec> tiotest_param_specs() {
  std::vector<ParamSpec> specs;
  specs.push_back(number("threads", ParamType::kCount, "4", "threads",
                         "concurrent threads, each with its own file (tiotest -t)", 1,
                         kMaxThreads));
  ParamSpec size = number("size", ParamType::kSize, "10m", "bytes",
                          "file size per thread, truncated to whole blocks (tiotest -f, in MiB "
                          "there: -f 10 is size=10m)",
                          1, UINT64_MAX);
  size.bare_number_was_mib_in = "tiotest -f";
  specs.push_back(std::move(size));
  specs.push_back(number("block_size", ParamType::kSize, "4096", "bytes",
                         "bytes per read or write (tiotest -b)", 1, kMaxBlockSize));
  specs.push_back(number("random_ops", ParamType::kCount, "100000", "ops",
                         "random reads and random writes per thread (tiotest -r)", 1, UINT64_MAX));
  specs.push_back(text("skip", "",
                       "phases to skip: write, random_write, read, random_read or 0-3, "
                       "comma-separated (tiotest -k)"));
  specs.push_back(boolean("sync", "open for writing with O_SYNC (tiotest -S)"));
  specs.push_back(boolean("mmap", "I/O by memcpy through a shared mapping (tiotest -M)"));
  specs.push_back(boolean("consistency_check",
                          "verify every block read against what was written (tiotest -c); "
                          "a block that differs fails the phase (exit 1), naming the thread, "
                          "file and offset"));
  add_io_specs(specs, false);
  specs.push_back(boolean("raw",
                          "targets are existing block devices or files; threads get "
                          "regions in them instead of files (tiotest -R)"));
  ParamSpec raw_gap = number("raw_gap", ParamType::kSize, "0", "bytes",
                             "raw: gap between consecutive thread regions (tiotest -o, MiB "
                             "there: -o 5 is raw_gap=5m)",
                             0, UINT64_MAX);
  raw_gap.bare_number_was_mib_in = "tiotest -o";
  specs.push_back(std::move(raw_gap));
  specs.push_back(boolean("raw_offset_first",
                          "raw: the first region also starts after one "
                          "raw_gap (tiotest -O)"));
  specs.push_back(boolean("terse", "print tiotest's five terse lines only (tiotest -T)"));
  specs.push_back(
      boolean("latency_table", "print the latency table (tiotest -L hides it)", "true"));
  specs.push_back(
      boolean("percentiles", "print the latency percentile and system CPU table", "true"));
  return specs;
}

std::vector<ParamSpec> tiobench_param_specs() {
  std::vector<ParamSpec> specs;
  specs.push_back(text("threads", "1,2,4,8", "thread counts to sweep (tiobench --threads)"));
  ParamSpec sizes = number("sizes", ParamType::kSizeList, "", "bytes",
                           "total file sizes over all threads to sweep, whole MiB, e.g. 256m,1g "
                           "or 2*ram (tiobench --size); default twice the RAM",
                           1, UINT64_MAX);
  sizes.bare_number_was_mib_in = "tiobench.pl --size";
  specs.push_back(std::move(sizes));
  specs.push_back(number("block_sizes", ParamType::kSizeList, "4096", "bytes",
                         "block sizes to sweep, e.g. 4k,64k (tiobench --block)", 1, kMaxBlockSize));
  specs.push_back(number("random_ops", ParamType::kCount, "4000", "ops",
                         "random ops per phase in total over all threads (tiobench --random)", 1,
                         UINT64_MAX));
  specs.push_back(number("repetitions", ParamType::kCount, "1", "runs",
                         "runs of each point, averaged (tiobench --numruns)", 1, 1000));
  specs.push_back(
      text("identifier", "", "label of the report rows (tiobench --identifier); default uname -r"));
  specs.push_back(number("timeout", ParamType::kDuration, "0", "s",
                         "skip the later runs once one run took longer than this, set-up "
                         "included; 0: no limit (tiobench --timeout)",
                         0, UINT64_MAX));
  add_io_specs(specs, true);
  return specs;
}

IoOptions io_options_from(const Params& params, const Engine& engine) {
  IoOptions io;
  io.direct = params.get_bool("direct");
  io.serial_write = params.get_bool("serial_write");
  io.drop_caches = params.get_bool("drop_caches");
  io.raw_overwrite = params.get_bool("raw_overwrite");
  io.iodepth = static_cast<std::uint32_t>(params.get_u64("iodepth"));
  io.async_engine = engine.caps().async;
  io.moves_data = engine.caps().moves_data;
  if (params.get_u64("rate_iops") > 0 && params.get_u64("rate_bytes") > 0) {
    throw ConfigError(
        "rate_iops and rate_bytes both given; give one rate per thread (ops or bytes per "
        "second)");
  }
  io.rate = RateLimit{.ops_per_s = static_cast<double>(params.get_u64("rate_iops")),
                      .bytes_per_s = static_cast<double>(params.get_u64("rate_bytes")),
                      .arrivals = parse_arrivals(params.get_string("arrivals"), "arrivals")};
  check_engine_use(engine, io.direct, io.iodepth, "direct=true");
  return io;
}

std::unique_ptr<Workload> make_tiotest_workload(const WorkloadSetup& setup) {
  const Params& params = setup.params;
  IoOptions io = io_options_from(params, setup.engine);
  io.steady_state = steady_state_from_params(params, "tiotest");
  io.sync = params.get_bool("sync");
  io.mmap = params.get_bool("mmap");
  io.verify = params.get_bool("consistency_check");
  check_engine_checks_data(setup.engine, io.verify, "consistency_check=true");
  io.data = data_pattern_from(params, io.verify);
  io.raw = params.get_bool("raw");
  io.raw_gap_bytes = params.get_u64("raw_gap");
  io.raw_offset_first = params.get_bool("raw_offset_first");

  RunPlan run;
  // Values first (skip), then the rules between them (size and block_size).
  run.run_phase = parse_skip_list(optional_text(params, "skip"), "skip");
  run.threads = static_cast<std::size_t>(params.get_u64("threads"));
  run.block_size = params.get_u64("block_size");
  const std::uint64_t size = params.get_u64("size");
  if (size < run.block_size) {
    throw ConfigError(fmt::format(
        "size: {} bytes per thread is less than one block of {} bytes; raise size (e.g. 10m) or "
        "lower block_size",
        size, run.block_size));
  }
  run.blocks = size / run.block_size;
  run.random_ops = params.get_u64("random_ops");

  const std::vector<TargetProbe> probes = probe_all(setup.targets);
  validate_plan(run, io, probes, "size");
  if (probes.size() > run.threads) {
    throw ConfigError(fmt::format(
        "targets: {} targets but only {} threads; threads are assigned to targets round-robin, "
        "so raise threads to at least {} or give fewer targets",
        probes.size(), run.threads, probes.size()));
  }

  WorkloadPlan plan;
  plan.io = io;
  plan.target_count = probes.size();
  if (io.raw) plan.raw_targets = user_paths(probes);
  plan.runs.push_back(std::move(run));
  return std::make_unique<TiotestWorkload>(std::move(plan));
}

std::unique_ptr<Workload> make_tiobench_workload(const WorkloadSetup& setup) {
  const Params& params = setup.params;
  SweepSettings sweep;
  sweep.threads = parse_count_list(params.get_string("threads"), "threads");
  if (!params.has("sizes")) {
    // tiobench.pl's default: twice MemTotal, in MiB.
    sweep.sizes_mb = {std::max<std::uint64_t>(1, 2 * (physical_memory_bytes() / (1024 * 1024)))};
  } else {
    sweep.sizes_mb = whole_mib_list(params.get_u64_list("sizes"), "sizes");
  }
  sweep.block_sizes = params.get_u64_list("block_sizes");
  for (const std::uint64_t t : sweep.threads) {
    if (t > kMaxThreads) {
      throw ConfigError(fmt::format("threads: {} is out of range; use 1 to {}", t, kMaxThreads));
    }
  }
  sweep.random_ops_total = params.get_u64("random_ops");
  sweep.repetitions = params.get_u64("repetitions");

  const std::vector<TargetProbe> probes = probe_all(setup.targets);
  std::size_t directories = 0;
  for (const TargetProbe& p : probes) directories += p.is_directory ? 1 : 0;
  IoOptions io = io_options_from(params, setup.engine);
  io.steady_state = steady_state_from_params(params, "tiobench");
  io.data = data_pattern_from(params, false);
  if (directories != 0 && directories != probes.size()) {
    throw ConfigError(
        "targets: give either only directories or only devices/files, as "
        "tiobench.pl requires");
  }
  io.raw = directories == 0 && !probes.empty();

  WorkloadPlan plan;
  plan.runs = plan_sweep(sweep);
  for (const RunPlan& run : plan.runs) validate_plan(run, io, probes, "sizes", false);
  plan.io = io;
  plan.target_count = probes.size();
  if (io.raw) plan.raw_targets = user_paths(probes);
  plan.run_timeout = params.get_duration("timeout");
  if (optional_text(params, "identifier").empty()) {
    plan.attributes.emplace_back("identifier", kernel_release());
  }
  return std::make_unique<TiotestWorkload>(std::move(plan));
}

std::string tiotest_implied_engine(const Params& params) {
  return params.has("mmap") && params.get_bool("mmap") ? "mmap" : "";
}

}  // namespace iobench::plugins::tiotest
