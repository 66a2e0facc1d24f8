#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "plugins/common/mdtest_item_name.hpp"

namespace iobench::plugins::mdtest {

/// mdtest 4's directory tree and item numbering for one rank, computed (never stored): a tree of
/// `depth` levels below a root, each directory with `branch` subdirectories, numbered as a heap
/// (root 0, the children of node k are b*k+1 .. b*k+b), each named "<base>.<node>" and nested in
/// its parent ("<base>.0/<base>.1/<base>.3"); `base` is "mdtest_tree" in the shared tree and
/// "mdtest_tree.<rank>" in a rank's own tree (-u). Item n lives in node n / items_per_dir and is
/// named "file.mdtest.<rank>.<n>" or "dir.mdtest.<rank>.<n>"; with leaf_only (-L) only the leaf
/// nodes (the last b^depth) hold items, so item numbers start at items_per_dir x (nodes - leaves).
/// This is what mdtest's create_remove_items / mdtest_stat compute (src/mdtest.c).
class TreeLayout {
 public:
  /// REQUIRES: branch >= 1 when depth > 0; items_per_dir >= 1.
  TreeLayout(std::uint32_t branch, std::uint32_t depth, std::uint64_t items_per_dir,
             bool leaf_only) noexcept;

  /// Directories in the tree, root included (mdtest's num_dirs_in_tree): 1 at depth 0, depth + 1
  /// with branch 1, (b^(z+1) - 1) / (b - 1) otherwise.
  [[nodiscard]] std::uint64_t dir_count() const noexcept { return dirs_; }
  /// Leaf directories: b^depth (1 at depth 0).
  [[nodiscard]] std::uint64_t leaf_count() const noexcept { return leaves_; }
  [[nodiscard]] std::uint64_t items_per_dir() const noexcept { return items_per_dir_; }
  /// Items one rank makes: items_per_dir x (leaf_only ? leaves : dirs).
  [[nodiscard]] std::uint64_t items() const noexcept { return items_; }
  /// The first node holding items (0, or the first leaf with leaf_only).
  [[nodiscard]] std::uint64_t first_item_node() const noexcept { return first_node_; }
  /// Item number of the i-th item (0 <= i < items()), in node order.
  [[nodiscard]] std::uint64_t item_number(std::uint64_t i) const noexcept {
    return first_node_ * items_per_dir_ + i;
  }
  /// Node holding item number `n`.
  [[nodiscard]] std::uint64_t node_of_item(std::uint64_t n) const noexcept {
    return n / items_per_dir_;
  }
  /// Parent of node `node` (> 0) in the heap numbering.
  [[nodiscard]] std::uint64_t parent_of(std::uint64_t node) const noexcept {
    return (node - 1) / branch_;
  }
  /// Depth of node `node` (root 0).
  [[nodiscard]] std::uint32_t depth_of(std::uint64_t node) const noexcept;
  /// Nodes holding items, in mdtest's creation order (pre-order: a node, then each child's
  /// subtree in turn): calls fn(node) for each.
  template <typename Fn>
  void for_each_item_node(Fn&& fn) const {
    visit_pre(0, 0, fn, true);
  }
  /// Every node in pre-order (tree creation order).
  template <typename Fn>
  void for_each_node_pre(Fn&& fn) const {
    visit_pre(0, 0, fn, false);
  }
  /// Every node in post-order (tree removal order: children before their parent).
  template <typename Fn>
  void for_each_node_post(Fn&& fn) const {
    visit_post(0, 0, fn);
  }

  /// Writes into `out` the path of node `node` relative to the test directory:
  /// "<base>.0[/<base>.<a>...]/<base>.<node>". Reuses out's capacity.
  void node_path(std::string_view base, std::uint64_t node, std::string& out) const;

 private:
  template <typename Fn>
  void visit_pre(std::uint64_t node, std::uint32_t level, Fn& fn, bool items_only) const {
    if (!items_only || !leaf_only_ || level == depth_) fn(node);
    if (level == depth_) return;
    for (std::uint64_t c = 0; c < branch_; ++c) {
      visit_pre(node * branch_ + 1 + c, level + 1, fn, items_only);
    }
  }
  template <typename Fn>
  void visit_post(std::uint64_t node, std::uint32_t level, Fn& fn) const {
    if (level < depth_) {
      for (std::uint64_t c = 0; c < branch_; ++c) visit_post(node * branch_ + 1 + c, level + 1, fn);
    }
    fn(node);
  }

  std::uint32_t branch_;
  std::uint32_t depth_;
  std::uint64_t items_per_dir_;
  bool leaf_only_;
  std::uint64_t dirs_ = 1;
  std::uint64_t leaves_ = 1;
  std::uint64_t first_node_ = 0;
  std::uint64_t items_ = 0;
};

/// The tree base name: "mdtest_tree" (shared tree) or "mdtest_tree.<rank>" (-u).
[[nodiscard]] std::string tree_base(bool unique_dir, std::uint64_t rank);
/// Appends mdtest's item name "file.mdtest.<rank>.<n>" (or "dir." with `dirs`) to `out`
/// (plugins/common: io500's mdtest phases name their files with it too).
using plugins::append_item_name;
/// mdtest's per-iteration test directory "test-dir.<iteration>-0" (iteration from 0).
[[nodiscard]] std::string test_dir_name(std::uint32_t iteration);

}  // namespace iobench::plugins::mdtest
