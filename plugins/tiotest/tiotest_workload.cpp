#include "plugins/tiotest/tiotest_workload.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/format.hpp>
#include <system_error>
#include <utility>

namespace iobench::plugins::tiotest {

namespace {

bool needs_prepare_phase(const RunPlan& run, const IoOptions& io) {
  if (io.raw || run.run_phase[index_of(PhaseKind::kWrite)]) return false;
  return run.run_phase[index_of(PhaseKind::kRandomWrite)] ||
         run.run_phase[index_of(PhaseKind::kRead)] ||
         run.run_phase[index_of(PhaseKind::kRandomRead)];
}

// A distinct data seed per run and thread: a block from another file never verifies.
std::uint64_t pattern_tag(std::size_t run, std::size_t thread) {
  return (static_cast<std::uint64_t>(run) << 32) ^ static_cast<std::uint64_t>(thread);
}

}  // namespace

TiotestWorkload::TiotestWorkload(WorkloadPlan plan)
    : plan_(std::move(plan)), hooks_(installed_test_hooks()) {
  std::size_t slot_count = 0;
  for (std::size_t r = 0; r < plan_.runs.size(); ++r) {
    const RunPlan& run = plan_.runs[r];
    slot_base_.push_back(slot_count);
    slot_count += run.threads;
    std::vector<PhaseRef> refs;
    if (needs_prepare_phase(run, plan_.io)) {
      refs.push_back({r, PhaseKind::kWrite, false, false, kPreparePhaseName + run.name_suffix});
    }
    for (const PhaseKind kind : kAllPhaseKinds) {
      if (run.run_phase[index_of(kind)]) {
        refs.push_back({r, kind, true, false, phase_label(kind) + run.name_suffix});
      }
    }
    if (!refs.empty()) refs.back().last_of_run = true;
    phase_refs_.insert(phase_refs_.end(), refs.begin(), refs.end());
  }
  slots_ = std::make_unique<WorkerSlot[]>(slot_count);
}

std::vector<PhaseSpec> TiotestWorkload::phases() const {
  std::vector<PhaseSpec> specs;
  for (const PhaseRef& ref : phase_refs_) {
    const RunPlan& run = plan_.runs[ref.run];
    PhaseSpec spec;
    spec.name = ref.name;
    spec.op_names = {is_write(ref.kind) ? "write" : "read"};
    if (plan_.io.verify && !is_write(ref.kind)) {
      spec.counter_names = {"verified_blocks", "corrupt_blocks"};
    }
    spec.workers = run.threads;
    spec.mode = WorkerMode::kThreads;
    spec.serial = ref.measured && ref.kind == PhaseKind::kWrite && plan_.io.serial_write;
    spec.measured = ref.measured;
    if (ref.measured) spec.steady_state = plan_.io.steady_state;
    spec.drop_caches_before = ref.measured && plan_.io.drop_caches;
    spec.latency_parts = {.submission_completion = plan_.io.async_engine,
                          .service = plan_.io.rate.active() && ref.measured};
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::uint64_t TiotestWorkload::planned_bytes(std::size_t target_index) const {
  if (plan_.io.raw || !plan_.io.moves_data || plan_.target_count == 0) return 0;
  // Runs follow each other and each one's files are removed after it: the peak is the largest run.
  std::uint64_t peak = 0;
  for (const RunPlan& run : plan_.runs) {
    std::uint64_t bytes = 0;
    for (std::size_t t = 0; t < run.threads; ++t) {
      if (target_index_of(t, plan_.target_count) == target_index) bytes += run.file_bytes();
    }
    peak = std::max(peak, bytes);
  }
  return peak;
}

std::string TiotestWorkload::file_name(std::size_t run, std::size_t thread) const {
  if (plan_.runs.size() == 1) return fmt::format("_tiotest.thr{}", thread);
  return fmt::format("_tiotest.run{}.thr{}", run, thread);
}

WorkerSlot& TiotestWorkload::slot(std::size_t run, std::size_t thread) const {
  return slots_[slot_base_[run] + thread];
}

void TiotestWorkload::prepare(PrepareContext& ctx) {
  const std::span<const Target> targets = ctx.targets();
  files_.assign(plan_.runs.size(), {});
  locations_.assign(plan_.runs.size(), {});
  for (std::size_t r = 0; r < plan_.runs.size(); ++r) {
    for (std::size_t t = 0; t < plan_.runs[r].threads; ++t) {
      locations_[r].push_back(
          plan_.io.raw ? FileLocation::user_target(
                             plan_.raw_targets[target_index_of(t, plan_.raw_targets.size())])
                       : FileLocation::beneath(targets[target_index_of(t, targets.size())].run_dir,
                                               file_name(r, t)));
      files_[r].push_back(locations_[r].back().path());
    }
  }
  for (const auto& [key, value] : plan_.attributes) ctx.set_attribute(key, value);
  ctx.set_attribute("data", plan_.io.data.to_string());
  run_start_ns_ = monotonic_ns();
  if (plan_.runs.size() == 1) {
    const RunPlan& run = plan_.runs.front();
    ctx.set_attribute("file_bytes_per_thread", static_cast<std::int64_t>(run.file_bytes()));
    ctx.set_attribute("blocks_per_thread", static_cast<std::int64_t>(run.blocks));
  }
}

std::unique_ptr<PhaseWorker> TiotestWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  // Threads are set up one after another before the barrier: once the run is being stopped,
  // create no more files (and size none).
  if (ctx.stop_requested()) return nullptr;
  const PhaseRef& ref = phase_refs_.at(phase);
  const RunPlan& run = plan_.runs[ref.run];
  const std::size_t thread = ctx.worker_index();
  const IoOptions& io = plan_.io;
  const Engine& engine = ctx.engine();
  WorkerSlot& worker_slot = slot(ref.run, thread);

  WorkerSetup setup;
  setup.kind = ref.kind;
  setup.phase_index = phase;
  setup.worker_index = thread;
  setup.base_offset = raw_region_offset(run, io, thread, plan_.target_count);
  setup.blocks = run.blocks;
  setup.block_size = run.block_size;
  setup.random_ops = run.random_ops;
  setup.hooks = hooks_;
  // The untimed prepare phase writes as fast as it can, one request at a time.
  setup.iodepth = ref.measured ? io.iodepth : 1;
  setup.async_engine = io.async_engine;
  setup.registered_buffers = engine.caps().registered_buffers;
  if (ref.measured) setup.rate = io.rate;
  // Writes and the reads that verify them build the same blocks (pattern, size, seed).
  setup.verify = io.verify;
  if (is_write(ref.kind) || io.verify) {
    setup.data.emplace(io.data, static_cast<std::size_t>(run.block_size),
                       pattern_tag(ref.run, thread));
  }
  // The runner's worker seed already differs per step, phase and worker, and it is reported
  // with each worker's result: using it as is makes a run repeatable from its result.
  setup.generator_seed = ctx.seed();

  // The first phase of a run that writes sequentially creates the file.
  // An engine that moves no bytes (null) opens no file: there is nothing to create or size.
  const bool creates = !io.raw && io.moves_data && ref.kind == PhaseKind::kWrite;
  OpenOptions options;
  options.read = true;
  options.write = is_write(ref.kind);
  options.create = creates;
  options.direct = io.direct;
  options.sync = io.sync && is_write(ref.kind);
  // A mapping engine (mmap=true, or --engine mmap) maps the region and sizes a new file itself.
  const bool maps = engine.caps().needs_map_size;
  options.map_size_bytes = maps ? setup.base_offset + run.file_bytes() : 0;
  const FileLocation& location = locations_.at(ref.run).at(thread);
  const std::filesystem::path& path = location.path();
  setup.file = engine.open(location, options);
  if (creates) {
    worker_slot.file_created.store(true, std::memory_order_release);
    // tiotest sizes each file before writing it (a sparse file the write phase fills).
    if (!maps && ::ftruncate(setup.file->fd(), static_cast<off_t>(run.file_bytes())) != 0) {
      throw IoError(errno, "ftruncate", path.string());
    }
  }
  return std::make_unique<TiotestWorker>(std::move(setup));
}

void TiotestWorkload::after_phase(std::size_t phase, const PhaseResult& /*result*/,
                                  PrepareContext& ctx) {
  const PhaseRef& ref = phase_refs_.at(phase);
  if (hooks_ != nullptr && hooks_->after_phase)
    hooks_->after_phase(phase, ref.name, files_[ref.run]);
  // A sweep needs the space of a finished run back; the last run's files go with the run
  // directory, which the runner removes (or keeps, when asked to).
  if (ref.last_of_run && ref.run + 1 < plan_.runs.size()) {
    remove_files(ref.run, ctx);
    const std::uint64_t now = monotonic_ns();
    const auto took = std::chrono::nanoseconds(now - run_start_ns_);
    run_start_ns_ = now;
    if (plan_.run_timeout.count() > 0 && took > plan_.run_timeout) {
      ctx.skip_remaining_phases(fmt::format(
          "run {} of {} took {}, more than timeout={} (tiobench --timeout)", ref.run + 1,
          plan_.runs.size(), format_duration(static_cast<std::uint64_t>(took.count())),
          format_duration(static_cast<std::uint64_t>(plan_.run_timeout.count()))));
    }
  }
}

void TiotestWorkload::remove_files(std::size_t run, PrepareContext& ctx) {
  if (plan_.io.raw || run >= files_.size()) return;
  for (std::size_t t = 0; t < plan_.runs[run].threads; ++t) {
    WorkerSlot& s = slot(run, t);
    if (!s.file_created.exchange(false, std::memory_order_acq_rel)) continue;
    const ConfinedDir& dir = ctx.targets()[t % ctx.targets().size()].run_dir;
    if (const int err = dir.try_unlink(file_name(run, t)); err != 0 && err != ENOENT) {
      ctx.warn(
          fmt::format("could not remove '{}': {}", files_[run][t].string(), std::strerror(err)));
    }
  }
}

}  // namespace iobench::plugins::tiotest
