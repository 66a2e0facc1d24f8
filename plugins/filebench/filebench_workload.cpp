#include "plugins/filebench/filebench_workload.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iobench/error.hpp>
#include <iobench/prepare_progress.hpp>
#include <iobench/random_mix.hpp>
#include <iobench/result.hpp>
#include <map>
#include <sstream>
#include <thread>

#include "plugins/filebench/fileset_evict.hpp"
#include "plugins/filebench/flowop_aio.hpp"
#include "plugins/filebench/flowop_thread.hpp"
#include "plugins/filebench/randvar.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser.hpp"

namespace iobench::plugins::filebench {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// One worker thread and one memsize buffer per thread instance: bounded before any is made.
void check_threads(const WmlModel& model, const std::string& path) {
  const std::size_t threads = model.thread_count();  // <= 1024 x 4096 x threads of a file
  if (threads > kMaxThreads) {
    throw ConfigError(
        fmt::format("filebench: {} asks for {} threads (processes x instances x "
                    "thread instances); give at most {}",
                    path, threads, kMaxThreads));
  }
  std::uint64_t buffers = 0;  // <= 4096 threads x 1 GiB each: no overflow
  for (const ProcessDef& p : model.processes) {
    for (const ThreadDef& t : p.threads)
      buffers += std::uint64_t{p.instances} * t.instances * t.memsize;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  const std::uint64_t half_ram = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) *
                                                             static_cast<std::uint64_t>(page) / 2
                                                       : UINT64_MAX;
  if (buffers > half_ram) {
    throw ConfigError(
        fmt::format("filebench: {} asks for {} MiB of thread buffers (memsize x "
                    "thread instances), above half of the RAM ({} MiB); lower "
                    "memsize or instances",
                    path, buffers >> 20, half_ram >> 20));
  }
}

// filebench's `sleep`: the run pauses (its master alone, no process started yet), in slices so
// that a stop request ends the pause at once. Returns the seconds slept.
double pause_for(PrepareContext& ctx, std::uint64_t seconds) {
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::seconds(seconds);
  while (!ctx.stop_requested()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= end) break;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(end - now, std::chrono::milliseconds(100)));
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `cached=false`: the fileset's files leave the page cache; what stays is reported, never
// silently kept.
void evict(PrepareContext& ctx, const std::string& name, const FilesetLayout& layout,
           const ConfinedDir& run_dir) {
  const EvictResult r = evict_fileset(layout, run_dir);
  ctx.set_attribute(fmt::format("fileset.{}.evicted_files", name),
                    static_cast<std::int64_t>(r.files));
  ctx.set_attribute(fmt::format("fileset.{}.resident_pages", name),
                    static_cast<std::int64_t>(r.resident));
  if (!r.error.empty()) {
    // r.error names the call, the file and strerror's text of its errno.
    ctx.warn(fmt::format(
        "fileset '{}' has cached=false but could not be dropped from the page cache after {} "
        "files: {}; its reads may be cached: fix the cause above, or drop the caches as root "
        "(sync; echo 1 > /proc/sys/vm/drop_caches) before the run",
        name, r.files, r.error));
  } else if (r.resident > 0) {
    ctx.warn(fmt::format(
        "fileset '{}' has cached=false but {} of its {} pages stayed in the page cache after "
        "fdatasync and POSIX_FADV_DONTNEED (a filesystem kept in memory such as tmpfs, or the "
        "files mapped elsewhere): its reads may be cached; put the target on a disk-backed file "
        "system, or drop the caches as root (sync; echo 1 > /proc/sys/vm/drop_caches)",
        name, r.resident, r.pages));
  }
}

}  // namespace

std::vector<ParamSpec> filebench_param_specs() {
  return {
      ParamSpec{.key = "file",
                .type = ParamType::kString,
                .help = "the filebench .f file (Workload Model Language) to run",
                .required = true},
      ParamSpec{.key = "time_limit",
                .type = ParamType::kDuration,
                .unit = "s",
                .help = "length of the measured run; default: the file's 'run N' (60 s without N)",
                .min = 1'000'000},
      ParamSpec{.key = "aio_engine",
                .type = ParamType::kEnum,
                .default_value = "io_uring",
                .help = "engine of the aiowrite flowops: io_uring, or libaio (O_DIRECT only: "
                        "each aiowrite needs directio)",
                .choices = {"io_uring", "libaio"}},
  };
}

std::uint64_t fileset_seed(std::uint64_t step_seed, std::size_t index) noexcept {
  return splitmix64_mix(step_seed ^ splitmix64_mix(0xF11E5E7ULL + index));
}

