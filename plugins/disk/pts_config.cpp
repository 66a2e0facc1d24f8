#include "plugins/disk/pts_config.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <charconv>
#include <iobench/error.hpp>
#include <iobench/units.hpp>
#include <map>

#include "plugins/disk/device_safety.hpp"

namespace iobench::plugins::disk {
namespace {

// PTS 2.0's matrices (SNIA's IOPS, TP and LAT test definitions).
constexpr std::string_view kIopsMixes = "100/0,95/5,65/35,50/50,35/65,5/95,0/100";
constexpr std::string_view kIopsBlockSizes = "1024k,128k,64k,32k,16k,8k,4k,512";
constexpr std::string_view kThroughputMixes = "100/0,0/100";
constexpr std::string_view kThroughputBlockSizes = "1024k";
constexpr std::string_view kLatencyMixes = "100/0,65/35,0/100";
constexpr std::string_view kLatencyBlockSizes = "512,4k,8k";

// The tracked cell of each test: 4 KiB 0/100 (IOPS, latency); 0/100 at the step's block size.
constexpr std::uint32_t kTrackedReadPercent = 0;
constexpr std::uint64_t kTrackedBlockBytes = 4096;

// WSAT: RND 4KiB writes only.
constexpr std::string_view kWsatMixes = "0/100";
constexpr std::string_view kWsatBlockSizes = "4k";
// WSAT's longest run: 24 hours of 1-minute rounds.
constexpr std::size_t kWsatMaxRounds = 1440;

// DIRTH: RND 4KiB writes over thread count x queue depth.
constexpr std::string_view kDirthMixes = "0/100";
constexpr std::string_view kDirthBlockSizes = "4k";
constexpr std::string_view kDirthThreads = "1,2,4,8,16,32";
constexpr std::string_view kDirthDepths = "1,2,4,8,16,32";

std::string_view default_mixes(PtsTest test) {
  switch (test) {
    case PtsTest::kIops:
      return kIopsMixes;
    case PtsTest::kThroughput:
      return kThroughputMixes;
    case PtsTest::kLatency:
      return kLatencyMixes;
    case PtsTest::kWsat:
      return kWsatMixes;
    case PtsTest::kDirth:
      return kDirthMixes;
  }
  return kIopsMixes;
}

std::string_view default_block_sizes(PtsTest test) {
  switch (test) {
    case PtsTest::kIops:
      return kIopsBlockSizes;
    case PtsTest::kThroughput:
      return kThroughputBlockSizes;
    case PtsTest::kLatency:
      return kLatencyBlockSizes;
    case PtsTest::kWsat:
      return kWsatBlockSizes;
    case PtsTest::kDirth:
      return kDirthBlockSizes;
  }
  return kIopsBlockSizes;
}

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::vector<std::uint64_t> parse_block_sizes(std::string_view text) {
  std::vector<std::uint64_t> sizes;
  for (const std::string_view part : split_commas(text)) {
    const std::uint64_t bytes = parse_size(part, "pts: block_sizes");
    if (bytes == 0 || bytes % 512 != 0 || bytes > (64ULL << 20)) {
      throw ConfigError(fmt::format(
          "pts: block_sizes={}: '{}' is not a whole number of 512-byte sectors up to 64 MiB; "
          "use e.g. block_sizes=4k,128k",
          text, part));
    }
    if (std::find(sizes.begin(), sizes.end(), bytes) != sizes.end()) {
      throw ConfigError(fmt::format("pts: block_sizes={}: '{}' is given twice", text, part));
    }
    sizes.push_back(bytes);
  }
  return sizes;
}

// "1,2,4" -> {1, 2, 4}: whole counts in 1..`max`, ascending in the result, each once.
std::vector<std::uint32_t> parse_counts(std::string_view text, std::string_view field,
                                        std::uint32_t max) {
  std::vector<std::uint32_t> counts;
  for (const std::string_view part : split_commas(text)) {
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty() || value == 0 ||
        value > max) {
      throw ConfigError(fmt::format(
          "pts: {}={}: '{}' is not a count from 1 to {}; give comma-separated counts, e.g. "
          "{}=1,2,4,8,16,32",
          field, text, part, max, field));
    }
    if (std::find(counts.begin(), counts.end(), value) != counts.end()) {
      throw ConfigError(fmt::format("pts: {}={}: '{}' is given twice", field, text, part));
    }
    counts.push_back(value);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

// Bytes the file system holding `dir` has free for an unprivileged writer.
std::uint64_t free_bytes(const std::filesystem::path& dir) {
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) != 0) return UINT64_MAX;  // the runner reports it later
  return static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
}

// The raw params of the disk workload every cell starts from.
std::map<std::string, std::string> disk_params(const Params& params, const PtsConfig& config,
                                               bool device, std::uint64_t largest_block) {
  std::map<std::string, std::string> raw{
      {"operation", "mixed"},
      {"rwmix", "50"},
      {"seek", config.sequential ? "sequential" : "random"},
      {"bs", std::to_string(largest_block)},
      {"size", std::to_string(config.capacity_bytes)},
      {"time_based", "true"},
      {"fsync", "false"},
  };
  for (const char* key : {"engine", "iodepth", "numjobs", "mode", "data", "file"}) {
    if (params.has(key)) raw[key] = params.get_string(key);
  }
  // DIRTH: checked at its largest TC and QD (the engine's depth, the file count); each cell
  // then runs at its own.
  if (config.test == PtsTest::kDirth) {
    raw["numjobs"] = std::to_string(config.thread_counts.back());
    raw["iodepth"] = std::to_string(config.queue_depths.back());
  }
  if (params.has("destructive")) raw["destructive"] = params.get_string("destructive");
  raw["force_signature"] = params.get_string("force_signature");
  // PTS's purge and preconditioning need the raw device; a file target runs without them.
  if (device) {
    raw["purge"] = params.get_string("purge");
    // WSAT starts from the purged device: no preconditioning unless asked for.
    const bool wsat_default = config.test == PtsTest::kWsat && !params.given("precondition");
    raw["precondition"] = wsat_default ? "none" : params.get_string("precondition");
  }
  return raw;
}

void check_capacity(const Params& params, PtsConfig& config, const std::filesystem::path& target,
                    bool device) {
  const bool given = params.has("capacity") || params.has("size");
  const std::string field = params.has("capacity") ? "capacity" : "size";
  if (params.has("capacity") && params.has("size")) {
    throw ConfigError("pts: capacity and size are the same setting; give one of them");
  }
  const std::uint64_t largest =
      *std::max_element(config.block_sizes.begin(), config.block_sizes.end());
  if (device) {
    const std::uint64_t device_bytes = block_device_bytes(target);
    config.capacity_bytes =
        given ? params.get_u64(field) : device_bytes / largest * largest;  // whole blocks
    if (config.capacity_bytes > device_bytes) {
      throw ConfigError(fmt::format(
          "pts: {}={} is bigger than block device '{}' ({} bytes); give at most {} or leave "
          "{} out (the whole device)",
          field, params.get_string(field), target.string(), device_bytes, device_bytes, field));
    }
    if (given && config.capacity_bytes < device_bytes / largest * largest) {
      config.not_valid.push_back(fmt::format("capacity capped at {} of the device's {} bytes ({}=)",
                                             config.capacity_bytes, device_bytes, field));
    }
  } else {
    if (!given) {
      throw ConfigError(
          "pts: capacity: a directory target needs capacity=SIZE, the size of the file the "
          "test works on (e.g. capacity=64m); the whole-device test takes a block device with "
          "--destructive=SERIAL");
    }
    config.capacity_bytes = params.get_u64(field);
    const std::uint64_t free = free_bytes(target);
    if (config.capacity_bytes > free) {
      throw ConfigError(fmt::format(
          "pts: {}={} is bigger than the free space of target '{}' ({} bytes); give a smaller "
          "{}",
          field, params.get_string(field), target.string(), free, field));
    }
  }
  if (config.capacity_bytes < largest || config.capacity_bytes % largest != 0) {
    throw ConfigError(fmt::format(
        "pts: {}={} must be a whole number (at least 1) of the largest block size, {} bytes; "
        "e.g. {}={}",
        field, params.get_string(field), largest, field,
        std::max(largest, config.capacity_bytes / largest * largest)));
  }
}

// The settings that make the result differ from PTS's test as specified.
void note_deviations(const Params& params, PtsConfig& config, bool device) {
  if (!device) {
    config.not_valid.emplace_back("a file target, not the raw device");
    config.purge_skipped = "none (a file target: purge needs the raw device)";
    config.precondition_skipped =
        "none (a file target: workload-independent preconditioning needs the raw device)";
  } else {
    if (params.get_string("purge") == "none") config.not_valid.emplace_back("purge=none");
    if (params.get_string("precondition") == "none" && config.test != PtsTest::kWsat) {
      config.not_valid.emplace_back("precondition=none (PTS: workload-independent)");
    }
  }
  if (!config.wdpc && config.test != PtsTest::kWsat) {
    config.not_valid.emplace_back(
        "wdpc=false (PTS: workload-dependent preconditioning, the rounds run until steady)");
  }
  if (config.round_time != std::chrono::minutes(1)) {
    config.not_valid.push_back(
        fmt::format("round_time={} (PTS: 1 minute per cell)", params.get_string("round_time")));
  }
  if (params.get_string("mode") != "direct") {
    config.not_valid.emplace_back("mode=buffered (PTS bypasses the page cache)");
  }
  if (params.has("mixes") && params.get_string("mixes") != default_mixes(config.test)) {
    config.not_valid.push_back(fmt::format("mixes={}", params.get_string("mixes")));
  }
  // Throughput runs one of its two block sizes per step (the suite has a step for each).
  const bool pts_sizes =
      config.test == PtsTest::kThroughput
          ? config.block_sizes.size() == 1 &&
                (config.block_sizes[0] == (128U << 10) || config.block_sizes[0] == (1U << 20))
          : config.block_sizes == parse_block_sizes(default_block_sizes(config.test));
  if (!pts_sizes) {
    config.not_valid.push_back(fmt::format("block_sizes={}", params.get_string("block_sizes")));
  }
  if (config.test == PtsTest::kDirth) {
    if (config.thread_counts != parse_counts(kDirthThreads, "threads", 1024)) {
      config.not_valid.push_back(fmt::format("threads={}", params.get_string("threads")));
    }
    if (config.queue_depths != parse_counts(kDirthDepths, "depths", 4096)) {
      config.not_valid.push_back(fmt::format("depths={}", params.get_string("depths")));
    }
  }
}

// DIRTH's grid (threads=, depths=; their defaults) and its refusals; other tests refuse them.
void set_grid(const Params& params, PtsConfig& config, const std::string& test) {
  if (config.test != PtsTest::kDirth) {
    for (const char* key : {"threads", "depths"}) {
      if (params.has(key)) {
        throw ConfigError(fmt::format(
            "pts: {}={} is test=dirth's thread count x queue depth grid; test={} runs at "
            "numjobs= and iodepth=: drop {}",
            key, params.get_string(key), test, key));
      }
    }
    return;
  }
  for (const char* key : {"numjobs", "iodepth"}) {
    if (params.given(key)) {
      throw ConfigError(fmt::format(
          "pts: {}={}: test=dirth sweeps threads= x depths= (e.g. threads=1,2 depths=1,4); "
          "drop {}",
          key, params.get_string(key), key));
    }
  }
  config.thread_counts = parse_counts(
      params.has("threads") ? std::string_view(params.get_string("threads")) : kDirthThreads,
      "threads", 1024);
  config.queue_depths = parse_counts(
      params.has("depths") ? std::string_view(params.get_string("depths")) : kDirthDepths, "depths",
      4096);
  if (config.mixes.size() != 1 || config.block_sizes.size() != 1) {
    throw ConfigError(fmt::format(
        "pts: test=dirth runs one R/W mix at one block size, but mixes={} block_sizes={}; give "
        "one of each (PTS: mixes=0/100 block_sizes=4k)",
        params.has("mixes") ? params.get_string("mixes") : std::string(kDirthMixes),
        params.has("block_sizes") ? params.get_string("block_sizes")
                                  : std::string(kDirthBlockSizes)));
  }
}

}  // namespace

