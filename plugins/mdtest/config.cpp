#include "plugins/mdtest/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/run_dir_name.hpp>

#include "plugins/mdtest/tree_layout.hpp"

namespace iobench::plugins::mdtest {
namespace {

/// Largest tree numbered: 2^24 directories (each rank's items are numbered within it).
constexpr std::uint64_t kMaxDirs = std::uint64_t{1} << 24;
constexpr std::uint64_t kMaxItems = std::uint64_t{1} << 32;

struct PhaseSelection {
  bool create = false, stat = false, read = false, rename = false, remove = false;
};

PhaseSelection parse_phases(const std::string& text) {
  if (text == "all") return {true, true, true, true, true};
  PhaseSelection s;
  for (const std::string_view item :
       split_list_param(text, "mdtest: phases", "create,stat", ListSeparators::kCommas)) {
    if (item == "create") {
      s.create = true;
    } else if (item == "stat") {
      s.stat = true;
    } else if (item == "read") {
      s.read = true;
    } else if (item == "rename") {
      s.rename = true;
    } else if (item == "remove") {
      s.remove = true;
    } else {
      throw ConfigError(fmt::format(
          "mdtest: phases: unknown phase '{}' in '{}'; give all or a comma-separated list of "
          "create, stat, read, rename, remove (mdtest -C -T -E -U -r)",
          item, text));
    }
  }
  return s;
}

/// Directories of a tree of branching factor `b` and depth `z`, or 0 past kMaxDirs.
std::uint64_t checked_dirs(std::uint64_t b, std::uint64_t z) {
  std::uint64_t dirs = 1;
  std::uint64_t level = 1;
  for (std::uint64_t l = 1; l <= z; ++l) {
    if (b > 1 && level > kMaxDirs / b) return 0;
    level *= b;
    dirs += level;
    if (dirs > kMaxDirs) return 0;
  }
  return dirs;
}

// tree_dir must hold what an earlier run with phases=create left: its first iteration's test
// directory. Checked before anything runs, so that a wrong path is refused (exit 2) rather than
// failing the run, and a directory that holds no mdtest tree is never acted on.
void check_tree_dir(const std::string& tree_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(tree_dir, ec)) {
    throw ConfigError(fmt::format(
        "mdtest: tree_dir={} is not a directory{}; give the run directory an earlier run with "
        "phases=create left (iobench --keep)",
        tree_dir, ec ? fmt::format(" ({})", ec.message()) : std::string{}));
  }
  const std::filesystem::path first = std::filesystem::path(tree_dir) / test_dir_name(0);
  if (!std::filesystem::is_directory(std::filesystem::symlink_status(first, ec))) {
    throw ConfigError(fmt::format(
        "mdtest: tree_dir={} holds no {} directory, so no tree an earlier run created; give the "
        "run directory an earlier run with phases=create left (iobench --keep)",
        tree_dir, test_dir_name(0)));
  }
}

}  // namespace

const char* phase_title(PhaseKind kind) noexcept {
  switch (kind) {
    case PhaseKind::kTreeCreate:
      return "Tree creation";
    case PhaseKind::kDirCreate:
      return "Directory creation";
    case PhaseKind::kDirStat:
      return "Directory stat";
    case PhaseKind::kDirRename:
      return "Directory rename";
    case PhaseKind::kDirRemove:
      return "Directory removal";
    case PhaseKind::kFileCreate:
      return "File creation";
    case PhaseKind::kFileStat:
      return "File stat";
    case PhaseKind::kFileRead:
      return "File read";
    case PhaseKind::kFileRemove:
      return "File removal";
    case PhaseKind::kTreeRemove:
      return "Tree removal";
  }
  return "";
}

std::vector<PlannedPhase> MdtestConfig::plan() const {
  std::vector<PlannedPhase> phases;
  for (std::uint32_t it = 0; it < iterations; ++it) {
    const auto add = [&](bool on, PhaseKind kind) {
      if (on) phases.push_back({kind, it});
    };
    add(create, PhaseKind::kTreeCreate);
    add(dirs && create, PhaseKind::kDirCreate);
    add(dirs && stat, PhaseKind::kDirStat);
    // mdtest renames only when there are two items or more (rename_dir_test).
    add(dirs && rename && layout().items() > 1, PhaseKind::kDirRename);
    add(dirs && remove, PhaseKind::kDirRemove);
    add(files && create, PhaseKind::kFileCreate);
    add(files && stat, PhaseKind::kFileStat);
    add(files && read, PhaseKind::kFileRead);
    add(files && remove, PhaseKind::kFileRemove);
    add(remove, PhaseKind::kTreeRemove);
  }
  return phases;
}

