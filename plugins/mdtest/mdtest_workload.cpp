#include "plugins/mdtest/mdtest_workload.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
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

bool is_remove(PhaseKind kind) {
  return kind == PhaseKind::kDirRemove || kind == PhaseKind::kFileRemove ||
         kind == PhaseKind::kTreeRemove;
}

bool is_dir_phase(PhaseKind kind) {
  return kind == PhaseKind::kDirCreate || kind == PhaseKind::kDirStat ||
         kind == PhaseKind::kDirRename || kind == PhaseKind::kDirRemove;
}

std::string join(const std::vector<std::uint64_t>& values) {
  return fmt::format("{}", fmt::join(values, ", "));
}

}  // namespace

MdtestWorkload::MdtestWorkload(MdtestConfig config)
    : config_(std::move(config)), plan_(config_.plan()) {
  reset_made();
}

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
    if (config_.stonewall_ns > 0 && is_create(p.kind) && p.kind != PhaseKind::kTreeCreate) {
      // -W: the runner's time limit and wear-out (as --wear-out), on the creation phases only.
      spec.time_limit = std::chrono::nanoseconds(config_.stonewall_ns);
      spec.wear_out = true;
      spec.counter_names = {"items_done", "items_at_stonewall", "stonewall_ns"};
    }
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
  reset_made();
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

RankArgs MdtestWorkload::rank_args(const PlannedPhase& p, std::uint64_t rank) const {
  const std::uint64_t ranks = config_.ranks;
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
      .item_count = 0,
  };
  // The items the rank it names made (each rank's own count after a stonewall).
  args.item_count = made_[is_dir_phase(p.kind) ? 0 : 1].at(args.name_rank);
  return args;
}

void MdtestWorkload::reset_made() {
  for (std::vector<std::uint64_t>& made : made_) {
    made.assign(config_.ranks, config_.layout().items());
  }
}

OwnedConfinedDir MdtestWorkload::open_test_dir(std::span<const Target> targets,
                                               const PlannedPhase& p, const RankArgs& args) const {
  const std::size_t target = target_index_of(args.tree_rank, targets.size());
  return base_dir(targets, target).open_dir(test_dir_name(p.iteration));
}

std::unique_ptr<PhaseWorker> MdtestWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  if (ctx.stop_requested()) return nullptr;
  const PlannedPhase& p = plan_.at(phase);
  const RankArgs args = rank_args(p, ctx.worker_index());
  return make_rank_worker(args, open_test_dir(ctx.targets(), p, args));
}

bool MdtestWorkload::check_created(const PlannedPhase& p, const PhaseResult& result,
                                   PrepareContext& ctx) {
  std::uint64_t done = 0;
  std::uint64_t least = UINT64_MAX;
  bool stonewalled = false;
  for (const WorkerResult& w : result.workers) {
    const std::uint64_t d = w.counters.at(kItemsDoneCounter);
    done += d;
    least = std::min(least, d);
    if (w.counters.size() > kStonewallNsCounter && w.counters[kStonewallNsCounter] > 0) {
      stonewalled = true;
    }
  }
  const std::uint64_t workers = result.workers.size();
  const std::uint64_t per_worker =
      p.kind == PhaseKind::kTreeCreate ? config_.layout().dir_count() : config_.layout().items();
  if (stonewalled) report_stonewall(result, ctx);
  // -W: the wear-out left every worker with as many items as the most any made at the
  // stonewall (or one more: the runner's wear-out ends a worker at or just past its target); the
  // later phases act on what each rank made (mdtest's o.items = max_iter).
  if (least == per_worker || stonewalled) {
    if (p.kind != PhaseKind::kTreeCreate) {
      std::vector<std::uint64_t>& made = made_[p.kind == PhaseKind::kDirCreate ? 0 : 1];
      // Creation names rank r's items after r itself (shift step 0).
      for (std::size_t w = 0; w < result.workers.size() && w < made.size(); ++w) {
        made[w] = result.workers[w].counters.at(kItemsDoneCounter);
      }
    }
    return true;
  }
  ctx.skip_remaining_phases(
      fmt::format("'{}' made {} of its {} items (a time or op limit ended it): the phases after it "
                  "would look for items that were never made",
                  result.name, done, workers * per_worker));
  return false;
}