std::string_view to_string(PtsTest test) noexcept {
  switch (test) {
    case PtsTest::kIops:
      return "iops";
    case PtsTest::kThroughput:
      return "throughput";
    case PtsTest::kLatency:
      return "latency";
    case PtsTest::kWsat:
      return "wsat";
    case PtsTest::kDirth:
      return "dirth";
  }
  return "iops";
}

std::string mix_text(std::uint32_t read_percent) {
  return fmt::format("{}/{}", read_percent, 100 - read_percent);
}

std::string pts_block_size_text(std::uint64_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{}KiB", bytes / 1024);
  return fmt::format("{:g}KiB", static_cast<double>(bytes) / 1024.0);
}

std::vector<PtsCell> PtsConfig::cells() const {
  std::vector<PtsCell> out;
  if (test == PtsTest::kDirth) {
    for (const std::uint32_t threads : thread_counts) {
      for (const std::uint32_t depth : queue_depths) {
        out.push_back({mixes.front(), block_sizes.front(), threads, depth});
      }
    }
    // PTS's demand intensity runs from the largest load down.
    std::stable_sort(out.begin(), out.end(), [](const PtsCell& a, const PtsCell& b) {
      return a.oio() != b.oio() ? a.oio() > b.oio() : a.threads > b.threads;
    });
    return out;
  }
  for (const std::uint32_t mix : mixes) {
    for (const std::uint64_t size : block_sizes) {
      out.push_back({mix, size, base.numjobs, base.iodepth});
    }
  }
  return out;
}