MdtestConfig make_config(const Params& params, std::size_t target_count) {
  MdtestConfig c;
  c.target_count = target_count;
  c.ranks = static_cast<std::uint32_t>(params.get_u64("ranks"));
  c.threads = params.get_string("worker_mode") == "threads";
  c.branch = static_cast<std::uint32_t>(params.get_u64("branch"));
  c.depth = static_cast<std::uint32_t>(params.get_u64("depth"));
  c.unique_dir = params.get_bool("unique_dir");
  c.leaf_only = params.get_bool("leaf_only");
  const bool files_only = params.get_bool("files_only");
  const bool dirs_only = params.get_bool("dirs_only");
  // mdtest: neither -F nor -D means both.
  c.files = files_only || !dirs_only;
  c.dirs = dirs_only || !files_only;
  c.write_bytes = params.get_u64("write_bytes");
  c.read_bytes = params.get_u64("read_bytes");
  c.shift = static_cast<std::uint32_t>(params.get_u64("shift"));
  c.verify_read = params.get_bool("verify_read");
  if (params.has("data_seed"))
    c.data_seed = static_cast<std::uint32_t>(params.get_u64("data_seed"));
  c.iterations = static_cast<std::uint32_t>(params.get_u64("iterations"));
  c.fsync = params.get_bool("fsync");
  c.sync = params.get_bool("sync");
  c.random = params.get_bool("random");
  if (params.has("random_seed")) c.random_seed = params.get_u64("random_seed");
  c.paths = path_mode_of(params.get_string("paths"));
  const PhaseSelection sel = parse_phases(params.get_string("phases"));
  c.create = sel.create;
  c.stat = sel.stat;
  c.read = sel.read;
  c.rename = sel.rename;
  c.remove = sel.remove;

  if (c.depth > 0 && c.branch < 1) {
    throw ConfigError(fmt::format(
        "mdtest: branch=0 with depth={}: a tree of depth > 0 needs a branching factor of 1 or "
        "more (mdtest -b); give branch=1 or more, or depth=0",
        c.depth));
  }
  const std::uint64_t dirs = checked_dirs(c.branch, c.depth);
  if (dirs == 0) {
    throw ConfigError(fmt::format(
        "mdtest: branch={} depth={} makes a tree of more than {} directories; give a smaller "
        "branch (mdtest -b) or depth (mdtest -z)",
        c.branch, c.depth, kMaxDirs));
  }
  const TreeLayout shape(c.branch, c.depth, 1, c.leaf_only);
  const std::uint64_t item_dirs = c.leaf_only ? shape.leaf_count() : shape.dir_count();
  const bool items_given = params.has("items");
  const bool per_dir_given = params.has("items_per_dir");
  if (items_given == per_dir_given) {
    throw ConfigError(
        items_given
            ? "mdtest: items and items_per_dir are both given; give one: items (mdtest -n, per "
              "rank, spread over the tree) or items_per_dir (mdtest -I)"
            : "mdtest: no item count; give items=N (mdtest -n, items per rank) or "
              "items_per_dir=N (mdtest -I)");
  }
  if (per_dir_given) {
    c.items_per_dir = params.get_u64("items_per_dir");
  } else {
    const std::uint64_t n = params.get_u64("items");
    // mdtest: items_per_dir = n / directories holding items, rounded down.
    c.items_per_dir = n / item_dirs;
    if (c.items_per_dir == 0) {
      throw ConfigError(fmt::format(
          "mdtest: items={} is fewer than the {} directories that hold items (branch={} "
          "depth={}{}): every directory would get 0; give items={} or more (mdtest -n)",
          n, item_dirs, c.branch, c.depth, c.leaf_only ? " leaf_only" : "", item_dirs));
    }
  }
  if (c.items_per_dir > kMaxItems / item_dirs) {
    throw ConfigError(fmt::format(
        "mdtest: {} items per directory in {} directories is more than {} items per rank; give "
        "fewer items (mdtest -n/-I)",
        c.items_per_dir, item_dirs, kMaxItems));
  }
  if (c.read && c.create && c.files && c.read_bytes > c.write_bytes) {
    throw ConfigError(fmt::format(
        "mdtest: read_bytes={} is more than write_bytes={}: the read phase would read past the "
        "end of the files the create phase writes (mdtest -e must not exceed -w); give "
        "read_bytes={} or less",
        c.read_bytes, c.write_bytes, c.write_bytes));
  }
  if (c.verify_read && (!c.read || !c.files || c.read_bytes == 0)) {
    throw ConfigError(fmt::format(
        "mdtest: verify_read=true checks the bytes the file read phase reads, and this run {}; "
        "give read_bytes=N (N > 0{}) with read in phases and without dirs_only (mdtest -X needs "
        "-E and -e), or drop verify_read",
        !c.files  ? "has no file phases (dirs_only)"
        : !c.read ? fmt::format("has no read phase (phases={})", params.get_string("phases"))
                  : std::string("reads 0 bytes per file (read_bytes=0)"),
        c.write_bytes > 0 ? fmt::format(", at most write_bytes={}", c.write_bytes) : ""));
  }
  if (target_count > 1 && !c.unique_dir) {
    throw ConfigError(fmt::format(
        "mdtest: {} targets with the shared tree: the ranks share one tree, which lives in one "
        "directory (mdtest refuses several -d paths without -u); give unique_dir=true or one "
        "target",
        target_count));
  }
  if (target_count > 1 && c.shift > 0) {
    throw ConfigError(fmt::format(
        "mdtest: shift={} with {} targets: a shifted rank would look for another rank's items in "
        "its own target (mdtest refuses -N with several -d paths); give shift=0 or one target",
        c.shift, target_count));
  }
  c.stonewall_ns = static_cast<std::uint64_t>(params.get_duration("stonewall").count());
  if (c.stonewall_ns > 0 && c.branch > 1 && c.depth > 0) {
    // The items a stonewalled creation made are the first ones in creation order; the stat and
    // read phases go in item order, the same order only when each level has one directory.
    throw ConfigError(fmt::format(
        "mdtest: stonewall={} with branch={}: the stonewall works only with a branching factor "
        "of 1 or less, as mdtest's -W (the later phases act on the first items made); give "
        "branch=1, depth=0 or stonewall=0",
        params.get_string("stonewall"), c.branch));
  }
  if (params.has("tree_dir")) c.tree_dir = params.get_string("tree_dir");
  if (!c.tree_dir.empty() && c.create) {
    throw ConfigError(fmt::format(
        "mdtest: tree_dir={} with phases={}: tree_dir names the trees an earlier run created, "
        "for a run that does not create (mdtest -T/-E/-r without -C); leave create out of phases "
        "or drop tree_dir",
        c.tree_dir, params.get_string("phases")));
  }
  if (c.tree_dir.empty() && !c.create) {
    throw ConfigError(fmt::format(
        "mdtest: phases={} without create: there is nothing to act on in the new run "
        "directory; give tree_dir=DIR, the run directory an earlier run with phases=create left "
        "(iobench --keep), or add create to phases",
        params.get_string("phases")));
  }
  if (!c.tree_dir.empty()) check_tree_dir(c.tree_dir);
  if (!c.tree_dir.empty() && target_count > 1) {
    throw ConfigError(fmt::format(
        "mdtest: tree_dir with {} targets: the earlier trees are in one directory; give one "
        "target",
        target_count));
  }
  if (!c.create && !c.stat && !c.read && !c.rename && !c.remove) {
    throw ConfigError(
        "mdtest: phases selects nothing; give all or some of create, stat, read, "
        "rename, remove");
  }
  return c;
}

