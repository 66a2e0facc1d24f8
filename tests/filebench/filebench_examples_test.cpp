// iobench's own example personalities (examples/filebench/videoserver.f, oltp.f, filemicro_*.f) run
// end to end at their laptop sizes through the Runner: op counts, bytes and the files they leave
// on disk checked exactly where the file's finishon* flowop fixes them, bounded where the run's
// length does.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/engine.hpp>
#include <string>

#include "tests/filebench/filebench_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
using filebench_test::attribute;
using filebench_test::op;
using filebench_test::Run;

namespace {

const fs::path kExampleDir = fs::path(IOBENCH_SOURCE_DIR) / "examples" / "filebench";
constexpr std::uint64_t kMiB = 1 << 20;

Run run_example_file(const iobench::test::TempDir& target, const std::string& name,
                     const std::string& seconds = "30s") {
  return filebench_test::run_filebench(target, kExampleDir / (name + ".f"), seconds, 7);
}

}  // namespace

TEST_CASE("example filemicro_create appends 32 MiB in 1 MiB blocks") {
  const iobench::test::TempDir target("fbxcreate");
  const Run run = run_example_file(target, "filemicro_create");
  CHECK(op(run, "append").ops == 32);
  CHECK(op(run, "enough").ops == 32);  // the 32nd check after the 32nd append ends it
  CHECK(fs::file_size(run.run_dir / "growing") == 32 * kMiB);
}

TEST_CASE("example filemicro_createfiles creates 800 files beside the preallocated half") {
  const iobench::test::TempDir target("fbxcfiles");
  const Run run = run_example_file(target, "filemicro_createfiles");
  CHECK(op(run, "createfile1").ops == 800);
  CHECK(op(run, "fill").bytes == 800 * 1024);
  const auto pre =
      static_cast<std::uint64_t>(attribute(run, "fileset.newfiles.preallocated_files"));
  const filebench_test::Tree files = filebench_test::tree(run.run_dir / "newfiles");
  CHECK(files.files == pre + 800);
  CHECK(files.bytes == (pre + 800) * 1024);
}

TEST_CASE("example filemicro_createrand appends past 32 MiB with an fsync every ten appends") {
  const iobench::test::TempDir target("fbxcrand");
  const Run run = run_example_file(target, "filemicro_createrand");
  const auto& append = op(run, "append");
  CHECK(append.ops == 10 * op(run, "sync").ops);
  CHECK(append.bytes > 32 * kMiB);
  CHECK(append.bytes <= 32 * kMiB + 10 * kMiB);  // the last pass: ten appends below 1 MiB
  CHECK(fs::file_size(run.run_dir / "growing") == append.bytes);
}

TEST_CASE("example filemicro_delete deletes 1000 of its 2000 files over four threads") {
  const iobench::test::TempDir target("fbxdelete");
  const Run run = run_example_file(target, "filemicro_delete");
  const std::uint64_t deletes = op(run, "delete").ops;
  // The threads check the shared count after each delete: up to 3 more may be under way.
  CHECK(deletes >= 1000);
  CHECK(deletes <= 1003);
  CHECK(filebench_test::tree(run.run_dir / "oldfiles").files == 2000 - deletes);
}

TEST_CASE("examples filemicro_rread and filemicro_rwrite stop just past 8 MiB of 2 KiB ops") {
  for (const std::string name : {"rread", "rwrite"}) {
    const iobench::test::TempDir target("fbxr" + name);
    const Run run = run_example_file(target, "filemicro_" + name);
    const auto& io = op(run, name == "rread" ? "randread" : "randwrite");
    // finishonbytes ends the run once more than 8 MiB moved: 4096 ops are exactly 8 MiB.
    CHECK(io.ops == 4097);
    CHECK(io.bytes == 4097 * 2048);
    CHECK(fs::file_size(run.run_dir / "bigfile") == 32 * kMiB);
  }
}

TEST_CASE("examples filemicro_rwritedsync and filemicro_rwritefsync stop at their counts") {
  const iobench::test::TempDir dsync_target("fbxdsync");
  const Run dsync = run_example_file(dsync_target, "filemicro_rwritedsync");
  CHECK(op(dsync, "syncwrite").ops == 256);
  CHECK(op(dsync, "syncwrite").bytes == 256 * 2048);
  const iobench::test::TempDir fsync_target("fbxfsync");
  const Run fsync = run_example_file(fsync_target, "filemicro_rwritefsync");
  CHECK(op(fsync, "sync").ops == 4);
  CHECK(op(fsync, "randwrite").ops == 4 * 512);
  CHECK(fs::file_size(fsync.run_dir / "bigfile") == 32 * kMiB);
}

