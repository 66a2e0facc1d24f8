#include "plugins/mdtest/mdtest_workload.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/result.hpp>

#include "plugins/mdtest/workers.hpp"

namespace iobench::plugins::mdtest {
namespace {

const char* op_name(PhaseKind kind) {
  switch (kind) {
    case PhaseKind::kTreeCreate:
    case PhaseKind::kDirCreate:
      return "mkdir";
    case PhaseKind::kDirStat:
    case PhaseKind::kFileStat:
      return "stat";
    case PhaseKind::kDirRename:
      return "rename";
    case PhaseKind::kDirRemove:
    case PhaseKind::kTreeRemove:
      return "rmdir";
    case PhaseKind::kFileCreate:
      return "create";
    case PhaseKind::kFileRead:
      return "read";
    case PhaseKind::kFileRemove:
      return "unlink";
  }
  return "";
}

bool is_tree(PhaseKind kind) {
  return kind == PhaseKind::kTreeCreate || kind == PhaseKind::kTreeRemove;
}

bool is_create(PhaseKind kind) {
  return kind == PhaseKind::kTreeCreate || kind == PhaseKind::kDirCreate ||
         kind == PhaseKind::kFileCreate;
}

}  // namespace

MdtestWorkload::MdtestWorkload(MdtestConfig config)
    : config_(std::move(config)), plan_(config_.plan()) {}

std::vector<PhaseSpec> MdtestWorkload::phases() const {
  std::vector<PhaseSpec> specs;
  specs.reserve(plan_.size());
  for (const PlannedPhase& p : plan_) {
    PhaseSpec spec;
    spec.name = phase_title(p.kind);
    if (config_.iterations > 1) spec.name += fmt::format("#{}", p.iteration + 1);
    spec.op_names = {op_name(p.kind)};
    spec.counter_names = {"items_done"};
    spec.workers = is_tree(p.kind) && !config_.unique_dir ? 1 : config_.ranks;
    spec.mode = config_.threads ? WorkerMode::kThreads : WorkerMode::kProcesses;
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::uint64_t MdtestWorkload::planned_bytes(std::size_t target_index) const {
  if (!config_.files || !config_.create || !config_.tree_dir.empty()) return 0;
  std::uint64_t ranks_here = 0;
  for (std::uint32_t r = 0; r < config_.ranks; ++r) {
    ranks_here += target_index_of(r, config_.target_count) == target_index ? 1 : 0;
  }
  const std::uint64_t iterations_kept = config_.remove ? 1 : config_.iterations;
  return ranks_here * config_.layout().items() * config_.write_bytes * iterations_kept;
}

std::uint64_t MdtestWorkload::retained_bytes(std::size_t target_index) const {
  return config_.remove ? 0 : planned_bytes(target_index);
}

ConfinedDir MdtestWorkload::base_dir(std::span<const Target> targets, std::size_t t) const {
  if (tree_dir_) return tree_dir_.view();
  return targets[t].run_dir;
}

void MdtestWorkload::make_test_dirs(std::span<const Target> targets,
                                    std::uint32_t iteration) const {
  for (std::size_t t = 0; t < targets.size() && t < config_.ranks; ++t) {
    targets[t].run_dir.mkdir(test_dir_name(iteration), 0755);
  }
}

void MdtestWorkload::prepare(PrepareContext& ctx) {
  seed_ = config_.random_seed != 0 ? config_.random_seed : ctx.seed();
  if (!config_.tree_dir.empty()) {
    // The user's own directory, named by them; every name below it is confined to it.
    const int fd = ::open(config_.tree_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw IoError(errno, "open tree_dir", config_.tree_dir);
    tree_dir_ = OwnedConfinedDir(UniqueFd(fd), config_.tree_dir);
  }
  prepared_ = true;
  if (config_.create) make_test_dirs(ctx.targets(), 0);
  const TreeLayout layout = config_.layout();
  ctx.set_attribute("tasks", static_cast<std::int64_t>(config_.ranks));
  ctx.set_attribute("items_per_rank", static_cast<std::int64_t>(layout.items()));
  ctx.set_attribute("items_per_dir", static_cast<std::int64_t>(layout.items_per_dir()));
  ctx.set_attribute("dirs_in_tree", static_cast<std::int64_t>(layout.dir_count()));
  ctx.set_attribute("iterations", static_cast<std::int64_t>(config_.iterations));
  ctx.set_attribute("items_kind", std::string(config_.files && config_.dirs ? "files/directories"
                                              : config_.files               ? "files"
                                                                            : "directories"));
  if (config_.random) ctx.set_attribute("random_seed", static_cast<std::int64_t>(seed_));
}

std::unique_ptr<PhaseWorker> MdtestWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  if (ctx.stop_requested()) return nullptr;
  const PlannedPhase& p = plan_.at(phase);
  const std::uint64_t ranks = config_.ranks;
  const std::uint64_t rank = ctx.worker_index();
  const std::uint64_t step = shift_step(p.kind);
  const std::uint64_t shift = config_.shift;
  RankArgs args{
      .kind = p.kind,
      .test_dir = {},
      .config = &config_,
      .name_rank = (rank + step * shift) % ranks,
      // mdtest -u: create works in tree r+N, stat in r+2N... (unique_chdir_dir & co.); the tree
      // phases in the rank's own.
      .tree_rank = is_tree(p.kind) ? rank : (rank + (step + 1) * shift) % ranks,
      .order_seed = seed_ + rank,
  };
  const std::size_t target = target_index_of(args.tree_rank, ctx.targets().size());
  OwnedConfinedDir test_dir = base_dir(ctx.targets(), target).open_dir(test_dir_name(p.iteration));
  return make_rank_worker(args, std::move(test_dir));
}

void MdtestWorkload::after_phase(std::size_t phase, const PhaseResult& result,
                                 PrepareContext& ctx) {
  const PlannedPhase& p = plan_.at(phase);
  if (is_create(p.kind)) {
    std::uint64_t done = 0;
    for (const WorkerResult& w : result.workers) done += w.counters.at(kItemsDoneCounter);
    const std::uint64_t workers = result.workers.size();
    const std::uint64_t expected = p.kind == PhaseKind::kTreeCreate
                                       ? workers * config_.layout().dir_count()
                                       : workers * config_.layout().items();
    if (done < expected) {
      ctx.skip_remaining_phases(fmt::format(
          "'{}' made {} of its {} items (a time or op limit ended it): the phases after it "
          "would look for items that were never made",
          result.name, done, expected));
      return;
    }
  }
  if (p.kind == PhaseKind::kTreeRemove) {
    // mdtest removes the iteration's test directory after the tree, untimed (in tree_dir too:
    // an earlier iobench run made it, and the tree removal just emptied it).
    for (std::size_t t = 0; t < ctx.targets().size() && t < config_.ranks; ++t) {
      base_dir(ctx.targets(), t).rmdir(test_dir_name(p.iteration));
    }
  }
  const bool last = phase + 1 == plan_.size();
  if (!last && plan_[phase + 1].iteration != p.iteration && config_.create) {
    make_test_dirs(ctx.targets(), plan_[phase + 1].iteration);
  }
  completed_ = last;
}

void MdtestWorkload::finish(PrepareContext& ctx) {
  if (!prepared_ || tree_dir_) return;        // never remove in an earlier run's directory
  if (completed_ && !config_.remove) return;  // a create-only run leaves its trees
  for (const Target& target : ctx.targets()) {
    if (!target.run_dir) continue;
    for (std::uint32_t it = 0; it < config_.iterations; ++it) {
      target.run_dir.remove_all(test_dir_name(it));
    }
  }
}

}  // namespace iobench::plugins::mdtest
