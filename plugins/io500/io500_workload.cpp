#include "plugins/io500/io500_workload.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/result.hpp>
#include <sstream>
#include <string>

#include "plugins/io500/io500_workers.hpp"
#include "plugins/io500/score.hpp"
#include "plugins/mdtest/ranks.hpp"

namespace iobench::plugins::io500 {
namespace {

constexpr const char* kDataDir = "datafiles";
constexpr const char* kTimestampFile = "timestampfile";

bool is_write(Io500Phase p) noexcept {
  return p == Io500Phase::kIorEasyWrite || p == Io500Phase::kMdtestEasyWrite ||
         p == Io500Phase::kIorHardWrite || p == Io500Phase::kMdtestHardWrite;
}

// The write phase whose files a phase acts on.
Io500Phase writer_of(Io500Phase p) noexcept {
  switch (p) {
    case Io500Phase::kIorEasyRead:
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

}  // namespace

Io500Workload::Io500Workload(Io500Config config) : config_(config) {}

std::vector<PhaseSpec> Io500Workload::phases() const {
  std::vector<PhaseSpec> specs;
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    const auto phase = static_cast<Io500Phase>(i);
    PhaseSpec spec;
    spec.name = std::string(kPhaseOrder[i]);
    spec.op_names = phase_op_names(phase);
    spec.counter_names = {phase == Io500Phase::kFind ? "entries_scanned" : "done"};
    if (phase == Io500Phase::kFind) spec.counter_names.push_back("matched");
    spec.workers = phase == Io500Phase::kFind ? 1 : config_.ranks;
    spec.mode = WorkerMode::kThreads;
    if (is_write(phase)) spec.time_limit = config_.stonewall;
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

std::string Io500Workload::make_data(const ConfinedDir& run_dir) const {
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
  data.mkdir(kMdtestHardDir);
  for (std::uint32_t r = 0; r < total_ranks_; ++r) data.mkdir(mdtest_easy_dir(r));
  data.create(kIorHardFile, O_WRONLY).close(data.shown(kIorHardFile));
  return fmt::format("{} {}", newer.tv_sec, newer.tv_nsec);
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
  const std::string made = ctx.from_rank0(
      [&] { return mdtest::run_dir_names(target) + make_data(target.front().run_dir); });
  if (me.rank != 0) {
    rank0_dirs_ = mdtest::open_rank0_dirs(target, made, "io500's ranks share one data directory");
  }
  const ConfinedDir run_dir =
      rank0_dirs_.empty() ? target.front().run_dir : rank0_dirs_.front().view();
  const std::size_t line = made.find('\n');
  std::istringstream stamp(line == std::string::npos ? std::string() : made.substr(line + 1));
  long long sec = 0;
  long long nsec = 0;
  if (!(stamp >> sec >> nsec)) {
    throw Error(fmt::format("io500: rank 0 sent no timestamp ('{}')", made));
  }
  newer_.tv_sec = static_cast<std::time_t>(sec);
  newer_.tv_nsec = static_cast<long>(nsec);
  data_ = run_dir.open_dir(kDataDir);
  ctx.set_attribute("tasks", static_cast<std::int64_t>(total_ranks_));
  ctx.set_attribute("stonewall_s", std::chrono::duration<double>(config_.stonewall).count());
  ctx.set_attribute("quick", static_cast<std::int64_t>(config_.quick ? 1 : 0));
}

std::unique_ptr<PhaseWorker> Io500Workload::make_worker(std::size_t phase, WorkerContext& ctx) {
  const auto kind = static_cast<Io500Phase>(phase);
  RankJob job;
  job.phase = kind;
  job.rank = rank_base_ + static_cast<std::uint32_t>(ctx.worker_index());
  job.ranks = total_ranks_;
  job.data = data_.view();
  if (kind == Io500Phase::kFind) {
    job.find_root = data_.path().string();
    job.newer = newer_;
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
  }
  return make_io500_worker(std::move(job));
}

void Io500Workload::after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) {
  if (!is_write(static_cast<Io500Phase>(phase))) return;
  // Every process's ranks' counts (alone: this one's), rank by rank.
  std::string mine;
  for (const WorkerResult& w : result.workers) {
    mine += fmt::format("{} ", w.counters.at(kDoneCounter));
  }
  std::vector<std::uint64_t>& done = done_.at(phase);
  done.clear();
  for (const std::string& theirs : ctx.all_ranks(mine)) {
    std::istringstream words(theirs);
    for (std::uint64_t n = 0; words >> n;) done.push_back(n);
  }
  if (done.size() != total_ranks_) {
    throw Error(fmt::format("io500: the processes reported {} ranks' counts after '{}', not {}",
                            done.size(), result.name, total_ranks_));
  }
}

}  // namespace iobench::plugins::io500
