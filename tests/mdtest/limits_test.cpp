// mdtest runs that a limit, the stonewall (-W) or a full file system ends early: what each
// phase did, what the later phases act on and what is left.

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::ScopedTmpfs;
using iobench::test::TempDir;
using iobench::test::mdtest::list_tree;
using iobench::test::mdtest::MdtestOutcome;
using iobench::test::mdtest::phase_ops;
using iobench::test::mdtest::run_mdtest;

namespace {

bool has_warning(const StepResult& step, const std::string& text) {
  for (const std::string& w : step.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

const PhaseResult& phase(const StepResult& step, const std::string& name) {
  for (const PhaseResult& p : step.phases) {
    if (p.name == name) return p;
  }
  throw std::runtime_error("no phase " + name);
}

const AttributeValue* attribute(const StepResult& step, const std::string& key) {
  for (const auto& [name, value] : step.attributes) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::uint64_t counter(const PhaseResult& p, std::size_t worker, std::size_t id) {
  return p.workers.at(worker).counters.at(id);
}

}  // namespace

TEST_CASE("mdtest rename and removal cut short by an op limit are completed untimed",
          "[mdtest][limits]") {
  const std::uint64_t limit = GENERATE(2u, 5u);
  TempDir dir("mdtest_rm_limit");
  // 3 tree directories x 4 = 12 directories and 12 files, kept for the removal run below.
  const std::map<std::string, std::string> shape{
      {"items_per_dir", "4"}, {"branch", "2"}, {"depth", "1"}};
  auto create = shape;
  create["phases"] = "create";
  const auto created = run_mdtest(dir.path(), create, true);
  REQUIRE(created.step.status == Status::kOk);
  REQUIRE(created.left_behind.size() == 1);
  const std::string kept = (dir.path() / "target" / created.left_behind[0]).string();
  CHECK(created.tree.size() == 28);  // 12 + 12 + 3 tree directories + test-dir

  TempDir dir2("mdtest_rm_limit2");
  auto remove = shape;
  remove["phases"] = "rename,remove";
  remove["tree_dir"] = kept;
  const auto removed = run_mdtest(dir2.path(), remove, false, limit);
  INFO(removed.step.message);
  // Without the untimed removal of the rest the tree removal failed ("Directory not empty"),
  // and without the rename's item set aside put back the directory removal failed (ENOENT).
  REQUIRE(removed.step.status == Status::kOk);
  CHECK(phase_ops(removed.step, "Directory rename") == limit);
  CHECK(has_warning(removed.step,
                    fmt::format("'Directory rename' renamed {} of its 12 items", limit)));
  CHECK(phase_ops(removed.step, "Directory removal") == limit);
  CHECK(phase_ops(removed.step, "File removal") == limit);
  CHECK(phase_ops(removed.step, "Tree removal") == std::min<std::uint64_t>(limit, 3));
  CHECK(has_warning(removed.step, fmt::format("'File removal' removed {} of its 12 items", limit)));
  CHECK(has_warning(removed.step, fmt::format("the {} left were removed untimed", 12 - limit)));
  CHECK(has_warning(removed.step, "'Tree removal' removed 2 of its 3 items") == (limit == 2));
  CHECK(list_tree(kept).empty());  // test-dir.0-0 too, as after a whole removal
}

TEST_CASE("mdtest stonewall ends creation on every worker then wears out to the most made",
          "[mdtest][limits]") {
  const std::string mode = GENERATE(std::string("threads"), std::string("processes"));
  // A 20 ms stonewall falls long before 2 ranks have made 20000 files each; a run whose
  // creation finished first, or whose workers made nothing by then (a machine too busy to run
  // them), is run again (at most 3 times).
  MdtestOutcome out;
  for (int attempt = 0; attempt < 3; ++attempt) {
    TempDir dir("mdtest_stonewall");
    out = run_mdtest(dir.path(), {{"ranks", "2"},
                                  {"worker_mode", mode},
                                  {"items", "20000"},
                                  {"files_only", "true"},
                                  {"shift", "1"},
                                  {"stonewall", "20ms"}});
    INFO(out.step.message);
    REQUIRE(out.step.status == Status::kOk);
    CHECK(out.left_behind.empty());
    const std::uint64_t ops = phase_ops(out.step, "File creation");
    if (ops > 0 && ops < 40000) break;
  }
  const PhaseResult& create = phase(out.step, "File creation");
  REQUIRE(create.ops.at(0).ops < 40000);
  REQUIRE(create.workers.size() == 2);
  // The runner's own wear-out (--wear-out's code) ran, with this target.
  const AttributeValue* wear_out = attribute(out.step, "wear_out_ops.File creation");
  REQUIRE(wear_out != nullptr);
  const auto target = static_cast<std::uint64_t>(std::get<std::int64_t>(*wear_out));
  std::uint64_t made = 0;
  std::uint64_t at_stonewall = 0;
  std::uint64_t most_at_stonewall = 0;
  std::string per_worker_at;
  std::string per_worker_made;
  for (std::size_t w = 0; w < 2; ++w) {
    const std::uint64_t done = counter(create, w, 0);
    const std::uint64_t at = counter(create, w, 1);
    // The wear-out: every worker ends exactly at the most any had made at the stonewall (each
    // waited at its next item while the target was taken, none passed it).
    CHECK(done == target);
    CHECK(at <= done);
    made += done;
    at_stonewall += at;
    most_at_stonewall = std::max(most_at_stonewall, at);
    per_worker_at += (w == 0 ? "" : ", ") + std::to_string(at);
    per_worker_made += (w == 0 ? "" : ", ") + std::to_string(done);
  }
  CHECK(most_at_stonewall == target);  // the target: the most made at the stonewall
  CHECK(phase_ops(out.step, "File creation") == made);
  // The later phases act on what each rank made (the shift reads the other rank's).
  CHECK(phase_ops(out.step, "File stat") == made);
  CHECK(phase_ops(out.step, "File read") == made);
  CHECK(phase_ops(out.step, "File removal") == made);
  CHECK(phase_ops(out.step, "Tree removal") == 1);
  const AttributeValue* items = attribute(out.step, "stonewall_items.File creation");
  const AttributeValue* summary = attribute(out.step, "stonewall.File creation");
  const AttributeValue* seconds = attribute(out.step, "stonewall_s.File creation");
  REQUIRE(items != nullptr);
  REQUIRE(summary != nullptr);
  REQUIRE(seconds != nullptr);
  CHECK(std::get<std::int64_t>(*items) == static_cast<std::int64_t>(at_stonewall));
  const auto& text = std::get<std::string>(*summary);
  CHECK_THAT(text, Catch::Contains("items per worker at the stonewall: " + per_worker_at));
  CHECK_THAT(text, Catch::Contains("after the wear-out: " + per_worker_made));
  CHECK(std::get<double>(*seconds) > 0);
}

TEST_CASE("mdtest creation on a full file system fails with the count made and cleans up",
          "[mdtest][limits]") {
  // 40 inodes: the target, the run directory, test-dir.0-0 and mdtest_tree.0 take 4 of the
  // free ones, so the creation of 100 files meets ENOSPC after the rest.
  ScopedTmpfs small("1m,nr_inodes=40");
  if (!small.mounted()) {
    WARN("skipped: mounting a tmpfs needs root and mount(8) (refused here)");
    return;
  }
  struct statvfs before {};
  REQUIRE(::statvfs(small.path().c_str(), &before) == 0);
  const auto out = run_mdtest(small.path(), {{"items", "100"}, {"files_only", "true"}}, true);
  INFO(out.step.message);
  CHECK(out.step.status == Status::kFailed);
  CHECK_THAT(out.step.message, Catch::Contains("No space left on device"));
  const PhaseResult& create = phase(out.step, "File creation");
  CHECK(create.status == Status::kFailed);
  // Every free inode but the 4 the directories take became a file.
  const std::uint64_t made = before.f_ffree - 4;
  CHECK(phase_ops(out.step, "File creation") == made);
  CHECK(counter(create, 0, 0) == made);
  CHECK_THAT(out.step.message, Catch::Contains(fmt::format("after {} of 100 items, create", made)));
  // The run removed what it created: only its (kept) run directory is left, empty.
  REQUIRE(out.left_behind.size() == 1);
  CHECK(out.tree.empty());

  // The CLI: exit 1 with the errno text, and nothing of the run left in the target.
  const auto cli =
      test::run_cli({"run", "mdtest", "-d", small.path().string(), "items=100", "files_only=true"});
  CHECK(cli.exit_code == 1);
  CHECK_THAT(cli.out + cli.err, Catch::Contains("No space left on device"));
  CHECK(TempDir::list(small.path()) == std::vector<std::string>{"target"});
}