std::vector<std::uint32_t> parse_mixes(std::string_view text) {
  std::vector<std::uint32_t> mixes;
  for (const std::string_view part : split_commas(text)) {
    const std::size_t slash = part.find('/');
    unsigned read = 0;
    unsigned write = 0;
    const auto parse = [](std::string_view digits, unsigned& value) {
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty();
    };
    if (slash == std::string_view::npos || !parse(part.substr(0, slash), read) ||
        !parse(part.substr(slash + 1), write) || read + write != 100) {
      throw ConfigError(fmt::format(
          "pts: mixes={}: '{}' is not a R/W mix; give reads/writes in whole percentages adding "
          "up to 100, comma-separated, e.g. mixes=100/0,65/35,0/100",
          text, part));
    }
    if (std::find(mixes.begin(), mixes.end(), read) != mixes.end()) {
      throw ConfigError(fmt::format("pts: mixes={}: '{}' is given twice", text, part));
    }
    mixes.push_back(read);
  }
  return mixes;
}

std::vector<ParamSpec> pts_param_specs() {
  std::vector<ParamSpec> specs{
      {.key = "test",
       .type = ParamType::kEnum,
       .default_value = "iops",
       .help = "the SNIA PTS 2.0 test: iops (RND, 7 R/W mixes x 8 block sizes), throughput "
               "(SEQ 100/0 and 0/100 at block_sizes), latency (RND TC1 QD1, 3 mixes x 3 sizes), "
               "wsat (RND 4KiB writes until 4 x capacity), dirth (RND 4KiB writes over threads "
               "x depths, descending OIO)",
       .choices = {"iops", "throughput", "latency", "wsat", "dirth"}},
      {.key = "threads",
       .type = ParamType::kString,
       .help = "dirth: thread counts (TC) of the grid, comma-separated (default 1,2,4,8,16,32); "
               "another set is not PTS-valid"},
      {.key = "depths",
       .type = ParamType::kString,
       .help = "dirth: queue depths (QD) of the grid, comma-separated (default 1,2,4,8,16,32); "
               "another set is not PTS-valid"},
      {.key = "mixes",
       .type = ParamType::kString,
       .help = "R/W mixes, reads/writes in %, comma-separated (default: the test's own); "
               "another set is not PTS-valid"},
      {.key = "block_sizes",
       .type = ParamType::kString,
       .help = "block sizes, comma-separated (default: the test's own; throughput: 1024k, the "
               "pts-throughput suite runs 128k and 1024k); another set is not PTS-valid"},
      {.key = "round_time",
       .type = ParamType::kDuration,
       .default_value = "60s",
       .unit = "s",
       .help = "how long each cell runs in each round (PTS: 1 minute); another time is not "
               "PTS-valid"},
      {.key = "rounds",
       .type = ParamType::kCount,
       .unit = "rounds",
       .help = "rounds at most (PTS: 25; wsat: 1440); the step ends earlier once the tracked "
               "cell is steady (wsat: once 4 x capacity is written)",
       .min = kPtsWindowRounds,
       .max = kWsatMaxRounds},
      {.key = "wdpc",
       .type = ParamType::kBool,
       .default_value = "true",
       .help = "PTS's workload-dependent preconditioning: the test's rounds run until the "
               "tracked cell is steady, the last 5 the window; false runs the 5 window rounds "
               "only (not PTS-valid; wsat has none)"},
      {.key = "capacity",
       .type = ParamType::kSize,
       .unit = "bytes",
       .help = "bytes the test spans: a directory target's file size (required there), or a cap "
               "on a block device (default: all of it); a cap or a file is not PTS-valid"},
      {.key = "size", .type = ParamType::kSize, .unit = "bytes", .help = "the same as capacity"},
  };
  const std::vector<ParamSpec> disk = disk_param_specs();
  for (const char* key : {"engine", "iodepth", "numjobs", "mode", "data", "file", "destructive",
                          "force_signature", "purge", "precondition"}) {
    const auto spec =
        std::find_if(disk.begin(), disk.end(), [key](const ParamSpec& s) { return s.key == key; });
    if (spec == disk.end()) continue;
    specs.push_back(*spec);
    ParamSpec& mine = specs.back();
    if (mine.key == "mode") {
      mine.default_value = "direct";
      mine.choices = {"direct", "buffered"};
      mine.help = "direct (O_DIRECT, as PTS requires) or buffered (page cache: not PTS-valid)";
    } else if (mine.key == "purge") {
      mine.default_value = "auto";
      mine.help += "; pts: auto by default on a block device, none on a file target";
    } else if (mine.key == "precondition") {
      mine.default_value = "wipc";
      mine.help += "; pts: wipc by default on a block device, none on a file target";
    }
  }
  return specs;
}

