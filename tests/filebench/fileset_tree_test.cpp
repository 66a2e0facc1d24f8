// A fileset's directory tree against filebench 1.5's placement rule: the set's directory is the
// tree's root (depth 1), a directory at depth d >= 2 holds files when its depth draw
// max(1, floor(G)), G ~ Gamma(dirgamma, mean depth / dirgamma), is at most d, and then
// ceil(W) of them, W ~ Gamma(dirgamma, dirwidth / dirgamma). The expected values are computed
// here (incomplete gamma function, and a Monte-Carlo restatement of the rule on the standard
// library's generator) and compared with the trees iobench creates on disk, walked.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "plugins/filebench/fileset.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;

namespace tree_shape {

/// What a tree's shape is judged by.
struct TreeStats {
  std::uint64_t dirs = 0;                  ///< the root included
  std::uint64_t files = 0;                 ///< in all
  int max_depth = 0;                       ///< the root is at depth 1
  std::map<int, std::uint64_t> dirs_at;    ///< directories per depth
  std::map<int, std::uint64_t> leaves_at;  ///< of those, the ones holding files
  bool operator==(const TreeStats&) const = default;
};

void add_dir(TreeStats& s, int depth, std::uint64_t files) {
  ++s.dirs;
  s.files += files;
  s.max_depth = std::max(s.max_depth, depth);
  ++s.dirs_at[depth];
  if (files > 0) ++s.leaves_at[depth];
}

/// The tree below (and including) `root` on disk.
TreeStats walk(const fs::path& root) {
  TreeStats s;
  std::vector<std::pair<fs::path, int>> todo{{root, 1}};
  while (!todo.empty()) {
    const auto [dir, depth] = todo.back();
    todo.pop_back();
    std::uint64_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory()) {
        todo.emplace_back(e.path(), depth + 1);
      } else {
        ++files;
      }
    }
    add_dir(s, depth, files);
  }
  return s;
}

/// The same figures from a layout (no disk).
TreeStats layout_stats(const fb::FilesetLayout& layout) {
  std::vector<int> depth(layout.dirs.size(), 1);
  std::vector<std::uint64_t> files(layout.dirs.size(), 0);
  for (std::size_t d = 0; d < layout.dirs.size(); ++d) {
    if (layout.dirs[d].parent != fb::FilesetLayout::kNoParent)
      depth[d] = depth[layout.dirs[d].parent] + 1;  // parents come first
  }
  for (const auto& f : layout.files) ++files[f.parent];
  TreeStats s;
  for (std::size_t d = 0; d < layout.dirs.size(); ++d) add_dir(s, depth[d], files[d]);
  return s;
}

fb::FilesetDef tree_set(std::uint64_t entries, double width, double gamma) {
  fb::FilesetDef def;
  def.name = "t";
  def.size.fixed_bytes = 0;
  def.entries = entries;
  def.dir_width = width;
  def.dir_gamma = gamma;
  def.prealloc_pct = 100;
  return def;
}

/// Creates `layout` in a fresh directory and walks it.
TreeStats on_disk(const fb::FilesetLayout& layout) {
  const iobench::test::TempDir dir("fbtree");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(dir.path());
  fb::create_on_disk(layout, run_dir, [] { return false; });
  return walk(dir.path() / layout.name);
}

