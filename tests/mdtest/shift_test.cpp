// mdtest's rank shift (-N): every worker of a stat, read or removal acts on another rank's items
// only, found by walking the tree: which rank's names a worker needs (stat, read) or removes.

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/testing.hpp>
#include <map>
#include <set>
#include <string>

#include "plugins/mdtest/mdtest_workload.hpp"
#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::TempDir;
using iobench::test::mdtest::run_mdtest;
namespace fs = std::filesystem;
namespace md = iobench::plugins::mdtest;

namespace {

constexpr std::uint64_t kRanks = 4;

// The rank in an item name "file.mdtest.<rank>.<n>", or -1.
int rank_of(const std::string& name) {
  const std::string prefix = "file.mdtest.";
  if (name.rfind(prefix, 0) != 0) return -1;
  return std::stoi(name.substr(prefix.size(), name.find('.', prefix.size()) - prefix.size()));
}

// Item names below `root`, counted by the rank they name.
std::map<int, int> names_by_rank(const fs::path& root) {
  std::map<int, int> counts;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const int rank = rank_of(e.path().filename().string());
    if (rank >= 0) ++counts[rank];
  }
  return counts;
}

// Moves every item not of rank `keep` from below `root` to `stash` (flat, names are unique),
// recording the moves for unstash().
void stash_others(const fs::path& root, const fs::path& stash, int keep,
                  std::vector<std::pair<fs::path, fs::path>>& moved) {
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const int rank = rank_of(e.path().filename().string());
    if (rank >= 0 && rank != keep) moved.emplace_back(e.path(), stash / e.path().filename());
  }
  for (const auto& [from, to] : moved) fs::rename(from, to);
}

void unstash(std::vector<std::pair<fs::path, fs::path>>& moved) {
  for (const auto& [from, to] : moved) fs::rename(to, from);
  moved.clear();
}

// Runs worker `worker` of phase `phase` to its end; false if it failed (an item it looked for
// is not there).
bool run_worker(md::MdtestWorkload& workload, std::size_t phase, std::size_t worker,
                std::span<const Target> targets, const Engine& engine) {
  testing::WorkerHarness harness(workload.phases().at(phase), targets, engine,
                                 {.phase_index = phase,
                                  .worker_index = worker,
                                  .worker_count = kRanks,
                                  .seed = 1,
                                  .ops_limit = 0});
  try {
    auto w = workload.make_worker(phase, harness.context());
    harness.run(*w);
  } catch (const IoError&) {
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("mdtest shift makes every worker stat read and remove another rank's items only",
          "[mdtest][shift]") {
  const bool unique = GENERATE(false, true);
  TempDir dir("mdtest_shift_walk");
  std::map<std::string, std::string> params{{"ranks", std::to_string(kRanks)},
                                            {"worker_mode", "threads"},
                                            {"items", "3"},
                                            {"files_only", "true"},
                                            {"write_bytes", "8"},
                                            {"unique_dir", unique ? "true" : "false"},
                                            {"shift", "1"}};
  // Created with the shift too: with unique_dir, rank r makes its items in tree r+N.
  auto create = params;
  create["phases"] = "create";
  const auto created = run_mdtest(dir.path(), create, true);
  REQUIRE(created.step.status == Status::kOk);
  REQUIRE(created.left_behind.size() == 1);
  const fs::path kept = dir.path() / "target" / created.left_behind[0];
  REQUIRE(names_by_rank(kept) == std::map<int, int>{{0, 3}, {1, 3}, {2, 3}, {3, 3}});

  params["read_bytes"] = "8";
  params["phases"] = "stat,read,remove";
  params["tree_dir"] = kept.string();
  md::MdtestWorkload workload(
      md::make_config(Params::validate(md::param_specs(), params, "mdtest"), 1));
  const std::vector<PhaseSpec> phases = workload.phases();
  REQUIRE(phases.at(0).name == "File stat");
  REQUIRE(phases.at(1).name == "File read");
  REQUIRE(phases.at(2).name == "File removal");
  // The kept run directory as the target's run directory: the workers find test-dir.0-0 there.
  const OwnedConfinedDir run_dir = test::open_confined(kept);
  const Target target{.user_path = kept, .run_dir = run_dir.view(), .is_existing_file = false};
  const std::span<const Target> targets(&target, 1);
  const auto engine = make_psync_engine();
  TempDir stash("mdtest_shift_stash");

  // Stat and read: the ranks whose items alone let worker r finish (mdtest: r+N, r+2N).
  for (std::size_t phase : {std::size_t{0}, std::size_t{1}}) {
    for (std::size_t r = 0; r < kRanks; ++r) {
      std::set<int> needs;
      for (int only = 0; only < static_cast<int>(kRanks); ++only) {
        std::vector<std::pair<fs::path, fs::path>> moved;
        stash_others(kept, stash.path(), only, moved);
        if (run_worker(workload, phase, r, targets, *engine)) needs.insert(only);
        unstash(moved);
      }
      INFO(phases[phase].name << " worker " << r);
      const int expected = static_cast<int>((r + (phase + 1)) % kRanks);
      CHECK(needs == std::set<int>{expected});
      CHECK(needs.count(static_cast<int>(r)) == 0);
    }
  }
  // Removal: the names worker r removes are rank r+3N's, never its own.
  std::map<int, int> left{{0, 3}, {1, 3}, {2, 3}, {3, 3}};
  for (std::size_t r = 0; r < kRanks; ++r) {
    INFO("File removal worker " << r);
    REQUIRE(run_worker(workload, 2, r, targets, *engine));
    const int removed = static_cast<int>((r + 3) % kRanks);
    CHECK(removed != static_cast<int>(r));
    left.erase(removed);
    CHECK(names_by_rank(kept) == left);
  }
}
