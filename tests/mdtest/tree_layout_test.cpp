// The tree and item numbering of mdtest 4, checked against listings mdtest itself made.

#include "plugins/mdtest/tree_layout.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench::plugins::mdtest;
using iobench::test::TempDir;
using iobench::test::mdtest::run_mdtest;

TEST_CASE("mdtest tree sizes follow mdtest num_dirs_in_tree", "[mdtest][tree]") {
  CHECK(TreeLayout(1, 0, 5, false).dir_count() == 1);
  CHECK(TreeLayout(1, 3, 5, false).dir_count() == 4);
  CHECK(TreeLayout(2, 2, 5, false).dir_count() == 7);
  CHECK(TreeLayout(3, 3, 1, false).dir_count() == 40);
  CHECK(TreeLayout(3, 3, 1, false).leaf_count() == 27);
  const TreeLayout leaf(2, 2, 3, true);
  CHECK(leaf.items() == 12);
  CHECK(leaf.item_number(0) == 9);  // nodes 3..6 are the leaves: items 9..20
  CHECK(leaf.node_of_item(leaf.item_number(11)) == 6);
  std::string path;
  TreeLayout(2, 2, 1, false).node_path("mdtest_tree", 5, path);
  CHECK(path == "mdtest_tree.0/mdtest_tree.2/mdtest_tree.5");
  TreeLayout(3, 2, 1, false).node_path("mdtest_tree.4", 12, path);
  CHECK(path == "mdtest_tree.4.0/mdtest_tree.4.3/mdtest_tree.4.12");
}

// Listed from `mpirun -np 1 mdtest -d t -b 2 -z 2 -I 2 -C` (mdtest-4.1.0+dev, hpc/ior 5fcf0ba):
// the directories and the items of each node, numbered node x 2 + i.
TEST_CASE("mdtest create run makes the tree mdtest makes for b 2 z 2 I 2", "[mdtest][tree]") {
  TempDir dir("mdtest_tree");
  const auto out = run_mdtest(
      dir.path(), {{"branch", "2"}, {"depth", "2"}, {"items_per_dir", "2"}, {"phases", "create"}},
      true);
  REQUIRE(out.step.status == iobench::Status::kOk);
  const std::vector<std::pair<std::string, int>> nodes = {
      {"mdtest_tree.0", 0},
      {"mdtest_tree.0/mdtest_tree.1", 1},
      {"mdtest_tree.0/mdtest_tree.1/mdtest_tree.3", 3},
      {"mdtest_tree.0/mdtest_tree.1/mdtest_tree.4", 4},
      {"mdtest_tree.0/mdtest_tree.2", 2},
      {"mdtest_tree.0/mdtest_tree.2/mdtest_tree.5", 5},
      {"mdtest_tree.0/mdtest_tree.2/mdtest_tree.6", 6}};
  std::vector<std::string> expected = {"test-dir.0-0"};
  for (const auto& [path, node] : nodes) {
    expected.push_back("test-dir.0-0/" + path);
    for (int i = 0; i < 2; ++i) {
      const int n = node * 2 + i;
      expected.push_back("test-dir.0-0/" + path + "/dir.mdtest.0." + std::to_string(n));
      expected.push_back("test-dir.0-0/" + path + "/file.mdtest.0." + std::to_string(n));
    }
  }
  std::sort(expected.begin(), expected.end());
  CHECK(out.tree == expected);
}

// Listed from `mpirun -np 2 mdtest -d t -b 2 -z 1 -I 1 -u -L -C`.
TEST_CASE("mdtest unique leaf-only trees match mdtest for 2 ranks", "[mdtest][tree]") {
  TempDir dir("mdtest_tree_u");
  const auto out = run_mdtest(dir.path(),
                              {{"ranks", "2"},
                               {"branch", "2"},
                               {"depth", "1"},
                               {"items_per_dir", "1"},
                               {"unique_dir", "true"},
                               {"leaf_only", "true"},
                               {"phases", "create"}},
                              true);
  REQUIRE(out.step.status == iobench::Status::kOk);
  const std::vector<std::string> expected = {
      "test-dir.0-0",
      "test-dir.0-0/mdtest_tree.0.0",
      "test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.1",
      "test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.1/dir.mdtest.0.1",
      "test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.1/file.mdtest.0.1",
      "test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.2",
      "test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.2/dir.mdtest.0.2",
      "test-dir.0-0/mdtest_tree.0.0/mdtest_tree.0.2/file.mdtest.0.2",
      "test-dir.0-0/mdtest_tree.1.0",
      "test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.1",
      "test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.1/dir.mdtest.1.1",
      "test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.1/file.mdtest.1.1",
      "test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.2",
      "test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.2/dir.mdtest.1.2",
      "test-dir.0-0/mdtest_tree.1.0/mdtest_tree.1.2/file.mdtest.1.2",
  };
  CHECK(out.tree == expected);
}

// Listed from `mpirun -np 2 mdtest -d t -I 2 -u -N 1 -F -C`: with -u and a shift, rank r creates
// its files in rank r+1's tree (the stat, read and remove phases then look one tree further on,
// so no rank ever touches its own files).
TEST_CASE("mdtest unique trees with shift 1 put each rank's files in the next rank's tree",
          "[mdtest][tree]") {
  TempDir dir("mdtest_tree_shift");
  const auto out = run_mdtest(dir.path(),
                              {{"ranks", "2"},
                               {"items_per_dir", "2"},
                               {"unique_dir", "true"},
                               {"shift", "1"},
                               {"files_only", "true"},
                               {"phases", "create"}},
                              true);
  REQUIRE(out.step.status == iobench::Status::kOk);
  const std::vector<std::string> expected = {
      "test-dir.0-0",
      "test-dir.0-0/mdtest_tree.0.0",
      "test-dir.0-0/mdtest_tree.0.0/file.mdtest.1.0",
      "test-dir.0-0/mdtest_tree.0.0/file.mdtest.1.1",
      "test-dir.0-0/mdtest_tree.1.0",
      "test-dir.0-0/mdtest_tree.1.0/file.mdtest.0.0",
      "test-dir.0-0/mdtest_tree.1.0/file.mdtest.0.1",
  };
  CHECK(out.tree == expected);
}
