#include "plugins/mdtest/tree_layout.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace iobench::plugins::mdtest {

TreeLayout::TreeLayout(std::uint32_t branch, std::uint32_t depth, std::uint64_t items_per_dir,
                       bool leaf_only) noexcept
    : branch_(depth == 0 ? 0 : branch),
      depth_(depth),
      items_per_dir_(items_per_dir),
      leaf_only_(leaf_only) {
  std::uint64_t level_nodes = 1;
  for (std::uint32_t l = 1; l <= depth_; ++l) {
    level_nodes *= branch_;
    dirs_ += level_nodes;
  }
  leaves_ = level_nodes;
  first_node_ = leaf_only_ ? dirs_ - leaves_ : 0;
  items_ = items_per_dir_ * (leaf_only_ ? leaves_ : dirs_);
}

std::uint32_t TreeLayout::depth_of(std::uint64_t node) const noexcept {
  std::uint32_t level = 0;
  while (node > 0) {
    node = (node - 1) / branch_;
    ++level;
  }
  return level;
}

void TreeLayout::node_path(std::string_view base, std::uint64_t node, std::string& out) const {
  // The ancestors from the node up to (not including) the root, then written root first.
  std::array<std::uint64_t, 64> chain{};
  std::size_t n = 0;
  for (std::uint64_t k = node; k > 0 && n < chain.size(); k = (k - 1) / branch_) chain[n++] = k;
  out.clear();
  fmt::format_to(std::back_inserter(out), "{}.0", base);
  while (n > 0) fmt::format_to(std::back_inserter(out), "/{}.{}", base, chain[--n]);
}

std::string tree_base(bool unique_dir, std::uint64_t rank) {
  return unique_dir ? fmt::format("mdtest_tree.{}", rank) : std::string("mdtest_tree");
}

std::string test_dir_name(std::uint32_t iteration) {
  return fmt::format("test-dir.{}-0", iteration);
}

}  // namespace iobench::plugins::mdtest