std::string longest_full_path(const MdtestConfig& c, std::string_view base,
                              std::uint64_t total_ranks) {
  const TreeLayout layout = c.layout();
  const std::uint64_t rank = total_ranks > 0 ? total_ranks - 1 : 0;  // the most digits
  std::string prefix(base);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';  // as ConfinedDir::shown()
  prefix += test_dir_name(c.iterations - 1);
  prefix += '/';
  const std::string tree = tree_base(c.unique_dir, rank);
  std::string longest;
  std::string node;
  // Item `n` (a directory with `dirs`) in its node, its name followed by `suffix`.
  const auto consider = [&](bool dirs, std::uint64_t n, std::string_view suffix) {
    layout.node_path(tree, layout.node_of_item(n), node);
    std::string path = prefix + node + '/';
    append_item_name(dirs, rank, n, path);
    path += suffix;
    if (path.size() > longest.size()) longest = std::move(path);
  };
  // The highest item number lives in the last node, the deepest with the longest numbers.
  const std::uint64_t last = layout.item_number(layout.items() - 1);
  if (c.files) consider(false, last, "");
  if (c.dirs) consider(true, last, "");
  // mdtest's rename_dir_test sets item 0 aside as "<item 0>-XX" in its own node.
  if (c.dirs && c.rename && layout.items() > 1) consider(true, layout.item_number(0), "-XX");
  return longest;
}