TEST_CASE("examples filemicro_seqwrite, seqwriterand and writefsync grow their file exactly") {
  const iobench::test::TempDir seq_target("fbxseqw");
  const Run seq = run_example_file(seq_target, "filemicro_seqwrite");
  CHECK(op(seq, "seqwrite").ops == 32);
  CHECK(fs::file_size(seq.run_dir / "bigfile") == 32 * kMiB);
  const iobench::test::TempDir rand_target("fbxseqr");
  const Run rand = run_example_file(rand_target, "filemicro_seqwriterand");
  CHECK(op(rand, "randappend").ops == 4096);
  CHECK(op(rand, "randappend").bytes < 4096 * 8192);
  CHECK(fs::file_size(rand.run_dir / "bigfile") == op(rand, "randappend").bytes);
  const iobench::test::TempDir wf_target("fbxwfs");
  const Run wf = run_example_file(wf_target, "filemicro_writefsync");
  CHECK(op(wf, "append").ops == 8 * 256);
  CHECK(op(wf, "sync").ops == 8);
  CHECK(fs::file_size(wf.run_dir / "bigfile") == 16 * kMiB);
}

TEST_CASE("examples filemicro_seqread and filemicro_statfile leave their files as they were") {
  const iobench::test::TempDir read_target("fbxsread");
  const Run read = run_example_file(read_target, "filemicro_seqread", "1s");
  CHECK(op(read, "seqread").ops > 0);
  CHECK(op(read, "seqread").bytes % kMiB == 0);  // 1 MiB blocks of a 64 MiB file
  CHECK(fs::file_size(read.run_dir / "largefile") == 64 * kMiB);
  const iobench::test::TempDir stat_target("fbxstat");
  const Run stat = run_example_file(stat_target, "filemicro_statfile", "1s");
  CHECK(op(stat, "stat").ops > 0);
  const filebench_test::Tree files = filebench_test::tree(stat.run_dir / "statfiles");
  CHECK(files.files == 1000);
  CHECK(files.bytes == 1000 * 4096);
}

TEST_CASE("example videoserver streams at most its bandwidth and replaces passive videos") {
  const iobench::test::TempDir target("fbxvideo");
  const Run run = run_example_file(target, "videoserver", "1s");
  const double wall = static_cast<double>(run.step.phases.front().wall_ns) / 1e9;
  const std::uint64_t streamed = op(run, "streamread").bytes;
  CHECK(streamed > 0);
  // 32 events a second, a MiB each, shared by 4 readers; each reader's first block is free and
  // its last may be owed.
  CHECK(static_cast<double>(streamed) <= 32 * wall * kMiB + 4 * 2 * 256 * 1024);
  const std::uint64_t made = op(run, "newvid").ops;
  CHECK(made >= 1);
  CHECK(op(run, "writevid").bytes == op(run, "writevid").ops * 4 * kMiB);
  const auto pre =
      static_cast<std::uint64_t>(attribute(run, "fileset.passivevids.preallocated_files"));
  CHECK(filebench_test::tree(run.run_dir / "passivevids").files ==
        pre + made - op(run, "dropvid").ops);
  CHECK(filebench_test::tree(run.run_dir / "activevids").files == 8);
}

TEST_CASE("example oltp writes through aiowrite at the pace its shadows' semaphores allow") {
  const auto uring = iobench::make_io_uring_engine(iobench::EngineSpec{.name = "io_uring"});
  if (const std::string why = uring->unavailable_reason(); !why.empty()) {
    WARN("skipped: oltp's aiowrite needs io_uring, not available here: " << why);
    return;
  }
  const iobench::test::TempDir target("fbxoltp");
  const Run run = run_example_file(target, "oltp", "2s");
  const auto& log = op(run, "lg-write");
  const auto& data = op(run, "dbwrite-a");
  CHECK(data.ops > 0);
  CHECK(log.bytes == log.ops * 256 * 1024);
  CHECK(data.bytes == data.ops * 2048);
  CHECK(op(run, "shadowread").ops > 0);
  // Each lg-block pass takes 320 posts of the one log writer's semaphore; each shadow-post-dbwr
  // posts 1 to all 4 writers' semaphores, and a dbwr-block pass takes 100 of its own.
  CHECK(op(run, "lg-block").ops * 320 <= op(run, "shadow-post-lg").ops);
  CHECK(op(run, "dbwr-block").ops * 100 <= 4 * op(run, "shadow-post-dbwr").ops);
  // aiowait follows each writer's semblock: at most one per pass, the last maybe cut by the end.
  CHECK(op(run, "dbwr-aiowait").ops <= op(run, "dbwr-block").ops);
  CHECK(op(run, "dbwr-aiowait").ops + 4 >= op(run, "dbwr-block").ops);
  // Random writes inside the files (workingset 2m of 4m datafiles): no file grew or shrank.
  const filebench_test::Tree data_files = filebench_test::tree(run.run_dir / "datafiles");
  CHECK(data_files.files == 16);
  CHECK(data_files.bytes == 16 * 4 * kMiB);
  CHECK(filebench_test::tree(run.run_dir / "logfile").bytes == 4 * kMiB);
  CHECK(run.step.phases.front().counters[0] == 0);  // every thread had a file
}
