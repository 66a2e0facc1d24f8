#include "plugins/io500/io500_workload.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/printable.hpp>
#include <iobench/result.hpp>
#include <iobench/run_dir_name.hpp>
#include <iobench/sysinfo.hpp>
#include <limits>
#include <sstream>
#include <string>

#include "plugins/common/fs_checkpoint.hpp"
#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/common/rank0_dirs.hpp"
#include "plugins/io500/io500_workers.hpp"
#include "plugins/io500/score.hpp"

namespace iobench::plugins::io500 {
namespace {

constexpr const char* kDataDir = "datafiles";
constexpr const char* kTimestampFile = "timestampfile";

bool is_write(Io500Phase p) noexcept {
  return p == Io500Phase::kIorEasyWrite || p == Io500Phase::kMdtestEasyWrite ||
         p == Io500Phase::kIorHardWrite || p == Io500Phase::kMdtestHardWrite;
}

bool is_ior_write(Io500Phase p) noexcept {
  return p == Io500Phase::kIorEasyWrite || p == Io500Phase::kIorHardWrite;
}

std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string join(const std::vector<std::uint64_t>& v) {
  std::string out;
  for (const std::uint64_t x : v) out += (out.empty() ? "" : " ") + std::to_string(x);
  return out;
}

// One rank's counts after a write phase: what it did, what it had done at the stonewall, and
// when it saw the stonewall (0: it finished first).
struct RankCounts {
  std::uint64_t done = 0;
  std::uint64_t at_stonewall = 0;
  std::uint64_t stonewall_ns = 0;
};

// IOR's stonewall figures of an ior write phase its stonewall cut short, over every rank (of
// every process under mpirun): the data moved by the stonewall and IO500's throughput-stonewall
// (that data over the stonewall time), then the data after the wear-out.
void report_stonewall(const std::string& phase, const std::vector<RankCounts>& ranks,
                      PrepareContext& ctx) {
  const std::uint64_t transfer =
      phase == kPhaseOrder[0] ? kIorEasyTransferBytes : kIorHardTransferBytes;
  std::vector<std::uint64_t> at_stonewall;
  std::vector<std::uint64_t> done;
  std::uint64_t stonewall_ns = 0;
  std::uint64_t sum_at = 0;
  std::uint64_t sum_done = 0;
  for (const RankCounts& r : ranks) {
    at_stonewall.push_back(r.at_stonewall);
    done.push_back(r.done);
    sum_at += r.at_stonewall;
    sum_done += r.done;
    stonewall_ns = std::max(stonewall_ns, r.stonewall_ns);
  }
  if (stonewall_ns == 0) return;  // every rank finished before the stonewall
  const double seconds = static_cast<double>(stonewall_ns) / 1e9;
  const double throughput = gib_per_s(sum_at * transfer, seconds);
  ctx.set_attribute("stonewall_bytes." + phase, static_cast<std::int64_t>(sum_at * transfer));
  ctx.set_attribute("stonewall_s." + phase, seconds);
  ctx.set_attribute("throughput_stonewall_gib_s." + phase, throughput);
  ctx.set_attribute(
      "stonewall." + phase,
      fmt::format(
          "stonewall hit after {:.3f} s: {} bytes written by then (transfers per rank: {}), "
          "throughput-stonewall {:.2f} GiB/s; after the wear-out: {} bytes (transfers per "
          "rank: {})",
          seconds, sum_at * transfer, join(at_stonewall), throughput, sum_done * transfer,
          join(done)));
}

// The write phase whose files a phase acts on.
Io500Phase writer_of(Io500Phase p) noexcept {
  switch (p) {
    case Io500Phase::kIorEasyRead:
    case Io500Phase::kIorRnd4kEasyRead:
      return Io500Phase::kIorEasyWrite;
    case Io500Phase::kIorHardRead:
      return Io500Phase::kIorHardWrite;
    case Io500Phase::kMdtestEasyStat:
    case Io500Phase::kMdtestEasyDelete:
      return Io500Phase::kMdtestEasyWrite;
    case Io500Phase::kMdtestHardStat:
    case Io500Phase::kMdtestHardRead:
    case Io500Phase::kMdtestHardDelete:
      return Io500Phase::kMdtestHardWrite;
    default:
      return p;
  }
}

// The phases cache_proof drops the page cache before: those that act on what the writes left
// (read, stat, find, and delete: unlinking an inode still cached from the read before it skips
// the reads a cold one needs, which IO500's drop before every phase does not leave).
bool acts_on_written_data(Io500Phase p) noexcept {
  switch (p) {
    case Io500Phase::kFind:
    case Io500Phase::kFindEasy:
    case Io500Phase::kIorEasyRead:
    case Io500Phase::kIorRnd4kEasyRead:
    case Io500Phase::kMdtestEasyStat:
    case Io500Phase::kIorHardRead:
    case Io500Phase::kMdtestHardStat:
    case Io500Phase::kMdtestHardRead:
    case Io500Phase::kMdtestEasyDelete:
    case Io500Phase::kMdtestHardDelete:
      return true;
    default:
      return false;
  }
}

// The list's phases in its order; with `extended`, find-easy after mdtest-easy-write (where
// IO500's extended mode runs it, while the easy tree exists) and ior-rnd4K-easy-read last.
std::vector<Io500Phase> phase_plan(bool extended) {
  std::vector<Io500Phase> plan;
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    plan.push_back(static_cast<Io500Phase>(i));
    if (extended && plan.back() == Io500Phase::kMdtestEasyWrite)
      plan.push_back(Io500Phase::kFindEasy);
  }
  if (extended) plan.push_back(Io500Phase::kIorRnd4kEasyRead);
  return plan;
}

bool is_find(Io500Phase p) noexcept { return p == Io500Phase::kFind || p == Io500Phase::kFindEasy; }

}  // namespace