void check_full_path_lengths(const MdtestConfig& c, std::span<const std::filesystem::path> targets,
                             std::uint32_t processes) {
  if (c.paths != PathMode::kFull) return;
  const std::uint64_t total_ranks = std::uint64_t{c.ranks} * std::max<std::uint32_t>(processes, 1);
  // What makes the path long: the base, the tree's depth and branch (the deepest directory's
  // numbers), unique_dir (the rank in every tree directory's name), the item numbers, the
  // iteration's number and the ranks' (in every name).
  const auto check = [&](const std::string& base, std::string_view param, const std::string& dir,
                         std::string_view fix) {
    check_full_path_length(
        longest_full_path(c, base, total_ranks), "mdtest",
        fmt::format("{}={} depth={} branch={} unique_dir={} items_per_dir={} iterations={} "
                    "ranks={} ({} in all)",
                    param, printable(dir), c.depth, c.branch, c.unique_dir, c.items_per_dir,
                    c.iterations, c.ranks, total_ranks),
        fix);
  };
  if (!c.tree_dir.empty()) {
    // An existing tree's depth and branch are its own: only its path can be shorter.
    check(c.tree_dir, "tree_dir", c.tree_dir, "or a shorter tree_dir path (move the tree)");
    return;
  }
  for (const std::filesystem::path& target : targets) {
    // Under mpirun every process works in the run directory another process made.
    check(longest_run_dir_path(target, processes > 1).string(), "target", target.string(),
          "a smaller depth (mdtest -z) or a shorter target");
  }
}

