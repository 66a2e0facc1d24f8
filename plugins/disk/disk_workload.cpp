#include "plugins/disk/disk_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/error.hpp>
#include <iobench/result.hpp>
#include <iobench/sysinfo.hpp>
#include <optional>

#include "plugins/common/rank0_dirs.hpp"
#include "plugins/disk/block_distribution.hpp"
#include "plugins/disk/device_purge.hpp"
#include "plugins/disk/device_safety.hpp"
#include "plugins/disk/disk_fio_params.hpp"
#include "plugins/disk/disk_source.hpp"
#include "plugins/disk/disk_worker.hpp"
#include "plugins/disk/file_set.hpp"
#include "plugins/disk/page_cache_note.hpp"
#include "plugins/disk/read_file_fill.hpp"
#include "plugins/disk/shared_file.hpp"
#include "plugins/disk/verify_pattern.hpp"

namespace iobench::plugins::disk {

DiskWorkload::DiskWorkload(DiskConfig config, std::size_t target_count, const Engine& engine)
    : config_(std::move(config)),
      target_count_(target_count),
      caps_(engine.caps()),
      search_(config_.curve) {}

DiskWorkload::PhaseRole DiskWorkload::role(std::size_t phase) const noexcept {
  if (config_.precondition && phase == 0) return PhaseRole::kPrecondition;
  if (config_.prime && phase == main_phase() - 1) return PhaseRole::kPrime;
  const std::size_t main = main_phase();
  if (phase == main) return PhaseRole::kMain;
  // Curve points and probes follow the main phase (read only: no verify phase with them).
  const std::size_t points = config_.curve.percents.size();
  if (phase <= main + points) return PhaseRole::kCurve;
  if (phase <= main + points + config_.curve.probe_phases()) return PhaseRole::kProbe;
  return PhaseRole::kVerify;
}

double DiskWorkload::curve_rate(std::size_t phase) const noexcept {
  if (role(phase) == PhaseRole::kProbe) return search_.rate();
  return max_iops_ * config_.curve.percents[phase - main_phase() - 1] / 100.0;
}

std::vector<PhaseSpec> DiskWorkload::phases() const {
  const LatencyPartsKind parts{.submission_completion = caps_.async,
                               .service = config_.rate.active()};
  const std::size_t workers = target_count_ * config_.numjobs;
  // bssplit: ops per block size, in the split's counters (ops_bs_4096...).
  std::vector<std::string> counters;
  for (const std::uint64_t size : config_.bssplit.sizes()) {
    counters.push_back(fmt::format("ops_bs_{}", size));
  }
  std::vector<PhaseSpec> phases;
  if (config_.precondition) {
    // One worker per device, however many jobs the main phase has.
    phases.push_back(PhaseSpec{.name = "precondition",
                               .op_names = {"write", "fsync"},
                               .workers = target_count_,
                               .measured = false});
  }
  if (config_.prime) {
    phases.push_back(
        PhaseSpec{.name = "prime", .op_names = {"read"}, .workers = workers, .measured = false});
  }
  PhaseSpec main{.workers = workers, .latency_parts = parts};
  main.counter_names = counters;
  main.steady_state = config_.steady_state;
  switch (config_.operation) {
    case Operation::kRead:
      main.name = "read";
      main.op_names = {"read"};
      break;
    case Operation::kWrite:
      main.name = "write";
      main.op_names = {"write", "fsync"};
      break;
    case Operation::kMixed:
      main.name = "mixed";
      main.op_names = {"read", "write", "fsync"};
      if (config_.trim_percent > 0) main.op_names.emplace_back("trim");
      break;
    case Operation::kTrim:
      main.name = "trim";
      main.op_names = {"trim"};
      break;
  }
  // curve= / latency_target=: open-loop copies of the (closed-loop) main phase.
  std::vector<PhaseSpec> open_loop;
  PhaseSpec paced = main;
  paced.steady_state.reset();
  paced.latency_parts.service = !config_.curve.by_depth;  // depth probes: closed loop
  // latency_ramp: the open loop's idle half and unjudged half are the phase's warm-up.
  if (!config_.curve.by_depth) paced.warmup = config_.curve.ramp;
  for (const std::uint32_t percent : config_.curve.percents) {
    open_loop.push_back(paced);
    open_loop.back().name = fmt::format("{} at {}%", main.name, percent);
  }
  for (std::size_t run = 1; run <= config_.curve.probe_phases(); ++run) {
    open_loop.push_back(paced);
    open_loop.back().name = fmt::format("{} probe {}", main.name, run);
    open_loop.back().time_limit = config_.curve.window;  // latency_window (0: the step's)
  }
  phases.push_back(std::move(main));
  for (PhaseSpec& spec : open_loop) phases.push_back(std::move(spec));
  if (config_.verify && config_.writes()) {
    // What was written is read back and checked, closed-loop, as fio's verify phase does.
    phases.push_back(PhaseSpec{.name = "verify",
                               .op_names = {"read"},
                               .workers = workers,
                               .latency_parts = {.submission_completion = caps_.async}});
  }
  return phases;
}

std::uint64_t DiskWorkload::planned_bytes(std::size_t target_index) const {
  const bool existing = target_index < config_.existing_file_target.size() &&
                        config_.existing_file_target[target_index];
  return existing || !caps_.moves_data ? 0 : config_.working_set_bytes() * config_.numjobs;
}

void DiskWorkload::prepare(PrepareContext& ctx) {
  // First, before anything that may throw: every rank makes this collective (see from_rank0).
  const RankIdentity& me = ctx.rank_identity();
  const bool share = config_.shared_file != SharedFile::kOff && me.size > 1;
  rank0_dirs_.clear();
  filled_ = std::vector<std::atomic<bool>>(ctx.targets().size());
  written_.assign(ctx.targets().size() * config_.numjobs, BlockSet());
  lateness_.assign(ctx.targets().size() * config_.numjobs, LatenessTrend());
  if (share) {
    const std::string rank0_dirs = ctx.from_rank0([&] {
      return caps_.moves_data ? create_shared_files(ctx.targets(), config_.file_name)
                              : std::string();
    });
    if (me.rank != 0 && caps_.moves_data) {
      rank0_dirs_ = open_rank0_dirs(ctx.targets(), rank0_dirs, "shared_file",
                                    "shared_file's ranks share one file there, so -d takes no "
                                    "{rank} or {host}");
    }
  }
  rank_ = share ? me.rank : 0;
  ranks_ = share ? me.size : 1;
  if (config_.working_set_bytes() > UINT64_MAX / static_cast<std::uint64_t>(ranks_)) {
    throw ConfigError(fmt::format("disk: a file shared by {} ranks of {} bytes each is too large",
                                  ranks_, config_.working_set_bytes()));
  }
  if (config_.shared_file != SharedFile::kOff) {
    ctx.set_attribute(
        "shared_file",
        std::string(config_.shared_file == SharedFile::kRegions ? "regions" : "interleaved"));
    ctx.set_attribute("ranks_sharing", static_cast<std::int64_t>(ranks_));
  }
  step_seed_ = ctx.seed();
  ctx.set_attribute("block_size_bytes", static_cast<std::int64_t>(config_.block_size_bytes));
  ctx.set_attribute("blocks_per_target", static_cast<std::int64_t>(config_.blocks));
  ctx.set_attribute("iterations", static_cast<std::int64_t>(config_.iterations));
  if (config_.time_based) ctx.set_attribute("time_based", std::string("true"));
  ctx.set_attribute("iodepth", static_cast<std::int64_t>(config_.iodepth));
  set_fio_attributes(config_, ctx);
  ctx.set_attribute("data", config_.verify ? config_.data.to_string() + " (verify-stamped)"
                                           : config_.data.to_string());
  if (config_.seek == SeekPattern::kRandom) {
    ctx.set_attribute("random_order", config_.distribution.to_string());
  }
  if (config_.operation == Operation::kMixed) {
    ctx.set_attribute("rwmix_read_percent", static_cast<std::int64_t>(config_.read_percent));
  }
  if (config_.latency_sample > 1) {
    ctx.set_attribute("latency_sample", static_cast<std::int64_t>(config_.latency_sample));
  }
  if (config_.rate.active()) {
    ctx.set_attribute("rate_per_worker", config_.rate.ops_per_s > 0
                                             ? fmt::format("{} ops/s", config_.rate.ops_per_s)
                                             : fmt::format("{} bytes/s", config_.rate.bytes_per_s));
    ctx.set_attribute("arrivals", std::string(to_string(config_.rate.arrivals)));
  }
  for (std::size_t i = 0; i < ctx.targets().size(); ++i) {
    ctx.set_attribute(fmt::format("file.{}", i),
                      file_location(i, ctx.targets()[i]).path().string());
    if (i < config_.destructive_identity.size() && !config_.destructive_identity[i].empty()) {
      ctx.set_attribute(fmt::format("destructive.{}", i), config_.destructive_identity[i]);
    }
  }
  if (config_.purge) purge_devices(ctx);
  if (config_.precondition) {
    ctx.set_attribute("precondition",
                      fmt::format("workload-independent (SNIA PTS): {} x capacity in {} KiB "
                                  "sequential O_DIRECT writes",
                                  kPreconditionPasses, kPreconditionBlockBytes >> 10));
  }
  if (config_.numjobs > 1 || config_.nrfiles > 1) {
    // Worker w is job w / targets of target w % targets (target_index_of).
    for (std::size_t w = 0; w < ctx.targets().size() * config_.numjobs; ++w) {
      const std::size_t t = w % ctx.targets().size();
      const auto job = static_cast<std::uint32_t>(w / ctx.targets().size());
      std::string path = file_location(t, ctx.targets()[t], job, 0).path().string();
      if (config_.nrfiles > 1) path += fmt::format(" and {} more", config_.nrfiles - 1);
      ctx.set_attribute(fmt::format("worker_file.{}", w), path);
    }
  }
}

void DiskWorkload::purge_devices(PrepareContext& ctx) const {
  for (std::size_t i = 0; i < ctx.targets().size(); ++i) {
    if (i >= config_.destructive_identity.size() || config_.destructive_identity[i].empty()) {
      continue;  // not a block device: make_disk_config let only block devices have one
    }
    const std::filesystem::path& device = ctx.targets()[i].user_path;
    const PurgeRecord record = purge_device(
        device, block_device_name(device), *config_.purge, [&ctx] { return ctx.stop_requested(); },
        config_.device_rdev.at(i));
    ctx.set_attribute(fmt::format("purge.{}", i), record.text());
  }
}

FileLocation DiskWorkload::file_location(std::size_t target_index, const Target& target,
                                         std::uint32_t job, std::uint32_t file) const {
  if (target.is_existing_file) return FileLocation::user_target(target.user_path);
  const ConfinedDir dir =
      target_index < rank0_dirs_.size() ? rank0_dirs_[target_index].view() : target.run_dir;
  return FileLocation::beneath(dir, disk_file_name(config_, job, file));
}

std::unique_ptr<PhaseWorker> DiskWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  // The worker opens, uses and closes its files alone: in a descriptor table of its own, the
  // kernel takes no reference on the file per pread (2-3 % of a cached 4 KiB read).
  (void)ctx.own_descriptor_table();
  const Target& target = ctx.target();
  const std::size_t target_index = ctx.target_index();
  const std::size_t worker_index = ctx.worker_index();
  // Workers are spread over the targets in turn (target_index_of): job j of target t is worker
  // j * targets + t.
  const auto job = static_cast<std::uint32_t>(worker_index / target_count_);
  const PhaseRole phase_role = role(phase);
  if (phase_role == PhaseRole::kPrecondition) {
    // PTS's WIPC: the whole device, twice, sequentially, past the page cache.
    OpenOptions options =
        open_options(config_, false, true, false, config_.device_bytes[target_index]);
    options.direct = true;
    const std::uint64_t blocks = config_.device_bytes[target_index] / kPreconditionBlockBytes;
    const PhasePlan plan{.sequential = true,
                         .blocks = blocks,
                         .block_size = kPreconditionBlockBytes,
                         .placement = BlockPlacement::of(SharedFile::kOff, blocks, 0, 1),
                         .iterations = kPreconditionPasses,
                         .ops = PhasePlan::Ops::kWrite,
                         .file_span = blocks * kPreconditionBlockBytes};
    // Plain blocking writes (psync) at depth 1 whatever the step's engine: an engine that
    // cannot do O_DIRECT (mmap) must not keep the device from being preconditioned.
    std::unique_ptr<IoFile> device =
        open_file(*prime_engine_, file_location(target_index, target), options);
    require_checked_device(device->fd(), device->path(), config_.device_rdev.at(target_index),
                           "open for the precondition");
    return std::make_unique<DiskWorker>(plan, std::move(device), 1, prime_engine_->caps(),
                                        RateLimit{}, ctx.seed(), std::nullopt, config_.data, true,
                                        kFsync);
  }
  // The untimed prime pass fills the page cache with blocking reads whatever the step's engine
  // (RWF_NOWAIT reads of uncached data would fail and fill nothing); null has no file to read.
  const Engine& engine =
      phase_role == PhaseRole::kPrime && caps_.moves_data ? *prime_engine_ : ctx.engine();
  std::optional<VerifyPattern> pattern;
  if (config_.verify) {
    pattern.emplace(step_seed_, target_index, static_cast<std::size_t>(config_.block_size_bytes),
                    config_.data);
  }