PtsConfig make_pts_config(const Params& params, std::span<const std::filesystem::path> targets) {
  PtsConfig config;
  const std::string& test = params.get_string("test");
  config.test = test == "throughput" ? PtsTest::kThroughput
                : test == "latency"  ? PtsTest::kLatency
                : test == "wsat"     ? PtsTest::kWsat
                : test == "dirth"    ? PtsTest::kDirth
                                     : PtsTest::kIops;
  config.sequential = config.test == PtsTest::kThroughput;
  config.mixes = parse_mixes(params.has("mixes") ? std::string_view(params.get_string("mixes"))
                                                 : default_mixes(config.test));
  config.block_sizes = parse_block_sizes(params.has("block_sizes")
                                             ? std::string_view(params.get_string("block_sizes"))
                                             : default_block_sizes(config.test));
  set_grid(params, config, test);
  config.round_time = params.get_duration("round_time");
  if (config.round_time.count() <= 0) {
    throw ConfigError(
        fmt::format("pts: round_time={}: each cell must run for some time in each round; give e.g. "
                    "round_time=60s (PTS's 1 minute) or round_time=100ms for a quick look",
                    params.get_string("round_time")));
  }
  const bool wsat = config.test == PtsTest::kWsat;
  config.max_rounds = params.has("rounds") ? static_cast<std::size_t>(params.get_u64("rounds"))
                      : wsat               ? kWsatMaxRounds
                                           : kPtsMaxRounds;
  config.wdpc = !wsat && params.get_bool("wdpc");
  if (!params.get_bool("wdpc")) {
    if (wsat) {
      throw ConfigError(
          "pts: wdpc=false with test=wsat: WSAT has no workload-dependent preconditioning (its "
          "rounds are the test); drop wdpc");
    }
    if (params.has("rounds")) {
      throw ConfigError(fmt::format(
          "pts: wdpc=false runs the {} rounds of the steady-state window only, but rounds={} is "
          "given; drop rounds or wdpc",
          kPtsWindowRounds, params.get_string("rounds")));
    }
    config.max_rounds = kPtsWindowRounds;
  }
  if (!wsat && config.max_rounds > kPtsMaxRounds) {
    throw ConfigError(
        fmt::format("pts: rounds={}: test={} stops at PTS's {} rounds; give at most {}",
                    params.get_string("rounds"), test, kPtsMaxRounds, kPtsMaxRounds));
  }
  if (config.test == PtsTest::kLatency &&
      (params.get_u64("iodepth") != 1 || params.get_u64("numjobs") != 1)) {
    throw ConfigError(fmt::format(
        "pts: test=latency runs at one thread and queue depth 1 (PTS's TC1 QD1), but iodepth={} "
        "numjobs={}; drop them",
        params.get_string("iodepth"), params.get_string("numjobs")));
  }
  if (targets.size() != 1) {
    throw ConfigError(fmt::format(
        "pts: a PTS test runs on one device (or one directory); {} targets given, give one -d",
        targets.size()));
  }
  const bool dirth = config.test == PtsTest::kDirth;
  // The tracked cell: 0/100 at 4 KiB (IOPS, latency) or at the step's block size (throughput);
  // DIRTH: the largest OIO, its first cell.
  config.tracking = config.test == PtsTest::kIops || wsat || dirth ? PtsTracking::kIops
                    : config.test == PtsTest::kThroughput          ? PtsTracking::kThroughput
                                                                   : PtsTracking::kMeanLatency;
  const std::uint64_t tracked_size =
      config.test == PtsTest::kThroughput ? config.block_sizes.front() : kTrackedBlockBytes;
  const auto mix = std::find(config.mixes.begin(), config.mixes.end(), kTrackedReadPercent);
  const auto size = std::find(config.block_sizes.begin(), config.block_sizes.end(), tracked_size);
  if (!dirth && (mix == config.mixes.end() || size == config.block_sizes.end())) {
    throw ConfigError(fmt::format(
        "pts: test={} tracks steady state on its 0/100 {} cell, which mixes and block_sizes "
        "leave out; keep 0/100 in mixes and {} in block_sizes",
        test, pts_block_size_text(tracked_size), pts_block_size_text(tracked_size)));
  }
  config.tracked_cell =
      dirth ? 0
            : static_cast<std::size_t>(mix - config.mixes.begin()) * config.block_sizes.size() +
                  static_cast<std::size_t>(size - config.block_sizes.begin());

  const std::filesystem::path& target = targets.front();
  struct stat st {};
  const bool device = ::stat(target.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
  check_capacity(params, config, target, device);
  note_deviations(params, config, device);
  const std::uint64_t largest =
      *std::max_element(config.block_sizes.begin(), config.block_sizes.end());
  const Params disk =
      Params::validate(disk_param_specs(), disk_params(params, config, device, largest), "pts");
  config.base = make_disk_config(disk, targets);
  return config;
}

}  // namespace iobench::plugins::disk
