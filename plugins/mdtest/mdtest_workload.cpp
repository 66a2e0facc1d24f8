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

#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/common/rank0_dirs.hpp"
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
    : config_(std::move(config)), plan_(config_.plan()), total_ranks_(config_.ranks) {
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
    // -X: the files whose bytes were not their writer's pattern (kMismatchesCounter).
    if (config_.verify_read && p.kind == PhaseKind::kFileRead) {
      spec.counter_names = {"items_done", "mismatches"};
    }
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
  if (!rank0_dirs_.empty()) return rank0_dirs_.at(t).view();
  return targets[t].run_dir;
}

void MdtestWorkload::make_test_dirs(std::span<const Target> targets,
                                    std::uint32_t iteration) const {
  if (!leader()) return;  // rank 0 makes them for every rank
  for (std::size_t t = 0; t < targets.size() && t < total_ranks_; ++t) {
    targets[t].run_dir.mkdir(test_dir_name(iteration), 0755);
  }
}

void MdtestWorkload::prepare(PrepareContext& ctx) {
  const RankIdentity& me = ctx.rank_identity();
  rank_base_ = static_cast<std::uint64_t>(me.rank) * config_.ranks;
  total_ranks_ = static_cast<std::uint64_t>(me.size) * config_.ranks;
  // mdtest -G, else a seed from the step's (mdtest takes rank 0's time(NULL)): the same for every
  // run of the same step seed, so that a later run with tree_dir checks what a create run wrote.
  data_seed_ = config_.data_seed ? *config_.data_seed
                                 : pattern_seed("mdtest", static_cast<std::int64_t>(ctx.seed()), 0);
  if (me.size > 1) {
    // The one collective, first, before anything that may throw (from_rank0()'s rule): rank 0
    // makes the first test directory and sends its data seed (every process writes and checks
    // rank 0's, as mdtest broadcasts its -G) and the names of its run directories, where every
    // rank then works.
    const Rank0Setup setup = decode_rank0_setup(ctx.from_rank0([&] {
      if (config_.create) make_test_dirs(ctx.targets(), 0);
      return encode_rank0_setup({.data_seed = data_seed_, .names = run_dir_names(ctx.targets())});
    }));
    data_seed_ = setup.data_seed;
    if (me.rank != 0 && config_.tree_dir.empty()) {
      rank0_dirs_ = open_rank0_dirs(ctx.targets(), setup.names, "mdtest",
                                    "mdtest's ranks share one test directory");
    }
  }
  seed_ = config_.random_seed != 0 ? config_.random_seed : ctx.seed();
  if (!config_.tree_dir.empty()) {
    // The user's own directory, named by them; every name below it is confined to it.
    const int fd = ::open(config_.tree_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw IoError(errno, "open tree_dir", config_.tree_dir);
    tree_dir_ = OwnedConfinedDir(UniqueFd(fd), config_.tree_dir);
  }
  prepared_ = true;
  reset_made();
  if (config_.create && me.size == 1) make_test_dirs(ctx.targets(), 0);
  const TreeLayout layout = config_.layout();
  ctx.set_attribute("tasks", static_cast<std::int64_t>(total_ranks_));
  ctx.set_attribute("items_per_rank", static_cast<std::int64_t>(layout.items()));
  ctx.set_attribute("items_per_dir", static_cast<std::int64_t>(layout.items_per_dir()));
  ctx.set_attribute("dirs_in_tree", static_cast<std::int64_t>(layout.dir_count()));
  ctx.set_attribute("iterations", static_cast<std::int64_t>(config_.iterations));
  ctx.set_attribute("items_kind", std::string(config_.files && config_.dirs ? "files/directories"
                                              : config_.files               ? "files"
                                                                            : "directories"));
  // How the item ops name their items (param paths): "full" (whole paths, as mdtest) or "dirfd".
  ctx.set_attribute("paths", std::string(path_mode_name(config_.paths)));
  if (config_.random) ctx.set_attribute("random_seed", static_cast<std::int64_t>(seed_));
  if (config_.verify_read || (config_.files && config_.create && config_.write_bytes > 0)) {
    ctx.set_attribute("data_seed", static_cast<std::int64_t>(data_seed_));
  }
}

RankArgs MdtestWorkload::rank_args(const PlannedPhase& p, std::uint64_t worker) const {
  const std::uint64_t rank = rank_base_ + worker;
  const std::uint64_t ranks = total_ranks_;
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
      .data_seed = data_seed_,
      .item_count = 0,
  };
  // The items the rank it names made (each rank's own count after a stonewall).
  args.item_count = made_[is_dir_phase(p.kind) ? 0 : 1].at(args.name_rank);
  return args;
}