std::string longest_full_path(const Io500Config& c, std::string_view run_dir,
                              std::uint64_t total_ranks) {
  const auto rank = static_cast<std::uint32_t>(total_ranks > 0 ? total_ranks - 1 : 0);
  // As the ops name them: the data directory's path (ConfinedDir::shown()), the phase's
  // directory, the file (Io500Worker::mdtest()).
  const std::string data = fmt::format("{}/{}/", run_dir, kDataDir);
  const std::string easy = fmt::format("{}{}/file.mdtest.{}.{}", data, mdtest_easy_dir(rank), rank,
                                       c.mdtest_easy_items - 1);
  const std::string hard =
      fmt::format("{}{}/file.mdtest.{}.{}", data, kMdtestHardDir, rank, c.mdtest_hard_items - 1);
  return easy.size() >= hard.size() ? easy : hard;
}

void check_full_path_length(const Io500Config& c, const std::filesystem::path& target,
                            std::uint32_t processes) {
  if (c.paths != PathMode::kFull) return;
  const std::uint64_t total_ranks = std::uint64_t{c.ranks} * std::max<std::uint32_t>(processes, 1);
  // Under mpirun every process works in the run directory rank 0's process made.
  ::iobench::plugins::check_full_path_length(
      longest_full_path(c, longest_run_dir_path(target, processes > 1).string(), total_ranks),
      "io500",
      fmt::format("target={} ranks={} ({} in all) mdtest_easy_items={} mdtest_hard_items={}",
                  printable(target.string()), c.ranks, total_ranks, c.mdtest_easy_items,
                  c.mdtest_hard_items),
      "or a shorter target");
}

Io500Workload::Io500Workload(Io500Config config)
    : config_(config), plan_(phase_plan(config.extended)) {}