void apply_nice(int nice) {
  if (nice == 0) return;
  const auto tid = static_cast<id_t>(::gettid());
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno != 0 || ::setpriority(PRIO_PROCESS, tid, std::min(now + nice, 19)) != 0)
    throw IoError(errno, "setpriority", fmt::format("nice {}", nice));
}

FilebenchWorkload::FilebenchWorkload(WmlModel model, std::chrono::nanoseconds time_limit,
                                     std::unique_ptr<Engine> aio_engine)
    : model_(std::move(model)),
      time_limit_(time_limit),
      totals_(1),
      aio_engine_(std::move(aio_engine)) {
  if (model_.eventgen_rate > 0) events_ = SharedArray<EventGenerator>(1, model_.eventgen_rate);
  for (const ProcessDef& p : model_.processes) {
    for (std::uint32_t pi = 0; pi < p.instances; ++pi) {
      std::size_t workers = 0;
      for (const ThreadDef& t : p.threads) {
        std::vector<OpId> ids;
        for (const FlowopDef& f : t.flowops) {
          auto it = std::find(op_names_.begin(), op_names_.end(), f.name);
          if (it == op_names_.end()) it = op_names_.insert(op_names_.end(), f.name);
          ids.push_back(static_cast<OpId>(it - op_names_.begin()));
        }
        for (std::uint32_t ti = 0; ti < t.instances; ++ti) {
          plans_.push_back(WorkerPlan{&t, ids});
          nice_.push_back(p.nice);
        }
        workers += t.instances;
      }
      process_workers_.push_back(workers);
    }
  }
  link_semaphores();
}

void FilebenchWorkload::link_semaphores() {
  // A sempost posts to the semblock of its target's name in every thread instance (filebench's
  // flowop_find over all flowops), a wakeup to the block of its target's name likewise. The
  // semaphores and blocks lie in shared mappings, in worker order.
  std::vector<std::uint64_t> highwater;
  std::size_t block_count = 0;
  for (const WorkerPlan& plan : plans_) {
    for (const FlowopDef& f : plan.thread->flowops) {
      if (f.kind == FlowopKind::kSemBlock) highwater.push_back(f.highwater);
      if (f.kind == FlowopKind::kBlock) ++block_count;
    }
  }
  semaphores_ = SharedArray<FlowopSemaphore>::built(
      highwater.size(),
      [&highwater](void* place, std::size_t i) { new (place) FlowopSemaphore(highwater[i]); });
  blocks_ = SharedArray<FlowopBlock>::built(
      block_count, [](void* place, std::size_t) { new (place) FlowopBlock(); });
  std::map<std::string, std::vector<FlowopSemaphore*>> by_name;
  std::map<std::string, std::vector<FlowopBlock*>> blocks_by_name;
  links_.resize(plans_.size());
  std::size_t next = 0;
  std::size_t next_block = 0;
  for (std::size_t w = 0; w < plans_.size(); ++w) {
    const std::vector<FlowopDef>& flowops = plans_[w].thread->flowops;
    SemaphoreLinks& links = links_[w];
    links.own.assign(flowops.size(), nullptr);
    links.posts.resize(flowops.size());
    links.blocks.assign(flowops.size(), nullptr);
    links.wakes.resize(flowops.size());
    for (std::size_t i = 0; i < flowops.size(); ++i) {
      if (flowops[i].kind == FlowopKind::kBlock) {
        links.blocks[i] = &blocks_[next_block++];
        blocks_by_name[flowops[i].name].push_back(links.blocks[i]);
      }
      if (flowops[i].kind != FlowopKind::kSemBlock) continue;
      links.own[i] = &semaphores_[next++];
      by_name[flowops[i].name].push_back(links.own[i]);
    }
  }
  for (std::size_t w = 0; w < plans_.size(); ++w) {
    const std::vector<FlowopDef>& flowops = plans_[w].thread->flowops;
    for (std::size_t i = 0; i < flowops.size(); ++i) {
      if (flowops[i].kind == FlowopKind::kSemPost)
        links_[w].posts[i] = by_name[flowops[i].post_target];
      if (flowops[i].kind == FlowopKind::kWakeup)
        links_[w].wakes[i] = blocks_by_name[flowops[i].post_target];
    }
  }
}

std::vector<PhaseSpec> FilebenchWorkload::phases() const {
  PhaseSpec run;
  run.name = "run";
  run.op_names = op_names_;
  run.counter_names = {"no_file_picks", "woken_by_wakeup"};
  run.workers = plans_.size();
  run.mode = WorkerMode::kProcesses;
  run.process_workers = process_workers_;
  run.time_limit = time_limit_;
  // psrun prints every flowop's figures per period: the series split by op (no cost per op).
  run.per_op_series = model_.psrun_period_s > 0;
  return {run};
}