  PhasePlan plan{
      .sequential = config_.seek == SeekPattern::kSequential,
      .distribution = config_.distribution,
      .blocks = config_.blocks,
      .block_size = config_.block_size_bytes,
      .placement = BlockPlacement::of(config_.shared_file, config_.blocks, rank_, ranks_),
      .iterations = config_.time_based ? kUntilLimit : config_.iterations,
      .latency_sample = config_.latency_sample,
      .files = config_.nrfiles,
      .file_span = config_.file_bytes(),
      .split = config_.bssplit.empty() ? nullptr : &config_.bssplit,
      .thinktime_ns = static_cast<std::uint64_t>(config_.thinktime.count()),
      .thinktime_spin_ns = static_cast<std::uint64_t>(config_.thinktime_spin.count()),
      .thinktime_blocks = config_.thinktime_blocks};
  bool write_open = false;
  bool fsync_at_end = false;
  bool trims = false;
  OpId fsync_op = 0;
  std::uint32_t iodepth = config_.iodepth;
  RateLimit rate = config_.rate;
  LatenessTrend* lateness = nullptr;
  std::uint64_t idle_ns = 0;
  const std::uint64_t file_bytes = config_.file_bytes() * static_cast<std::uint64_t>(ranks_);
  OpenOptions options = open_options(config_, true, false, false, file_bytes);
  if (phase_role == PhaseRole::kMain && config_.operation == Operation::kWrite) {
    plan.ops = PhasePlan::Ops::kWrite;
    if (config_.verify) {
      written_[worker_index] = BlockSet(config_.blocks, true);
      plan.written = &written_[worker_index];
    }
    write_open = true;
    fsync_at_end = config_.fsync;
    fsync_op = kFsync;
    // A shared file exists already: rank 0 created it in prepare(); a block device (under
    // destructive=) is the user's own.
    options =
        open_options(config_, false, true, !shares_files() && !target.is_existing_file, file_bytes);
  } else if (phase_role == PhaseRole::kMain && config_.operation == Operation::kMixed) {
    plan.ops = PhasePlan::Ops::kMixed;
    plan.read_percent = config_.read_percent;
    plan.trim_percent = config_.trim_percent;
    plan.read_op = kMixedRead;
    plan.write_op = kMixedWrite;
    plan.trim_op = kMixedTrim;
    trims = config_.trim_percent > 0;
    write_open = true;
    fsync_at_end = config_.fsync;
    fsync_op = kMixedFsync;
    options = open_options(config_, true, true, false, file_bytes);
  } else if (phase_role == PhaseRole::kMain && config_.operation == Operation::kTrim) {
    // fio's trims on a file: holes punched in the filled file, no fsync.
    plan.ops = PhasePlan::Ops::kTrim;
    plan.trim_op = kTrim;
    trims = true;
    options = open_options(config_, true, true, false, file_bytes);  // mmap maps read-write
  } else if (phase_role == PhaseRole::kProbe && config_.curve.by_depth) {
    iodepth = depth_search_.depth();  // the main phase's reads, closed loop at the probed depth
  } else if (phase_role == PhaseRole::kCurve || phase_role == PhaseRole::kProbe) {
    // The main phase's reads, open loop at this point's rate, shared by the step's workers.
    rate = RateLimit{
        .ops_per_s = curve_rate(phase) / static_cast<double>(target_count_ * config_.numjobs),
        .arrivals = config_.rate.arrivals};
    // This worker's own trend (make_worker runs in the worker's thread), read in after_phase.
    lateness = &lateness_.at(worker_index);
    lateness->restart(0);
    idle_ns = static_cast<std::uint64_t>(config_.curve.ramp.count()) / 2;
  } else if (phase_role == PhaseRole::kPrime) {
    // One sequential pass through the page cache fills it; the measured phase then reads it.
    options.direct = false;
    plan.sequential = true;
    plan.iterations = 1;
    plan.thinktime_ns = 0;
    plan.split = nullptr;  // whole blocks; the prime phase has no size counters
    iodepth = 1;
    rate = {};
  } else if (phase_role == PhaseRole::kVerify) {
    // Read back what the write phase left, in block order, as fast as the engine goes: after a
    // write, the blocks it wrote; after a mixed phase (a filled file), all.
    plan.sequential = true;
    plan.iterations = 1;
    plan.thinktime_ns = 0;
    rate = {};
    if (config_.operation == Operation::kWrite) plan.written = &written_[worker_index];
  }
  const bool needs_file = !write_open || config_.operation == Operation::kMixed;
  std::vector<std::unique_ptr<IoFile>> files;
  for (std::uint32_t file = 0; file < config_.nrfiles; ++file) {
    const FileLocation location = file_location(target_index, target, job, file);
    const std::string name = disk_file_name(config_, job, file);
    if (needs_file && !target.is_existing_file && phase_role != PhaseRole::kVerify &&
        caps_.moves_data &&
        !(shares_files() ? filled_[target_index].load(std::memory_order_relaxed)
                         : target.run_dir.exists(name))) {
      if (!fill_read_file(target.run_dir, location, name, shares_files(), plan.placement,
                          config_.blocks_per_file(), config_, pattern ? &*pattern : nullptr,
                          ctx.seed(), ctx)) {
        return nullptr;  // stopped while creating the file
      }
      filled_[target_index].store(true, std::memory_order_relaxed);
    }
    files.push_back(open_file(engine, location, options));
    if (target_index < config_.device_rdev.size() && config_.device_rdev[target_index] != 0 &&
        files.back()->fd() >= 0) {
      // A destructive block device: the path must still name the device that was checked.
      require_checked_device(files.back()->fd(), location.path(), config_.device_rdev[target_index],
                             "open for the worker");
    }
  }
  std::unique_ptr<IoFile> io_file;
  if (files.size() == 1 && !trims) {
    io_file = std::move(files.front());
  } else {
    auto set = std::make_unique<DiskFileSet>(std::move(files), config_.file_bytes(), iodepth);
    if (trims) plan.trim_slots = &set->trim_slots();
    io_file = std::move(set);
  }
  return std::make_unique<DiskWorker>(plan, std::move(io_file), iodepth, engine.caps(), rate,
                                      ctx.seed(), std::move(pattern), config_.data, fsync_at_end,
                                      fsync_op, lateness, idle_ns);
}