void MdtestWorkload::report_stonewall(const PhaseResult& result, PrepareContext& ctx) const {
  std::vector<std::uint64_t> at_stonewall;
  std::vector<std::uint64_t> made;
  std::uint64_t sum = 0;
  std::uint64_t stonewall_ns = 0;
  for (const WorkerResult& w : result.workers) {
    at_stonewall.push_back(w.counters.at(kItemsAtStonewallCounter));
    made.push_back(w.counters.at(kItemsDoneCounter));
    sum += at_stonewall.back();
    stonewall_ns = std::max(stonewall_ns, w.counters.at(kStonewallNsCounter));
  }
  // mdtest's "File create (stonewall)" figures: the items made by the stonewall and its time.
  ctx.set_attribute(fmt::format("stonewall_items.{}", result.name), static_cast<std::int64_t>(sum));
  ctx.set_attribute(fmt::format("stonewall_s.{}", result.name),
                    static_cast<double>(stonewall_ns) / 1e9);
  ctx.set_attribute(
      fmt::format("stonewall.{}", result.name),
      fmt::format("stonewall={:.3f} s hit after {:.3f} s; items per worker at the stonewall: {} "
                  "(sum {}); after the wear-out: {}",
                  static_cast<double>(config_.stonewall_ns) / 1e9,
                  static_cast<double>(stonewall_ns) / 1e9, join(at_stonewall), sum, join(made)));
}

// A removal a time or op limit cut short: the rest is removed untimed, as mdtest's removal
// always removes every item (it turns its stonewall off for removal), so that the tree removal
// after it finds empty directories. A rename cut short puts back the item it set aside.
void MdtestWorkload::complete_cut_short(const PlannedPhase& p, const PhaseResult& result,
                                        PrepareContext& ctx) const {
  std::uint64_t done = 0;
  std::uint64_t left = 0;
  for (std::size_t w = 0; w < result.workers.size(); ++w) {
    const RankArgs args = rank_args(p, w);
    const std::uint64_t planned =
        p.kind == PhaseKind::kTreeRemove ? config_.layout().dir_count() : args.item_count;
    const std::uint64_t d = result.workers[w].counters.at(kItemsDoneCounter);
    done += d;
    // A rename that did nothing set nothing aside.
    if (d >= planned || (p.kind == PhaseKind::kDirRename && d == 0)) continue;
    left += planned - d;
    ::iobench::plugins::mdtest::complete_cut_short(args, open_test_dir(ctx.targets(), p, args), d);
  }
  if (left == 0) return;
  if (p.kind == PhaseKind::kDirRename) {
    ctx.warn(fmt::format(
        "'{}' renamed {} of its {} items (a time or op limit ended it); the item it had set "
        "aside was renamed back untimed, so that every item name exists for the phases after it",
        result.name, done, done + left));
    return;
  }
  ctx.warn(fmt::format(
      "'{}' removed {} of its {} items (a time or op limit ended it); the {} left were removed "
      "untimed after it, as mdtest's removal removes every item",
      result.name, done, done + left, left));
}

void MdtestWorkload::after_phase(std::size_t phase, const PhaseResult& result,
                                 PrepareContext& ctx) {
  const PlannedPhase& p = plan_.at(phase);
  if (is_create(p.kind) && !check_created(p, result, ctx)) return;
  if (is_remove(p.kind) || p.kind == PhaseKind::kDirRename) complete_cut_short(p, result, ctx);
  if (p.kind == PhaseKind::kTreeRemove) {
    // mdtest removes the iteration's test directory after the tree, untimed (in tree_dir too:
    // an earlier iobench run made it, and the tree removal just emptied it).
    for (std::size_t t = 0; t < ctx.targets().size() && t < config_.ranks; ++t) {
      base_dir(ctx.targets(), t).rmdir(test_dir_name(p.iteration));
    }
  }
  const bool last = phase + 1 == plan_.size();
  if (!last && plan_[phase + 1].iteration != p.iteration) {
    reset_made();
    if (config_.create) make_test_dirs(ctx.targets(), plan_[phase + 1].iteration);
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