std::optional<std::uint64_t> fileset_plan_bytes(const WmlModel& model) noexcept {
  std::uint64_t bytes = 0;
  for (const FilesetDef& f : model.filesets) {
    const double mean = f.size.kind == SizeSpec::Kind::kFixed
                            ? static_cast<double>(f.size.fixed_bytes)
                        : f.size.kind == SizeSpec::Kind::kRandVar ? randvar_mean(*f.size.randvar)
                                                                  : f.size.mean_bytes;
    const double set = mean * static_cast<double>(f.entries);
    // Sizes <= 2^44 bytes x entries <= 10^8 can pass 2^64: no cast of an out-of-range double.
    if (!(set < 0x1p64)) return std::nullopt;
    const auto set_bytes = static_cast<std::uint64_t>(set);
    if (bytes > UINT64_MAX - set_bytes) return std::nullopt;
    bytes += set_bytes;
  }
  return bytes;
}

std::uint64_t FilebenchWorkload::planned_bytes(std::size_t /*target_index*/) const {
  return fileset_plan_bytes(model_).value_or(UINT64_MAX);
}

void FilebenchWorkload::prepare(PrepareContext& ctx) {
  const ConfinedDir& run_dir = ctx.targets().front().run_dir;
  if (model_.lathist) ctx.set_attribute(kLathistAttr, std::int64_t{1});
  if (model_.psrun_period_s > 0) {
    ctx.set_attribute(kPsrunPeriodAttr, static_cast<std::int64_t>(model_.psrun_period_s));
    ctx.set_attribute(kPsrunResetAttr, std::int64_t{model_.psrun_reset ? 1 : 0});
  }
  // The file's order: sleeps above `create files` (or all, without one) come before the filesets
  // are made, the others after; no process runs before `run`/`psrun` (filebench 1.5's too).
  if (model_.sleep_before_create_s > 0) {
    ctx.set_attribute(kSleptBeforeCreateAttr, pause_for(ctx, model_.sleep_before_create_s));
    if (ctx.stop_requested()) return;
  }
  std::uint64_t total_files = 0;
  std::uint64_t total_bytes = 0;
  std::vector<FilesetLayout> layouts;
  std::uint64_t units = 0;  // the progress's whole: every fileset's entries
  for (std::size_t i = 0; i < model_.filesets.size(); ++i) {
    layouts.push_back(draw_layout(model_.filesets[i], fileset_seed(ctx.seed(), i)));
    units += creation_units(layouts.back());
  }
  std::uint64_t units_before = 0;  // of the filesets already made
  for (std::size_t i = 0; i < model_.filesets.size(); ++i) {
    const FilesetDef& def = model_.filesets[i];
    FilesetLayout layout = std::move(layouts[i]);
    const std::uint32_t threads = def.paralloc ? paralloc_threads(layout) : 1;
    const std::uint64_t written = create_on_disk(
        layout, run_dir, [&ctx] { return ctx.stop_requested(); },
        [&ctx, units_before, units](std::uint64_t walked) {
          report_prepare_progress(ctx, units_before + walked, units);
        },
        threads);
    ctx.set_attribute(fmt::format("fileset.{}.creation_threads", def.name),
                      static_cast<std::int64_t>(threads));
    units_before += creation_units(layout);
    if (ctx.stop_requested()) return;  // the runner skips the phases and removes the directory
    std::uint64_t created = 0;
    for (std::uint32_t f = 0; f < layout.files.size(); ++f) created += layout.preallocated(f);
    ctx.set_attribute(fmt::format("fileset.{}.entries", def.name),
                      static_cast<std::int64_t>(layout.files.size()));
    ctx.set_attribute(fmt::format("fileset.{}.dirs", def.name),
                      static_cast<std::int64_t>(layout.dirs.size()));
    std::uint64_t made_dirs = 0;
    for (std::uint32_t l = 0; l < layout.leafdirs.size(); ++l)
      made_dirs += layout.leafdir_preallocated(l);
    ctx.set_attribute(fmt::format("fileset.{}.leafdirs", def.name),
                      static_cast<std::int64_t>(layout.leafdirs.size()));
    ctx.set_attribute(fmt::format("fileset.{}.preallocated_leafdirs", def.name),
                      static_cast<std::int64_t>(made_dirs));
    ctx.set_attribute(fmt::format("fileset.{}.preallocated_files", def.name),
                      static_cast<std::int64_t>(created));
    ctx.set_attribute(fmt::format("fileset.{}.preallocated_bytes", def.name),
                      static_cast<std::int64_t>(written));
    if (!def.cached) evict(ctx, def.name, layout, run_dir);
    total_files += created;
    total_bytes += written;
    filesets_.push_back(std::make_unique<FilesetState>(std::move(layout)));
    fileset_ptrs_.push_back(filesets_.back().get());
  }
  ctx.set_attribute("fileset.preallocated_files", static_cast<std::int64_t>(total_files));
  ctx.set_attribute("fileset.preallocated_bytes", static_cast<std::int64_t>(total_bytes));
  if (model_.sleep_after_create_s > 0) {
    ctx.set_attribute(kSleptAfterCreateAttr, pause_for(ctx, model_.sleep_after_create_s));
    if (ctx.stop_requested()) return;
  }
  std::vector<std::string> reads;
  std::vector<std::string> writes;
  std::vector<std::string> others;
  for (const ProcessDef& p : model_.processes) {
    for (const ThreadDef& t : p.threads) {
      for (const FlowopDef& f : t.flowops) {
        std::vector<std::string>* list = flowop_reads(f.kind)    ? &reads
                                         : flowop_writes(f.kind) ? &writes
                                         : !flowop_is_io(f.kind) ? &others
                                                                 : nullptr;
        if (list == nullptr) continue;
        if (std::find(list->begin(), list->end(), f.name) == list->end()) list->push_back(f.name);
      }
    }
  }
  ctx.set_attribute(kReadFlowopsAttr, join(reads));
  ctx.set_attribute(kWriteFlowopsAttr, join(writes));
  ctx.set_attribute(kOtherFlowopsAttr, join(others));
}