/// Regularized lower incomplete gamma function P(a, x) (series; x of at most a few dozen).
double gamma_p(double a, double x) {
  if (x <= 0) return 0;
  double term = 1 / a;
  double sum = term;
  for (int n = 1; n < 2000 && term > sum * 1e-16; ++n) {
    term *= x / (a + n);
    sum += term;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

/// Files of a directory holding files: the count of i >= 1 with i < W + 1, i.e. ceil(W), whose
/// mean is the sum over k >= 0 of P(W > k).
double mean_files_per_leaf(double width, double shape) {
  double sum = 0;
  for (int k = 0; k < 100000; ++k) {
    const double tail = 1 - gamma_p(shape, k * shape / width);
    sum += tail;
    if (tail < 1e-13) break;
  }
  return sum;
}

/// Probability that a directory at depth d >= 2 holds files: floor(G) <= d, i.e. G < d + 1.
double leaf_probability(int depth, double mean_depth, double shape) {
  return gamma_p(shape, (depth + 1) * shape / mean_depth);
}

/// filebench's placement rule restated on std::mt19937_64 and std::gamma_distribution (not
/// iobench's generator): directories of one tree of `entries` files.
class RuleModel {
 public:
  RuleModel(std::uint64_t entries, double width, double shape, std::uint64_t seed)
      : entries_(entries),
        width_(width),
        shape_(shape),
        mean_depth_(std::log(static_cast<double>(entries)) / std::log(width)),
        rng_(seed) {}
  std::uint64_t dirs() {
    place(1, true);
    return dirs_;
  }

 private:
  void place(int depth, bool root) {
    ++dirs_;
    std::gamma_distribution<double> depth_draw(shape_, mean_depth_ / shape_);
    std::gamma_distribution<double> width_draw(shape_, width_ / shape_);
    const int deepest = std::max(1, static_cast<int>(depth_draw(rng_)));
    const double w = width_draw(rng_);
    const auto count = static_cast<std::uint64_t>(std::max(1.0, std::ceil(w)));
    const bool leaf = !root && depth >= deepest;
    for (std::uint64_t i = 0; (root || i < count) && placed_ < entries_; ++i) {
      if (leaf) {
        ++placed_;
      } else {
        place(depth + 1, false);
      }
    }
  }
  std::uint64_t entries_;
  double width_;
  double shape_;
  double mean_depth_;
  std::mt19937_64 rng_;
  std::uint64_t dirs_ = 0;
  std::uint64_t placed_ = 0;
};

}  // namespace tree_shape

TEST_CASE("a fixed-width fileset's tree on disk is rooted in the set's directory as filebench's") {
  // dirgamma=0: every depth draw is floor(ln entries / ln dirwidth), every width dirwidth.
  // 500 files at width 10: mean depth 2.70, so the root's subdirectories hold 10 files each.
  const tree_shape::TreeStats flat =
      tree_shape::on_disk(fb::draw_layout(tree_shape::tree_set(500, 10, 0), 1));
  CHECK(flat.dirs == 51);
  CHECK(flat.max_depth == 2);
  CHECK(flat.leaves_at == std::map<int, std::uint64_t>{{2, 50}});
  CHECK(flat.files == 500);
  // 250 at width 5: mean depth 3.43: 10 directories of 5 directories of 5 files.
  const tree_shape::TreeStats deep =
      tree_shape::on_disk(fb::draw_layout(tree_shape::tree_set(250, 5, 0), 1));
  CHECK(deep.dirs == 61);
  CHECK(deep.max_depth == 3);
  CHECK(deep.dirs_at == std::map<int, std::uint64_t>{{1, 1}, {2, 10}, {3, 50}});
  CHECK(deep.leaves_at == std::map<int, std::uint64_t>{{3, 50}});
}

TEST_CASE(
    "a gamma fileset's tree has filebench's directory count and depths and files per directory") {
  struct Setting {
    std::uint64_t entries;
    double width;
    double shape;
  };
  // What a layout says is what is on disk: one gamma tree created and walked (the statistics
  // below are taken from layouts, creating 10^6 files being too slow for a test).
  const fb::FilesetDef small = tree_shape::tree_set(1500, 10, 1.5);
  for (const std::uint64_t seed : {1, 2}) {
    const fb::FilesetLayout layout = fb::draw_layout(small, seed);
    CHECK(tree_shape::on_disk(layout) == tree_shape::layout_stats(layout));
  }
  for (const Setting& set :
       {Setting{20000, 20, 1.5}, Setting{5000, 5, 1.5}, Setting{3000, 10, 0.5}}) {
    INFO("entries " << set.entries << ", dirwidth " << set.width << ", dirgamma " << set.shape);
    const fb::FilesetDef def = tree_shape::tree_set(set.entries, set.width, set.shape);
    constexpr int kSeeds = 40;
    std::vector<tree_shape::TreeStats> trees;
    for (int seed = 1; seed <= kSeeds; ++seed) {
      trees.push_back(
          tree_shape::layout_stats(fb::draw_layout(def, static_cast<std::uint64_t>(seed))));
    }

    // Files per directory holding files, all trees together.
    std::uint64_t files = 0;
    std::uint64_t leaves = 0;
    std::map<int, std::uint64_t> dirs_at;
    std::map<int, std::uint64_t> leaves_at;
    for (const tree_shape::TreeStats& t : trees) {
      CHECK(t.files == set.entries);
      CHECK(t.dirs_at.at(1) == 1);
      CHECK(t.leaves_at.count(1) == 0);  // the root never holds files
      files += t.files;
      for (const auto& [depth, n] : t.leaves_at) {
        leaves += n;
        leaves_at[depth] += n;
      }
      for (const auto& [depth, n] : t.dirs_at) dirs_at[depth] += n;
    }
    const double per_leaf = static_cast<double>(files) / static_cast<double>(leaves);
    CHECK(per_leaf == Approx(tree_shape::mean_files_per_leaf(set.width, set.shape)).epsilon(0.03));

    // The share of directories holding files at each depth with at least 400 of them.
    const double mean_depth = std::log(static_cast<double>(set.entries)) / std::log(set.width);
    int depths_checked = 0;
    for (const auto& [depth, n] : dirs_at) {
      if (depth < 2 || n < 400) continue;
      const double p = tree_shape::leaf_probability(depth, mean_depth, set.shape);
      const double share = static_cast<double>(leaves_at[depth]) / static_cast<double>(n);
      INFO("depth " << depth << ": " << leaves_at[depth] << " of " << n << ", expected p " << p);
      CHECK(std::abs(share - p) <= 4 * std::sqrt(p * (1 - p) / static_cast<double>(n)) + 0.01);
      ++depths_checked;
    }
    CHECK(depths_checked >= 2);

    // Directories per tree against the rule's Monte-Carlo mean, within 4 standard errors.
    const auto mean_sd = [](const std::vector<double>& v) {
      double m = 0;
      for (const double x : v) m += x;
      m /= static_cast<double>(v.size());
      double ss = 0;
      for (const double x : v) ss += (x - m) * (x - m);
      return std::pair{m, std::sqrt(ss / static_cast<double>(v.size() - 1))};
    };
    std::vector<double> ours;
    for (const tree_shape::TreeStats& t : trees) ours.push_back(static_cast<double>(t.dirs));
    std::vector<double> rule;
    for (std::uint64_t seed = 1; seed <= 200; ++seed)
      rule.push_back(static_cast<double>(
          tree_shape::RuleModel(set.entries, set.width, set.shape, seed).dirs()));
    const auto [our_mean, our_sd] = mean_sd(ours);
    const auto [rule_mean, rule_sd] = mean_sd(rule);
    INFO("directories per tree: iobench " << our_mean << " (sd " << our_sd << "), rule "
                                          << rule_mean << " (sd " << rule_sd << ")");
    CHECK(std::abs(our_mean - rule_mean) <=
          4 * std::sqrt(our_sd * our_sd / kSeeds + rule_sd * rule_sd / 200));
  }
}

namespace tree_shape {

/// Paths below `root` (relative, "/" after a directory's), sorted.
std::vector<std::string> paths(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    out.push_back(fs::relative(e.path(), root).string() + (e.is_directory() ? "/" : ""));
  std::sort(out.begin(), out.end());
  return out;
}

/// Runs filebench on a file of `fileset_line` with path= a new directory, which it returns
/// (the fileset's own directory in it).
fs::path filebench_tree(const char* filebench, const iobench::test::TempDir& dir,
                        const std::string& fileset_line) {
  const fs::path f = dir.path() / "w.f";
  filebench_test::write_file(f, "define fileset name=t,path=" + dir.path().string() + "," +
                                    fileset_line + "\ncreate files\n");
  const auto r = iobench::test::run_command({"setarch", "-R", filebench, "-f", f.string()});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return dir.path() / "t";
}

}  // namespace tree_shape

TEST_CASE("filebench's own tree for the same fileset matches iobench's", "[filebench][reference]") {
  const char* filebench = filebench_test::filebench_binary_or_skip();
  if (filebench == nullptr) return;
  // Without dirgamma nothing is drawn: the same paths, directory for directory.
  const iobench::test::TempDir fixed("fbtreef");
  const fs::path theirs = tree_shape::filebench_tree(
      filebench, fixed, "size=0,entries=250,dirwidth=5,dirgamma=0,prealloc=100");
  const iobench::test::TempDir ours("fbtreei");
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(ours.path());
  fb::create_on_disk(fb::draw_layout(tree_shape::tree_set(250, 5, 0), 1), run_dir,
                     [] { return false; });
  const std::vector<std::string> their_paths = tree_shape::paths(theirs);
  CHECK(their_paths.size() == 250 + 60);
  CHECK(tree_shape::paths(ours.path() / "t") == their_paths);

  // With dirgamma 1.5 filebench's one tree (its drand48 is never seeded: always the same tree)
  // lies within iobench's spread over seeds.
  const iobench::test::TempDir drawn("fbtreeg");
  const tree_shape::TreeStats their_tree =
      tree_shape::walk(tree_shape::filebench_tree(filebench, drawn,
                                                  "size=0,entries=5000,"
                                                  "dirwidth=20,prealloc=0"));
  double sum = 0;
  double squares = 0;
  constexpr int kSeeds = 40;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const auto dirs = static_cast<double>(
        fb::draw_layout(tree_shape::tree_set(5000, 20, 1.5), static_cast<std::uint64_t>(seed))
            .dirs.size());
    sum += dirs;
    squares += dirs * dirs;
  }
  const double mean = sum / kSeeds;
  const double sd = std::sqrt((squares - kSeeds * mean * mean) / (kSeeds - 1));
  INFO("filebench " << their_tree.dirs << " directories, iobench " << mean << " (sd " << sd << ")");
  CHECK(std::abs(static_cast<double>(their_tree.dirs) - mean) <= 4 * sd);
}
