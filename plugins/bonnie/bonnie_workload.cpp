#include "plugins/bonnie/bonnie_workload.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/result.hpp>
#include <new>
#include <system_error>

#include "plugins/bonnie/file_workers.hpp"
#include "plugins/bonnie/io_workers.hpp"
#include "plugins/bonnie/report_header.hpp"

namespace iobench::plugins::bonnie {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

std::vector<std::string> op_names(PhaseId id) {
  switch (id) {
    case PhaseId::kPutc:
    case PhaseId::kGetc:
      return {"chunk"};
    case PhaseId::kPutBlock:
      return {"write"};
    case PhaseId::kRewrite:
      return {"rewrite"};
    case PhaseId::kGetBlock:
      return {"read"};
    case PhaseId::kSeeks:
      return {"seek"};
    case PhaseId::kSeqCreate:
    case PhaseId::kRandCreate:
      return {"create"};
    case PhaseId::kSeqStat:
    case PhaseId::kRandStat:
      return {"stat"};
    case PhaseId::kSeqDelete:
    case PhaseId::kRandDelete:
      return {"delete"};
  }
  return {};
}

bool is_create(PhaseId id) { return id == PhaseId::kSeqCreate || id == PhaseId::kRandCreate; }
bool is_delete(PhaseId id) { return id == PhaseId::kSeqDelete || id == PhaseId::kRandDelete; }

std::vector<std::string> counter_names(PhaseId id) {
  if (id == PhaseId::kPutc || id == PhaseId::kGetc) return {"calls"};
  if (id == PhaseId::kSeeks) return {"updates"};
  if (is_create(id)) return {"files_created"};
  return {};
}

}  // namespace

BonnieWorkload::BonnieWorkload(BonnieConfig config) : config_(std::move(config)) {}

BonnieWorkload::~BonnieWorkload() {
  if (tickets_ != nullptr) ::munmap(tickets_, tickets_bytes_);
}

