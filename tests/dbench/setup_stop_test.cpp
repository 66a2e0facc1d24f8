// dbench's untimed set-up sees a stop request: a worker built after one does nothing, however
// many clients and paths it was asked to prepare, and the loadfile's parse ends at its next chunk.

#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <iobench/testing.hpp>
#include <memory>
#include <stop_token>
#include <vector>

#include "plugins/dbench/loadfile_cache.hpp"
#include "plugins/dbench/loadfile_parser.hpp"
#include "tests/support/test_support.hpp"

namespace {

struct StopScope {
  StopScope() { iobench::request_stop(); }
  ~StopScope() { iobench::clear_stop_request(); }
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;
};

}  // namespace

TEST_CASE("a stop request during dbench's set-up leaves a worker that does nothing", "[dbench]") {
  iobench::test::TempDir files("dbstop");
  const auto lf = files.path() / "load.txt";
  {
    std::ofstream out(lf);
    out << "Mkdir \"\\clients\" NT_STATUS_OK\nMkdir \"\\clients\\client1\" NT_STATUS_OK\n";
    for (int i = 0; i < 300; ++i) {
      out << "NTCreateX \"\\clients\\client1\\f" << i << "\" 0x40 0x5 1 NT_STATUS_OK\n"
          << "Close 1 NT_STATUS_OK\n";
    }
  }
  const iobench::Registry registry = iobench::test::make_full_registry();
  const iobench::WorkloadInfo& info = registry.workload("dbench");
  const iobench::Params params = iobench::Params::validate(
      info.params, {{"loadfile", lf.string()}, {"run_once", "true"}, {"clients_per_process", "8"}},
      "dbench");
  iobench::test::TempDir target("dbstop-target");
  const std::vector<std::filesystem::path> paths{target.path()};
  const auto engine = iobench::make_psync_engine();
  auto workload = info.factory(iobench::WorkloadSetup{params, paths, *engine});
  const iobench::OwnedConfinedDir run_dir = iobench::test::open_confined(target.path());
  std::vector<iobench::Target> targets(1);
  targets[0].user_path = target.path();
  targets[0].run_dir = run_dir;
  const auto phases = workload->phases();
  iobench::testing::WorkerHarness harness(phases[0], targets, *engine);
  harness.start_measuring();
  iobench::WorkerContext& ctx = harness.context();
  std::unique_ptr<iobench::PhaseWorker> worker;
  {
    const StopScope stop;
    worker = workload->make_worker(0, ctx);
  }
  REQUIRE(worker);
  // The phase itself would run (its state says measure): only the set-up's check stops it.
  worker->run(ctx);
  std::uint64_t recorded = 0;
  for (const auto& s : harness.ops()) recorded += s.ops;
  CHECK(recorded == 0);
  CHECK(target.entries().empty());
  // Without a stop request the same worker replays the file.
  worker = workload->make_worker(0, ctx);
  worker->run(ctx);
  for (const auto& s : harness.ops()) recorded += s.ops;
  CHECK(recorded == 8 * (2 + 2 * 300));
}

TEST_CASE("a stop request cuts a loadfile's parse short, and the cut parse is not cached",
          "[dbench]") {
  // client.txt is 26 MB, and old enough (times more than 2 s back) for the cache to keep it.
  const std::filesystem::path client = "/usr/share/dbench/client.txt";
  if (!std::filesystem::exists(client)) {
    WARN("no " << client << ": skipped");
    return;
  }
  const std::size_t max_bytes = std::size_t{1} << 30;
  iobench::plugins::dbench::ParseOptions stopping;
  stopping.file_name = "client.txt";
  int checks = 0;
  stopping.stop_requested = [&checks] { return ++checks > 3; };  // after 3 chunks of 64 KiB
  CHECK_THROWS_MATCHES(
      iobench::plugins::dbench::cached_loadfile(client.string(), max_bytes, stopping),
      iobench::InterruptedError,
      Catch::Message("the parse of client.txt was interrupted by a stop request"));
  CHECK(checks == 4);
  // The same file and options: a full parse, not the first three chunks' (stop_requested is
  // not part of the cache's key).
  stopping.stop_requested = {};
  const auto full = iobench::plugins::dbench::cached_loadfile(client.string(), max_bytes, stopping);
  const auto direct = iobench::plugins::dbench::parse_loadfile_file(client, max_bytes, stopping,
                                                                    /*keep_code=*/false);
  CHECK(full->stats.text_lines == direct.stats.text_lines);
  CHECK(full->stats.text_lines > 400'000);
}

TEST_CASE("dbench's factory stops its loadfile's parse at a run's stop request", "[dbench]") {
  // A loadfile written just now (never cached) whose first line does not parse: a factory
  // that parsed it would throw ConfigError; one that sees the stop first never reads it.
  iobench::test::TempDir files("dbstop-parse");
  const auto lf = files.path() / "bad.txt";
  {
    std::ofstream out(lf);
    out << "NoSuchOp \"\\clients\\client1\" NT_STATUS_OK\n";
  }
  iobench::test::TempDir target("dbstop-parse-target");
  const iobench::Registry registry = iobench::test::make_full_registry();
  std::stop_source source;
  iobench::RunOptions options;
  options.stop_token = source.get_token();
  iobench::Runner runner(registry, options);
  const std::vector<iobench::Step> steps{iobench::Step{
      .workload = "dbench", .params = {{"loadfile", lf.string()}}, .targets = {target.path()}}};
  REQUIRE_THROWS_AS(runner.validate(steps), iobench::ConfigError);  // without a stop
  source.request_stop();
  CHECK_NOTHROW(runner.validate(steps));
  const iobench::RunResult run = runner.run(steps);
  CHECK(run.status == iobench::Status::kInterrupted);
  CHECK(run.steps.empty());
  CHECK(target.entries().empty());
}