void MdtestWorkload::reset_made() {
  for (std::vector<std::uint64_t>& made : made_) {
    made.assign(total_ranks_, config_.layout().items());
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
  // The shared tree is rank 0's alone to make and remove; the other processes' one worker of a
  // tree phase has nothing to do.
  if (is_tree(p.kind) && !does_tree(args.tree_rank)) return make_idle_worker();
  return make_rank_worker(args, open_test_dir(ctx.targets(), p, args));
}

bool MdtestWorkload::check_created(const PlannedPhase& p, const PhaseResult& result,
                                   PrepareContext& ctx) {
  // Every process's workers' counts (alone: this one's), so that every process decides the same
  // and knows what the ranks it shifts to made.
  const std::vector<RankMade> made = decode_made(ctx.all_ranks(encode_made(result)));
  const bool tree = p.kind == PhaseKind::kTreeCreate;
  std::uint64_t done = 0;
  std::uint64_t planned = 0;
  bool short_of_plan = false;
  bool stonewalled = false;
  for (std::size_t r = 0; r < made.size(); ++r) {
    const std::uint64_t want = !tree          ? config_.layout().items()
                               : does_tree(r) ? config_.layout().dir_count()
                                              : 0;
    done += made[r].done;
    planned += want;
    short_of_plan = short_of_plan || made[r].done < want;
    stonewalled = stonewalled || made[r].stonewall_ns > 0;
  }
  if (stonewalled) report_stonewall(result, made, ctx);
  // -W: the wear-out left every worker (of every process) with as many items as the most any
  // made at the stonewall (the runner held them all while the ranks agreed on it); the later
  // phases act on what each rank made (mdtest's o.items = max_iter).
  if (!short_of_plan || stonewalled) {
    if (!tree && made.size() == total_ranks_) {
      // Creation names rank r's items after r itself (shift step 0).
      std::vector<std::uint64_t>& counts = made_[p.kind == PhaseKind::kDirCreate ? 0 : 1];
      for (std::size_t r = 0; r < made.size(); ++r) counts[r] = made[r].done;
    }
    return true;
  }
  ctx.skip_remaining_phases(
      fmt::format("'{}' made {} of its {} items (a time or op limit ended it): the phases after it "
                  "would look for items that were never made",
                  result.name, done, planned));
  return false;
}

void MdtestWorkload::report_stonewall(const PhaseResult& result, const std::vector<RankMade>& made,
                                      PrepareContext& ctx) const {
  std::vector<std::uint64_t> at_stonewall;
  std::vector<std::uint64_t> done;
  std::uint64_t sum = 0;
  std::uint64_t stonewall_ns = 0;
  for (const RankMade& m : made) {
    at_stonewall.push_back(m.at_stonewall);
    done.push_back(m.done);
    sum += m.at_stonewall;
    stonewall_ns = std::max(stonewall_ns, m.stonewall_ns);
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
                  static_cast<double>(stonewall_ns) / 1e9, join(at_stonewall), sum, join(done)));
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
    const std::uint64_t planned = p.kind != PhaseKind::kTreeRemove ? args.item_count
                                  : does_tree(args.tree_rank)      ? config_.layout().dir_count()
                                                                   : 0;
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

void MdtestWorkload::check_test_dirs_named(const PlannedPhase& p, const PhaseResult& result,
                                           PrepareContext& ctx) const {
  // paths=full ran every op by whole path, trusting it for the phase: each test directory's
  // path must still name the directory opened by descriptor, else the step fails naming it.
  for (std::size_t t = 0; t < ctx.targets().size() && t < total_ranks_; ++t) {
    const OwnedConfinedDir dir = base_dir(ctx.targets(), t).open_dir(test_dir_name(p.iteration));
    check_still_names(dir, fmt::format("after '{}'", result.name));
  }
}

void MdtestWorkload::after_phase(std::size_t phase, const PhaseResult& result,
                                 PrepareContext& ctx) {
  const PlannedPhase& p = plan_.at(phase);
  if (config_.paths == PathMode::kFull) check_test_dirs_named(p, result, ctx);
  if (is_create(p.kind) && !check_created(p, result, ctx)) return;
  if (is_remove(p.kind) || p.kind == PhaseKind::kDirRename) complete_cut_short(p, result, ctx);
  if (p.kind == PhaseKind::kTreeRemove) {
    // Under mpirun a barrier first: every process's ranks have removed their trees (-u).
    (void)ctx.all_ranks("");
    // mdtest removes the iteration's test directory after the tree, untimed (in tree_dir too:
    // an earlier iobench run made it, and the tree removal just emptied it); rank 0 alone.
    for (std::size_t t = 0; leader() && t < ctx.targets().size() && t < total_ranks_; ++t) {
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
  if (!leader()) return;                      // the test directories are rank 0's
  if (completed_ && !config_.remove) return;  // a create-only run leaves its trees
  for (const Target& target : ctx.targets()) {
    if (!target.run_dir) continue;
    for (std::uint32_t it = 0; it < config_.iterations; ++it) {
      target.run_dir.remove_all(test_dir_name(it));
    }
  }
}

}  // namespace iobench::plugins::mdtest