std::vector<PhaseSpec> BonnieWorkload::phases() const {
  std::vector<PhaseSpec> specs;
  specs.reserve(config_.plan.size());
  for (const PlannedPhase& p : config_.plan) {
    PhaseSpec spec;
    spec.name = planned_phase_name(p, config_.repetitions);
    spec.op_names = op_names(p.id);
    spec.counter_names = counter_names(p.id);
    spec.workers = static_cast<std::size_t>(config_.copies) * config_.workers_per_copy(p.id);
    // bonnie++ is a single-threaded process in every test but seeks (see the class comment).
    spec.mode = p.id == PhaseId::kSeeks && config_.copies == 1 ? WorkerMode::kThreads
                                                               : WorkerMode::kProcesses;
    spec.measured = p.measured;
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::uint64_t BonnieWorkload::planned_bytes(std::size_t target_index) const {
  // Copy c works in target target_index_of(c, targets). Its scratch file is gone before its file
  // tests start, so its peak is the larger of the two.
  const std::uint64_t io_bytes = config_.io.size_mib * kMiB;
  const std::uint64_t file_bytes = config_.files.kind == FileKind::kRegular
                                       ? config_.files.count() * config_.files.max_bytes
                                       : 0;
  std::uint64_t copies_here = 0;
  for (std::uint32_t c = 0; c < config_.copies; ++c) {
    copies_here += target_index_of(c, config_.target_count) == target_index ? 1 : 0;
  }
  return copies_here * std::max(io_bytes, file_bytes);
}

void BonnieWorkload::prepare(PrepareContext& ctx) {
  seed_ = config_.seed.value_or(ctx.seed());
  for (auto& [key, value] : to_attributes(make_report_header(config_, seed_))) {
    ctx.set_attribute(key, std::move(value));
  }
  for (const std::string& warning : config_.warnings) ctx.warn(warning);
  ctx.set_attribute("data", config_.data.to_string());
  ctx.set_attribute("direct", static_cast<std::int64_t>(config_.direct ? 1 : 0));
  const bool per_char = std::any_of(config_.plan.begin(), config_.plan.end(), [](const auto& p) {
    return p.measured && (p.id == PhaseId::kPutc || p.id == PhaseId::kGetc);
  });
  if (config_.direct && per_char) {
    ctx.warn(
        "direct: the per-char phases (putc, getc) run without O_DIRECT: one-byte transfers "
        "cannot be O_DIRECT (bonnie++ 2.00a -D fails its per-char output instead)");
  }

  const std::size_t counters = static_cast<std::size_t>(config_.repetitions) * config_.copies;
  tickets_bytes_ = counters * sizeof(std::atomic<std::uint64_t>);
  void* memory =
      ::mmap(nullptr, tickets_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw IoError(errno, "mmap (seek tickets)", "shared memory");
  tickets_ = static_cast<std::atomic<std::uint64_t>*>(memory);
  for (std::size_t i = 0; i < counters; ++i) new (tickets_ + i) std::atomic<std::uint64_t>(0);
  files_created_.assign(config_.copies, 0);
  prepared_ = true;
}

std::string BonnieWorkload::io_file_name(std::uint32_t copy) {
  return "Bonnie." + std::to_string(copy);
}

std::string BonnieWorkload::test_dir_name(std::uint32_t copy) {
  return "Bonnie." + std::to_string(copy) + ".d";
}

std::unique_ptr<PhaseWorker> BonnieWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  if (ctx.stop_requested()) return nullptr;  // the run is being stopped: create nothing more
  const PlannedPhase& p = config_.plan.at(phase);
  const std::uint32_t per_copy = config_.workers_per_copy(p.id);
  const auto copy = static_cast<std::uint32_t>(ctx.worker_index() / per_copy);
  const ConfinedDir& run_dir = ctx.targets()[target_index_of(copy, ctx.targets().size())].run_dir;
  if (is_io_phase(p.id)) {
    IoArgs args{
        .run_dir = run_dir,
        .name = io_file_name(copy),
        .file = run_dir.shown(io_file_name(copy)),
        .chunk_bytes = config_.io.chunk_bytes,
        .file_bytes = config_.io.size_mib * kMiB,
        .per_char_bytes = config_.per_char_mib * kMiB,
        .direct = config_.direct,
        .data = config_.data,
        .fsync = config_.fsync,
        .seeks = config_.io.seeks,
        .seed = seed_,
        .next_ticket =
            tickets_ + (static_cast<std::size_t>(p.repetition - 1) * config_.copies + copy),
    };
    return make_io_worker(p.id, args);
  }
  FileArgs args{
      .run_dir = run_dir,
      .test_name = test_dir_name(copy),
      .test_dir = run_dir.shown(test_dir_name(copy)),
      .spec = config_.files,
      .seed = seed_,
      .fsync = config_.fsync,
      .existing = files_created_.at(copy),
      .data = config_.data,
      .ctx = &ctx,
  };
  return make_file_worker(p.id, args);
}

void BonnieWorkload::remove_io_files(std::span<const Target> targets) const {
  for (std::uint32_t c = 0; c < config_.copies; ++c) {
    const ConfinedDir& dir = targets[target_index_of(c, targets.size())].run_dir;
    if (!dir) continue;  // never a name outside a run dir
    if (const int err = dir.try_unlink(io_file_name(c)); err != 0 && err != ENOENT) {
      throw IoError(err, "unlink", dir.shown(io_file_name(c)).string());
    }
  }
}

void BonnieWorkload::after_phase(std::size_t phase, const PhaseResult& result,
                                 PrepareContext& ctx) {
  const PlannedPhase& p = config_.plan.at(phase);
  if (is_create(p.id)) {
    // What the stat and delete phases after it find: a time or op limit may have ended the
    // create phase before all N files of each copy (worker = copy) were made.
    for (const WorkerResult& worker : result.workers) {
      files_created_.at(worker.index) = worker.counters.at(kFilesCreatedCounter);
    }
  }
  if (is_delete(p.id)) {
    // A delete phase ended by a limit leaves files and the test directory behind; remove them
    // (untimed) so that the next create phase starts from nothing, as after a whole delete.
    for (std::uint32_t c = 0; c < config_.copies; ++c) remove_test_dir(ctx.targets(), c);
    files_created_.assign(config_.copies, 0);
  }
  const bool next_is_io = phase + 1 < config_.plan.size() &&
                          is_io_phase(config_.plan[phase + 1].id) &&
                          config_.plan[phase + 1].repetition == p.repetition;
  if (is_io_phase(p.id) && !next_is_io) remove_io_files(ctx.targets());
}

void BonnieWorkload::finish(PrepareContext& ctx) {
  // Only our own names inside the run directories; the runner removes the directories.
  if (!prepared_) return;
  remove_io_files(ctx.targets());
  for (std::uint32_t c = 0; c < config_.copies; ++c) remove_test_dir(ctx.targets(), c);
}

void BonnieWorkload::remove_test_dir(std::span<const Target> targets, std::uint32_t copy) const {
  const ConfinedDir& dir = targets[target_index_of(copy, targets.size())].run_dir;
  if (dir) dir.remove_all(test_dir_name(copy));  // nothing if it is gone
}

}  // namespace iobench::plugins::bonnie