std::vector<PhaseSpec> Io500Workload::phases() const {
  std::vector<PhaseSpec> specs;
  for (const Io500Phase phase : plan_) {
    PhaseSpec spec;
    spec.name = std::string(phase_name(phase));
    spec.op_names = phase_op_names(phase);
    spec.counter_names = {is_find(phase) ? "entries_scanned" : "done"};
    if (is_find(phase)) spec.counter_names.push_back("matched");
    spec.workers = is_find(phase) ? 1 : config_.ranks;
    spec.mode = WorkerMode::kThreads;
    if (is_write(phase) || phase == Io500Phase::kIorRnd4kEasyRead) {
      // IO500 runs ior's write phases and the random read with -D stonewall -O
      // stoneWallingWearOut=1, and mdtest's write phases with -W stonewall and a stonewall
      // file: every rank goes on to the most items any rank had made when the stonewall fell, so
      // each rank leaves the later phases (stat, read, delete) the same count.
      spec.time_limit = config_.stonewall;
      spec.wear_out = true;
    }
    if (is_ior_write(phase)) spec.counter_names = {"done", "at_stonewall", "stonewall_ns"};
    if (checks_pattern(phase)) spec.counter_names = {"done", "mismatches"};
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::uint64_t Io500Workload::retained_bytes(std::size_t /*target_index*/) const {
  return config_.ranks * (config_.ior_easy_transfers * kIorEasyTransferBytes +
                          config_.ior_hard_segments * kIorHardTransferBytes);
}

std::uint64_t Io500Workload::planned_bytes(std::size_t target_index) const {
  return retained_bytes(target_index) +
         std::uint64_t{config_.ranks} * config_.mdtest_hard_items * kMdtestHardFileBytes;
}

namespace {

// One error for every malformed setup message: what was expected, then what is wrong.
[[noreturn]] void bad_setup(const std::string& what) {
  throw Error(fmt::format(
      "io500: rank 0's setup message is not 'SEC NSEC\\nNAME\\n' (its timestamp file's time in "
      "decimal seconds and nanoseconds, then its run directory's name, every line ending in a "
      "newline): {}",
      what));
}

// A decimal integer that is all of `text` (no sign, no space), at most `max`.
bool read_decimal(std::string_view text, std::int64_t max, std::int64_t& value) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return false;
  const auto [at, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && at == text.data() + text.size() && value <= max;
}

}  // namespace

std::string encode_io500_setup(const Io500Setup& setup) {
  return fmt::format("{} {}\n{}", setup.newer.tv_sec, setup.newer.tv_nsec, setup.names);
}

Io500Setup decode_io500_setup(std::string_view text) {
  const std::size_t end = text.find('\n');
  if (end == std::string_view::npos) {
    bad_setup(fmt::format("'{}' has no newline after the time (cut short)", printable(text, 64)));
  }
  const std::string_view stamp = text.substr(0, end);
  const std::size_t space = stamp.find(' ');
  std::int64_t sec = 0;
  std::int64_t nsec = 0;
  if (space == std::string_view::npos ||
      !read_decimal(stamp.substr(0, space), std::numeric_limits<std::time_t>::max(), sec) ||
      !read_decimal(stamp.substr(space + 1), 999'999'999, nsec)) {
    bad_setup(fmt::format("'{}' is not a time 'SEC NSEC'", printable(stamp, 64)));
  }
  Io500Setup setup;
  setup.newer.tv_sec = static_cast<std::time_t>(sec);
  setup.newer.tv_nsec = static_cast<long>(nsec);
  setup.names = std::string(text.substr(end + 1));
  if (setup.names.empty()) bad_setup("no run directory name after the time (cut short)");
  // The names' rules are those of every family's rank-0 message (one decoder).
  if (const std::string problem = dir_names_problem(setup.names); !problem.empty()) {
    bad_setup(problem);
  }
  if (setup.names.find('\n') + 1 != setup.names.size()) {
    bad_setup("more than one run directory name (io500 works in its first target only)");
  }
  return setup;
}

std::timespec Io500Workload::make_data(const ConfinedDir& run_dir) const {
  std::timespec newer{};
  {
    UniqueFd stamp = run_dir.create(kTimestampFile, O_WRONLY);
    const std::timespec now = run_dir.stat(kTimestampFile).st_mtim;
    const std::timespec times[2] = {now, {now.tv_sec - 1, now.tv_nsec}};
    if (const int err = run_dir.try_set_times(kTimestampFile, times); err != 0)
      throw IoError(err, "utimensat", run_dir.shown(kTimestampFile).string());
    newer = run_dir.stat(kTimestampFile).st_mtim;
  }
  run_dir.mkdir(kDataDir);
  const OwnedConfinedDir data = run_dir.open_dir(kDataDir);
  for (const char* dir : {"ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"}) data.mkdir(dir);
  for (const char* dir : {"mdtest-easy", "mdtest-hard"})
    data.mkdir(fmt::format("{}/{}", dir, kMdtestTestDir));
  data.mkdir(kMdtestHardDir);
  for (std::uint32_t r = 0; r < total_ranks_; ++r) data.mkdir(mdtest_easy_dir(r));
  data.create(kIorHardFile, O_WRONLY).close(data.shown(kIorHardFile));
  return newer;
}

void Io500Workload::prepare(PrepareContext& ctx) {
  const RankIdentity& me = ctx.rank_identity();
  const auto processes = static_cast<std::uint32_t>(me.size);
  rank_base_ = static_cast<std::uint32_t>(me.rank) * config_.ranks;
  total_ranks_ = processes * config_.ranks;
  shift_ = processes > 1 ? config_.ranks : 1;
  find_part_ = FindPart{.index = static_cast<std::uint64_t>(me.rank), .parts = processes};
  const std::span<const Target> target = ctx.targets().first(1);
  // First, before anything else that may throw (from_rank0()'s rule; alone it just runs it):
  // rank 0 makes the data and names its run directory and the timestamp's time.
  const Io500Setup setup = decode_io500_setup(ctx.from_rank0([&] {
    return encode_io500_setup(
        {.newer = make_data(target.front().run_dir), .names = run_dir_names(target)});
  }));
  if (me.rank != 0) {
    rank0_dirs_ =
        open_rank0_dirs(target, setup.names, "io500", "io500's ranks share one data directory");
  }
  const ConfinedDir run_dir =
      rank0_dirs_.empty() ? target.front().run_dir : rank0_dirs_.front().view();
  newer_ = setup.newer;
  data_ = run_dir.open_dir(kDataDir);
  // One seed per group of phases sharing files, as IO500 gives ior -G / mdtest -G; every process
  // derives the same ones from rank 0's timestamp.
  constexpr const char* kGroups[] = {"ior-easy", "ior-hard", "mdtest-hard"};
  for (std::size_t g = 0; g < seeds_.size(); ++g) {
    seeds_[g] = pattern_seed(kGroups[g], newer_.tv_sec, newer_.tv_nsec);
    ctx.set_attribute(fmt::format("pattern_seed.{}", kGroups[g]),
                      static_cast<std::int64_t>(seeds_[g]));
  }
  ctx.set_attribute("tasks", static_cast<std::int64_t>(total_ranks_));
  ctx.set_attribute("stonewall_s", std::chrono::duration<double>(config_.stonewall).count());
  ctx.set_attribute("quick", static_cast<std::int64_t>(config_.quick ? 1 : 0));
  // How the mdtest and find phases name files (param paths): "full" (as IO500) or "dirfd".
  ctx.set_attribute("paths", std::string(path_mode_name(config_.paths)));
  if (config_.checkpoint) checkpoint_before(plan_.front(), ctx);
  if (config_.cache_proof) describe_cache_proof(ctx);
}

std::unique_ptr<PhaseWorker> Io500Workload::make_worker(std::size_t phase, WorkerContext& ctx) {
  const Io500Phase kind = plan_.at(phase);
  RankJob job;
  job.phase = kind;
  job.rank = rank_base_ + static_cast<std::uint32_t>(ctx.worker_index());
  job.ranks = total_ranks_;
  job.data = data_.view();
  job.pattern_seed = seed_of(kind);
  job.paths = config_.paths;
  if (kind == Io500Phase::kFind) {
    job.find_root = ".";
    job.newer = newer_;
    job.find_part = find_part_;
    return make_io500_worker(std::move(job));
  }
  if (kind == Io500Phase::kFindEasy) {
    job.find_root = "mdtest-easy";
    job.find_part = find_part_;
    return make_io500_worker(std::move(job));
  }
  if (is_write(kind)) {
    job.owner = job.rank;
    switch (kind) {
      case Io500Phase::kIorEasyWrite:
        job.count = config_.ior_easy_transfers;
        break;
      case Io500Phase::kIorHardWrite:
        job.count = config_.ior_hard_segments;
        break;
      case Io500Phase::kMdtestEasyWrite:
        job.count = config_.mdtest_easy_items;
        break;
      default:
        job.count = config_.mdtest_hard_items;
        break;
    }
  } else {
    job.owner = (job.rank + shift_) % total_ranks_;
    job.count = done_.at(static_cast<std::size_t>(writer_of(kind))).at(job.owner);
    if (kind == Io500Phase::kIorRnd4kEasyRead) {
      // -t 4096 -b 4096 -s 10000000 over the owner's file: each 4 KiB block of what it wrote.
      job.count =
          std::min(job.count * (kIorEasyTransferBytes / kRnd4kTransferBytes), kRnd4kMaxTransfers);
      job.seed = ctx.seed();
    }
  }
  return make_io500_worker(std::move(job));
}

std::uint32_t Io500Workload::seed_of(Io500Phase phase) const noexcept {
  switch (writer_of(phase)) {
    case Io500Phase::kIorEasyWrite:
      return seeds_[0];
    case Io500Phase::kIorHardWrite:
      return seeds_[1];
    case Io500Phase::kMdtestHardWrite:
      return seeds_[2];
    default:
      return 0;
  }
}

void Io500Workload::drop_before(Io500Phase next, PrepareContext& ctx) {
  const std::string name(phase_name(next));
  std::string why;
  if (const uid_t euid = ::geteuid(); euid != 0) {
    why = fmt::format("not root (euid {}): writing /proc/sys/vm/drop_caches needs root", euid);
  } else if (drop_page_cache_before(name, why, [&ctx](const std::string& key, std::int64_t bytes) {
               ctx.set_attribute(key, bytes);
             })) {
    dropped_.push_back(name);
  }
  if (!why.empty()) {
    not_dropped_.push_back(fmt::format("before {}: {}", name, why));
    ctx.warn(fmt::format("cache_proof: page cache not dropped before '{}': {}", name, why));
  }
  describe_cache_proof(ctx);
}

void Io500Workload::checkpoint_before(Io500Phase next, PrepareContext& ctx) {
  // One process freezes (a second FIFREEZE would find it frozen); the others wait for it at the
  // step's rank synchronisation after after_phase(), before the next phase starts.
  if (rank_base_ != 0 || !checkpoint_failed_.empty()) return;
  const std::string name(phase_name(next));
  const std::string shown = data_.view().path().string();
  std::string why;
  switch (checkpoint_file_system(data_.view().fd(), shown, why)) {
    case CheckpointOutcome::kDone:
      checkpointed_.push_back(name);
      return;
    case CheckpointOutcome::kNotFrozen:
      checkpoint_failed_ = fmt::format("before {}: {}", name, why);
      ctx.warn(
          fmt::format("checkpoint=true: {} not frozen before '{}' nor any later phase: {}; drop "
                      "checkpoint=true where the file system cannot be frozen",
                      shown, name, why));
      return;
    case CheckpointOutcome::kLeftFrozen:
      // At once on the terminal, the one place a workload prints: the run's end (its clean-up
      // writes, then the report) waits for the thaw, so the error would otherwise never show.
      fmt::print(stderr, "iobench: io500 checkpoint before '{}': {}\n", name, why);
      throw Error(fmt::format("io500 checkpoint before '{}': {}", name, why));
  }
}

void Io500Workload::describe_cache_proof(PrepareContext& ctx) const {
  std::string text =
      total_ranks_ > 1
          ? fmt::format(
                "rank shift: rank r reads, stats and deletes rank (r + {}) mod {}'s files "
                "in every read and stat phase",
                shift_, total_ranks_)
          : std::string("rank shift: none with ranks=1 (the one rank reads its own files)");
  if (!dropped_.empty())
    text += "; page cache dropped (sync, then 3 > /proc/sys/vm/drop_caches) before " +
            join_names(dropped_);
  if (!not_dropped_.empty()) text += "; page cache NOT dropped " + join_names(not_dropped_);
  if (!checkpointed_.empty()) {
    text += "; journal checkpointed (file system frozen and thawed: FIFREEZE, FITHAW) before " +
            join_names(checkpointed_);
  }
  if (!checkpoint_failed_.empty())
    text += "; journal NOT checkpointed " + checkpoint_failed_ + " (not tried again)";
  if (config_.checkpoint && rank_base_ != 0)
    text += "; journal checkpoint: by rank 0's process (see its cache_proof)";
  if (dropped_.empty() && not_dropped_.empty()) text += "; no read phase has run yet";
  ctx.set_attribute("cache_proof", text);
}

void Io500Workload::after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) {
  const Io500Phase kind = plan_.at(phase);
  // paths=full ran the mdtest and find phases by whole path, trusting it for the phase: the data
  // directory's path must still name the directory held by descriptor (untimed; Error naming it).
  if (config_.paths == PathMode::kFull)
    check_still_names(data_.view(), fmt::format("after '{}'", result.name));
  if (config_.checkpoint && phase + 1 < plan_.size()) {
    // Every process past its part of the phase before rank 0 freezes: a rank still in it would
    // otherwise stall inside its measured time and leave metadata in the journal after the freeze.
    if (total_ranks_ > config_.ranks) (void)ctx.all_ranks("");
    checkpoint_before(plan_[phase + 1], ctx);
    if (!acts_on_written_data(plan_[phase + 1])) describe_cache_proof(ctx);
  }
  if (config_.cache_proof && phase + 1 < plan_.size() && acts_on_written_data(plan_[phase + 1]))
    drop_before(plan_[phase + 1], ctx);
  if (!is_write(kind)) return;
  // Every process's ranks' counts (alone: this one's), rank by rank: done, and for the ior
  // writes' stonewall figures what each had done at the stonewall and when (0 0 otherwise).
  std::string mine;
  for (const WorkerResult& w : result.workers) {
    const bool stonewall = w.counters.size() > kStonewallNsCounter;
    mine += fmt::format("{} {} {} ", w.counters.at(kDoneCounter),
                        stonewall ? w.counters[kAtStonewallCounter] : 0,
                        stonewall ? w.counters[kStonewallNsCounter] : 0);
  }
  std::vector<RankCounts> ranks;
  for (const std::string& theirs : ctx.all_ranks(mine)) {
    std::istringstream words(theirs);
    for (RankCounts r; words >> r.done >> r.at_stonewall >> r.stonewall_ns;) ranks.push_back(r);
  }
  if (ranks.size() != total_ranks_) {
    throw Error(fmt::format("io500: the processes reported {} ranks' counts after '{}', not {}",
                            ranks.size(), result.name, total_ranks_));
  }
  std::vector<std::uint64_t>& done = done_.at(static_cast<std::size_t>(kind));
  done.clear();
  for (const RankCounts& r : ranks) done.push_back(r.done);
  if (is_ior_write(kind)) report_stonewall(result.name, ranks, ctx);
}

}  // namespace iobench::plugins::io500