std::unique_ptr<PhaseWorker> FilebenchWorkload::make_worker(std::size_t /*phase*/,
                                                            WorkerContext& ctx) {
  // prepare() ended early at a stop request: no worker runs on a half-made fileset.
  if (fileset_ptrs_.size() != model_.filesets.size() || ctx.stop_requested()) return nullptr;
  const WorkerPlan& plan = plans_[ctx.worker_index()];
  apply_nice(nice_[ctx.worker_index()]);  // in the worker's own thread, in its process
  return std::make_unique<FlowopThread>(
      *plan.thread, plan.op_ids, fileset_ptrs_, model_.filesets, ctx.target().run_dir, ctx.seed(),
      totals_[0], events_.size() > 0 ? &events_[0] : nullptr, links_[ctx.worker_index()],
      aio_engine_.get(), model_.quit_mode);
}

void FilebenchWorkload::after_phase(std::size_t /*phase*/, const PhaseResult& result,
                                    PrepareContext& ctx) {
  // Under firstdone and alldone a thread out of files is how the run ends, not a shortfall.
  if (model_.quit_mode == QuitMode::kTimeout && !result.counters.empty() &&
      result.counters[kNoFileCounter] > 0) {
    ctx.warn(fmt::format(
        "{} of {} threads stopped early: a flowop could not obtain a file or leaf directory (none "
        "in the state it needs, or all held by other threads); give the "
        "fileset more entries or the run less time",
        result.counters[kNoFileCounter], plans_.size()));
  }
}

std::unique_ptr<Workload> make_filebench_workload(const WorkloadSetup& setup) {
  const std::string& path = setup.params.get_string("file");
  WmlModel model = parse_wml_file(path);
  if (setup.targets.size() != 1) {
    throw ConfigError(
        fmt::format("filebench: {} targets given; a .f file's filesets go in one "
                    "directory, give one -d",
                    setup.targets.size()));
  }
  if (model.processes.empty()) {
    throw ConfigError(
        fmt::format("filebench: {} defines no process; add 'define process' with "
                    "a thread and its flowops",
                    path));
  }
  for (const ProcessDef& p : model.processes) {
    for (const ThreadDef& t : p.threads) {
      for (const FlowopDef& f : t.flowops) {
        if (f.iosize > t.memsize) {
          throw ConfigError(model.located(
              f.where, path,
              fmt::format("flowop '{}' has iosize {} above its thread's memsize {}; raise "
                          "memsize or lower iosize",
                          f.name, f.iosize, t.memsize)));
        }
      }
    }
  }
  check_threads(model, path);
  if (!fileset_plan_bytes(model)) {
    throw ConfigError(
        fmt::format("filebench: {} plans filesets of 2^64 bytes or more (entries x size); give "
                    "fewer entries or smaller sizes",
                    path));
  }
  std::unique_ptr<Engine> aio = make_aio_engine(model, setup.params.get_string("aio_engine"), path);
  // A bare `run` under firstdone/alldone: no limit (0), the run ends when it is done.
  std::chrono::nanoseconds limit = model.run_until_done
                                       ? std::chrono::nanoseconds(0)
                                       : std::chrono::seconds(model.run_seconds.value_or(60));
  if (setup.params.has("time_limit")) limit = setup.params.get_duration("time_limit");
  return std::make_unique<FilebenchWorkload>(std::move(model), limit, std::move(aio));
}

}  // namespace iobench::plugins::filebench