void DiskWorkload::after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) {
  after_curve_phase(phase, result, ctx);
  if (role(phase) != PhaseRole::kMain) return;
  std::uint64_t most = 0;
  for (const WorkerResult& worker : result.workers) most = std::max(most, worker.total_bytes());
  const std::string warning =
      repeated_pass_warning(config_, result.name, most, target_count_, physical_memory_bytes());
  if (!warning.empty()) ctx.warn(warning);
}

void DiskWorkload::after_curve_phase(std::size_t phase, const PhaseResult& result,
                                     PrepareContext& ctx) {
  const CurveConfig& curve = config_.curve;
  if (!curve.active()) return;
  const double percentile = curve.latency_target ? curve.latency_target->percentile : 99;
  CurvePoint point = measure_point(result, percentile);
  if (role(phase) == PhaseRole::kCurve || (role(phase) == PhaseRole::kProbe && !curve.by_depth)) {
    // The lateness grew by each worker's slope over the measured time; the worst worker's.
    for (const LatenessTrend& trend : lateness_) {
      point.growth_ns =
          std::max(point.growth_ns, trend.slope() * static_cast<double>(point.measured_ns));
    }
  }
  switch (role(phase)) {
    case PhaseRole::kMain:
      max_iops_ = point.iops;
      search_.start(max_iops_);
      ctx.set_attribute("curve.max_iops", max_iops_);
      if (curve.latency_target) {
        ctx.set_attribute("latency_search.target", curve.latency_target->text);
        ctx.set_attribute("latency_search.max_iops", search_.upper());
      }
      if (curve.by_depth) {
        depth_search_.start(config_.iodepth, 1 + curve.confirm);
        ctx.set_attribute("latency_search.max_depth", static_cast<std::int64_t>(config_.iodepth));
      }
      if (max_iops_ <= 0) {
        ctx.skip_remaining_phases(
            "the closed-loop read phase completed no reads, so there is no rate to scale");
      }
      break;
    case PhaseRole::kCurve: {
      const std::uint32_t percent = curve.percents[phase - main_phase() - 1];
      set_curve_point(ctx, percent, curve_rate(phase), point);
      break;
    }
    case PhaseRole::kProbe: {
      if (curve.by_depth) {
        after_depth_probe(ctx, depth_search_, phase - main_phase() - curve.percents.size(),
                          curve.probe_phases(), point, curve.latency_target->target_ns);
        break;
      }
      const ProbeVerdict verdict = judge_probe(
          search_.rate(), point, curve.latency_target->target_ns, curve.precision_percent);
      const std::size_t run = phase - main_phase() - curve.percents.size();
      set_probe(ctx, run, search_.rate(), point, verdict);
      search_.record(verdict.pass());
      if (run == curve.probe_phases()) {
        ctx.set_attribute("latency_search.result_iops", search_.result());
        ctx.set_attribute("latency_search.upper_iops", search_.upper());
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace iobench::plugins::disk