std::vector<ParamSpec> param_specs() {
  return {
      {.key = "ranks",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "workers",
       .help = "workers per phase, each an mdtest rank (mpirun -np of mdtest)",
       .min = 1,
       .max = 1024},
      {.key = "worker_mode",
       .type = ParamType::kEnum,
       .default_value = "processes",
       .help = "ranks as processes (as mdtest's MPI ranks) or threads of one process",
       .choices = {"processes", "threads"}},
      {.key = "items",
       .type = ParamType::kCount,
       .unit = "items",
       .help = "mdtest -n: files and/or directories per rank, spread evenly over the tree's "
               "directories (rounded down); or give items_per_dir",
       .min = 1},
      {.key = "items_per_dir",
       .type = ParamType::kCount,
       .unit = "items",
       .help = "mdtest -I: files and/or directories per rank in each directory of the tree",
       .min = 1},
      {.key = "branch",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "directories",
       .help = "mdtest -b: subdirectories of each directory of the tree (branching factor)",
       .max = 1000000},
      {.key = "depth",
       .type = ParamType::kCount,
       .default_value = "0",
       .unit = "levels",
       .help = "mdtest -z: levels of the tree below its root directory",
       .max = 63},
      {.key = "unique_dir",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -u: a tree per rank (mdtest_tree.<rank>.0) instead of one shared tree"},
      {.key = "leaf_only",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -L: items only in the leaf directories of the tree"},
      {.key = "files_only",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -F: file phases only (with dirs_only too, or neither: both)"},
      {.key = "dirs_only",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -D: directory phases only (with files_only too, or neither: both)"},
      {.key = "write_bytes",
       .type = ParamType::kSize,
       .default_value = "0",
       .unit = "bytes",
       .help = "mdtest -w: bytes written to each file when it is created (one write)"},
      {.key = "read_bytes",
       .type = ParamType::kSize,
       .default_value = "0",
       .unit = "bytes",
       .help = "mdtest -e: bytes read back from each file in the read phase (0: open and close)"},
      {.key = "shift",
       .type = ParamType::kCount,
       .default_value = "0",
       .unit = "ranks",
       .help = "mdtest -N: rank shift: stat, read and remove act on the items of rank "
               "(r + N), (r + 2N), (r + 3N) mod ranks, never a rank's own page-cache copies"},
      {.key = "verify_read",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -X: the read phase checks every byte it reads against the data pattern "
               "the file's creator wrote (IOR's, keyed by the writing rank and data_seed; every "
               "created file holds it); a file that differs counts in 'mismatches' and fails "
               "the phase, naming the first such file and byte offset (a read_bytes shorter "
               "than write_bytes checks the bytes the file holds, where mdtest flags a partial "
               "last word). Needs read_bytes > 0"},
      {.key = "data_seed",
       .type = ParamType::kCount,
       .help = "mdtest -G: seed of the data pattern created files hold (default: derived from "
               "the step's seed; give the create run's value to verify a tree_dir; mdtest's "
               "negative seeds are out of range)",
       .max = 2147483647},
      {.key = "iterations",
       .type = ParamType::kCount,
       .default_value = "1",
       .help = "mdtest -i: times the whole test runs, each in a new test-dir.<i>-0",
       .min = 1,
       .max = 10000},
      {.key = "fsync",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -y: fsync each file after writing it at creation"},
      {.key = "sync",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -Y: sync(2) after each phase, inside its time (which ends after it, not at "
               "the last op's end)"},
      {.key = "random",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "mdtest -R: stat and read the items in a random order (a permutation per rank "
               "from random_seed + rank)"},
      {.key = "random_seed",
       .type = ParamType::kCount,
       .help = "mdtest --random-seed: seed of random's order (default: the step's seed)"},
      {.key = "stonewall",
       .type = ParamType::kDuration,
       .default_value = "0",
       .help = "mdtest -W: end the directory and file creation phases after this long on every "
               "worker at once, then each worker creates until it has as many items as the most "
               "any made (wear-out); the later phases act on that count (0: off)"},
      {.key = "phases",
       .type = ParamType::kString,
       .default_value = "all",
       .help = "mdtest -C -T -E -U -r: all, or some of create, stat, read, rename, remove "
               "(comma-separated); create includes the tree creation, remove the tree removal"},
      {.key = "paths",
       .type = ParamType::kEnum,
       .default_value = "full",
       .help =
           "how each item and tree op names its item: full (as mdtest 4's POSIX backend: "
           "the whole path from the target as given, e.g. stat(\"DIR/iobench.X/"
           "test-dir.0-0/mdtest_tree.0/file.mdtest.0.7\"), the kernel resolving every "
           "component on every op; rates comparable with mdtest's and the IO500 list's) or "
           "dirfd (iobench's lower-overhead way: fstatat/openat/mkdirat... on the open leaf "
           "directory, measuring less path lookup than mdtest: on tmpfs fstatat on the leaf "
           "ran 1.27-1.34x as fast as stat of an 8-component path); full trusts the path during "
           "each phase, so it is refused unless every directory on the target's (and "
           "tree_dir's) path is owned by root or you and not group/other-writable unless "
           "sticky, and when its longest path (target, tree of branch and depth, item name) "
           "would reach PATH_MAX with its NUL",
       .choices = {"full", "dirfd"}},
      {.key = "tree_dir",
       .type = ParamType::kString,
       .help = "for phases without create: the directory holding an earlier run's test-dir.<i>-0 "
               "(its run directory, left with --keep); stat/read/rename/remove act there"},
  };
}

}  // namespace iobench::plugins::mdtest
