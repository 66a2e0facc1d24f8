// The disk workload through every engine and depth: bytes exact (files checked by verify), the
// null engine moving nothing, mixed reads and writes in their ratio, refused combinations.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iobench/data_pattern.hpp>
#include <iobench/error.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <sstream>

#include "plugins/disk/disk_formatter.hpp"
#include "plugins/disk/verify_pattern.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

RunResult run_disk(const Registry& registry, std::map<std::string, std::string> params,
                   const std::filesystem::path& target, std::uint64_t ops_limit = 0,
                   bool keep = false) {
  test::CapturingReporter reporter;
  return Runner(registry, RunOptions{.keep_files = keep})
      .run(std::vector<Step>{Step{.workload = "disk",
                                  .params = std::move(params),
                                  .targets = {target},
                                  .ops_limit = ops_limit}},
           reporter);
}

// True if `dir` takes O_DIRECT opens (tmpfs before 6.6 and some others refuse them).
bool supports_direct(const std::filesystem::path& dir) {
  const auto probe = dir / ".direct-probe";
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_DIRECT, 0600);
  if (fd >= 0) ::close(fd);
  std::filesystem::remove(probe);
  return fd >= 0;
}

}  // namespace

TEST_CASE("every engine writes and reads back exactly the blocks asked, at each depth",
          "[disk][engine]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-engines");
  const bool direct_ok = supports_direct(dir.path());
  struct Case {
    std::string engine;
    std::string mode;
    std::vector<std::string> depths;
  };
  const std::vector<Case> cases{
      {"psync", "buffered", {"1"}},
      {"psync", "direct", {"1"}},
      {"pvsync2", "buffered", {"1"}},
      {"mmap", "buffered", {"1"}},
      {"io_uring", "buffered", {"1", "8"}},
      {"io_uring", "direct", {"1", "4", "32"}},
      {"io_uring:fixedbufs,registerfiles", "direct", {"16"}},
      {"libaio", "direct", {"1", "4", "32"}},
  };
  for (const Case& c : cases) {
    if (c.mode == "direct" && !direct_ok) {
      WARN("skipping O_DIRECT cases: " << dir.path() << " refuses O_DIRECT");
      continue;
    }
    if (const auto why = registry.create_engine(c.engine)->unavailable_reason(); !why.empty()) {
      WARN("skipping " << c.engine << ": " << why);
      continue;
    }
    for (const std::string& depth : c.depths) {
      for (const char* seek : {"sequential", "random"}) {
        INFO(c.engine << " mode=" << c.mode << " iodepth=" << depth << " seek=" << seek);
        const RunResult run = run_disk(registry,
                                       {{"engine", c.engine},
                                        {"mode", c.mode},
                                        {"iodepth", depth},
                                        {"seek", seek},
                                        {"bs", "4k"},
                                        {"blocks", "300"},
                                        {"verify", "true"}},
                                       dir.path(), 0, true);
        REQUIRE(run.status == Status::kOk);
        const StepResult& step = run.steps.at(0);
        CHECK(step.engine == EngineSpec::parse(c.engine).to_string());
        REQUIRE(step.phases.size() == 2);
        CHECK(step.phases[0].name == "write");
        CHECK(step.phases[0].ops[0].ops == 300);
        CHECK(step.phases[0].ops[0].bytes == 300 * 4096);
        CHECK(step.phases[1].name == "verify");
        CHECK(step.phases[1].ops[0].ops == 300);
        CHECK(step.phases[1].status == Status::kOk);
        // The file holds exactly the blocks written.
        std::vector<std::filesystem::path> runs;
        for (const auto& e : std::filesystem::directory_iterator(dir.path())) runs.push_back(e);
        REQUIRE(runs.size() == 1);
        CHECK(std::filesystem::file_size(runs[0] / "bigfile") == 300 * 4096);
        std::filesystem::remove_all(runs[0]);
      }
    }
  }
}

TEST_CASE("the verify stamp tells misplaced, lost and corrupted blocks apart", "[disk][engine]") {
  using plugins::disk::VerifyFailure;
  using plugins::disk::VerifyPattern;
  constexpr std::size_t kBs = 4096;
  const DataPattern compressible = DataPattern::parse("compressible:50", "data");
  VerifyPattern pattern(42, 0, kBs, compressible);
  std::vector<std::byte> block(kBs);
  pattern.fill(block, 8 * kBs, 2);
  CHECK(VerifyPattern::generation_of(block) == 2);
  CHECK(pattern.check(block, 8 * kBs, 2).failure == VerifyFailure::kNone);
  CHECK(pattern.check(block, 8 * kBs, VerifyPattern::kAnyGeneration).failure ==
        VerifyFailure::kNone);
  // The stamp is the first 40 bytes; the rest is the data pattern (compressible:50: the second
  // half of each 4 KiB zeros).
  CHECK(std::all_of(block.begin() + kBs / 2, block.end(),
                    [](std::byte b) { return b == std::byte{0}; }));
  // Read at another offset: that offset's block is misplaced here.
  const auto misplaced = pattern.check(block, 3 * kBs, 2);
  CHECK(misplaced.failure == VerifyFailure::kMisplaced);
  CHECK(misplaced.detail == "holds the block of offset 32768 (generation 2)");
  // An older generation of the right offset: a lost write.
  pattern.fill(block, 8 * kBs, 1);
  const auto lost = pattern.check(block, 8 * kBs, 2);
  CHECK(lost.failure == VerifyFailure::kLost);
  CHECK(lost.detail ==
        "holds generation 1, but the last write was generation 2: the device kept an older "
        "version");
  CHECK(pattern.check(std::vector<std::byte>(kBs), 8 * kBs, 2).failure == VerifyFailure::kLost);
  // Another run's block (another seed) is an older version too; another target's misplaced.
  VerifyPattern(43, 0, kBs, compressible).fill(block, 8 * kBs, 2);
  CHECK(pattern.check(block, 8 * kBs, 2).failure == VerifyFailure::kLost);
  VerifyPattern(42, 1, kBs, compressible).fill(block, 8 * kBs, 2);
  CHECK(pattern.check(block, 8 * kBs, 2).failure == VerifyFailure::kMisplaced);
  // One flipped byte anywhere, stamp or data: corrupted, naming the byte.
  for (const std::size_t at : {std::size_t{9}, std::size_t{1000}, kBs - 1}) {
    pattern.fill(block, 8 * kBs, 2);
    block[at] ^= std::byte{0x10};
    const auto corrupted = pattern.check(block, 8 * kBs, 2);
    CHECK(corrupted.failure == VerifyFailure::kCorrupted);
    CHECK_THAT(corrupted.detail, Catch::Contains(fmt::format("at offset {}", 8 * kBs + at)));
  }
}

namespace {

// The one regular file below `dir`.
std::filesystem::path only_file(const std::filesystem::path& dir) {
  std::filesystem::path file;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) file = entry.path();
  }
  return file;
}

std::string read_block(const std::filesystem::path& file, std::uint64_t block) {
  std::ifstream in(file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(block * 4096));
  std::string bytes(4096, '\0');
  in.read(bytes.data(), 4096);
  return bytes;
}

void write_block(const std::filesystem::path& file, std::uint64_t block, const std::string& bytes) {
  std::fstream out(file, std::ios::binary | std::ios::in | std::ios::out);
  out.seekp(static_cast<std::streamoff>(block * 4096));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("verify names lost, misplaced and corrupted blocks by offset and fails the phase",
          "[disk][engine]") {
  const std::map<std::string, std::string> params{
      {"operation", "write"}, {"bs", "4k"}, {"blocks", "64"}, {"verify", "true"}};
  // An earlier write of the same run seed: its blocks are generation 1 (its only pass).
  test::TempDir earlier_dir("disk-verify-earlier");
  test::CapturingReporter reporter;
  auto one_pass = params;
  one_pass["data"] = "compressible:50";
  auto two_passes = one_pass;
  two_passes["iterations"] = "2";
  const RunResult earlier = Runner(test::shared_full_registry(), RunOptions{.keep_files = true})
                                .run(std::vector<Step>{Step{.workload = "disk",
                                                            .params = one_pass,
                                                            .targets = {earlier_dir.path()},
                                                            .seed = 99}},
                                     reporter);
  REQUIRE(earlier.status == Status::kOk);
  const std::string old_block_5 = read_block(only_file(earlier_dir.path()), 5);

  // Two passes (generation 2), then, between the write and verify phases: block 5 back to its
  // generation 1 (a lost write), blocks 10 and 20 swapped (two misplaced writes), one byte of
  // block 30 flipped (corrupted).
  test::TempDir dir("disk-verify-faults");
  bool faulted = false;
  RunOptions options;
  options.on_progress = [&](const ProgressSnapshot& snapshot) {
    if (faulted || snapshot.phase_name != "write" || snapshot.state != ProgressState::kCleanUp) {
      return;
    }
    faulted = true;
    const std::filesystem::path file = only_file(dir.path());
    write_block(file, 5, old_block_5);
    const std::string block_10 = read_block(file, 10);
    write_block(file, 10, read_block(file, 20));
    write_block(file, 20, block_10);
    std::string block_30 = read_block(file, 30);
    block_30[100] = static_cast<char>(block_30[100] ^ 1);
    write_block(file, 30, block_30);
  };
  const RunResult run =
      Runner(test::shared_full_registry(), options)
          .run(std::vector<Step>{Step{
                   .workload = "disk", .params = two_passes, .targets = {dir.path()}, .seed = 99}},
               reporter);
  REQUIRE(faulted);
  const StepResult& step = run.steps.at(0);
  INFO(step.message);
  CHECK(run.status == Status::kFailed);  // exit status 1
  REQUIRE(step.phases.size() == 2);
  CHECK(step.phases[0].status == Status::kOk);
  CHECK(step.phases[1].name == "verify");
  CHECK(step.phases[1].status == Status::kFailed);
  const std::string& message = step.phases[1].message;
  CHECK_THAT(message, Catch::Contains("4 blocks of 4096 bytes read back wrong"));
  CHECK_THAT(message, Catch::Contains("offset 20480: lost write: holds generation 1, but the "
                                      "last write was generation 2"));
  CHECK_THAT(message, Catch::Contains("offset 40960: misplaced write: holds the block of offset "
                                      "81920 (generation 2)"));
  CHECK_THAT(message, Catch::Contains("offset 81920: misplaced write: holds the block of offset "
                                      "40960 (generation 2)"));
  CHECK_THAT(message, Catch::Contains("offset 122880: corrupted: fails its checksum; first byte "
                                      "differing from what was written at offset 122980"));
}

TEST_CASE("the null engine records every op and creates no file", "[disk][engine]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-null");
  const RunResult run = run_disk(registry,
                                 {{"engine", "null"},
                                  {"operation", "read"},
                                  {"seek", "random"},
                                  {"iodepth", "8"},
                                  {"bs", "4k"},
                                  {"size", "1g"},
                                  {"iterations", "2"}},
                                 dir.path(), 0, true);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.ops[0].ops == 2 * 262'144);
  CHECK(phase.ops[0].bytes == 2ULL << 30);
  std::vector<std::filesystem::path> runs;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) runs.push_back(e);
  REQUIRE(runs.size() == 1);
  CHECK(test::TempDir::list(runs[0]).empty());  // a run directory and nothing in it
}

TEST_CASE("rwmix splits ops between reads and writes in its ratio", "[disk][engine]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-mix");
  const RunResult run = run_disk(
      registry,
      {{"engine", "null"}, {"rwmix", "70"}, {"seek", "random"}, {"bs", "4k"}, {"blocks", "100000"}},
      dir.path());
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.name == "mixed");
  REQUIRE(phase.op_names == std::vector<std::string>{"read", "write", "fsync"});
  const std::uint64_t reads = phase.ops[0].ops;
  const std::uint64_t writes = phase.ops[1].ops;
  CHECK(reads + writes == 100'000);
  // Binomial: the standard deviation of the read share is 0.15 %; 1 % is far outside it.
  CHECK(static_cast<double>(reads) / 100'000.0 == Approx(0.70).margin(0.01));
  CHECK(phase.ops[2].ops == 1);  // fsync before close
}

TEST_CASE("mixed reads and writes with verify check every read block", "[disk][engine]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-mixv");
  const RunResult run = run_disk(registry,
                                 {{"rwmix", "50"},
                                  {"seek", "random"},
                                  {"random_order", "zipf:1.1"},
                                  {"bs", "4k"},
                                  {"blocks", "500"},
                                  {"iterations", "4"},
                                  {"verify", "true"}},
                                 dir.path());
  REQUIRE(run.status == Status::kOk);
  REQUIRE(run.steps.at(0).phases.size() == 2);
  const PhaseResult& mixed = run.steps.at(0).phases[0];
  CHECK(mixed.ops[0].ops + mixed.ops[1].ops == 2000);
  CHECK(run.steps.at(0).phases[1].name == "verify");
  CHECK(run.steps.at(0).phases[1].ops[0].ops == 500);
}

TEST_CASE("verify after a write reads back exactly the blocks written, holes left alone",
          "[disk][engine]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-holes");
  // 500 uniform picks of 500 blocks leave about a third of them unwritten (holes of zeros).
  const RunResult run = run_disk(registry,
                                 {{"operation", "write"},
                                  {"seek", "random"},
                                  {"random_order", "uniform"},
                                  {"bs", "4k"},
                                  {"blocks", "500"},
                                  {"verify", "true"}},
                                 dir.path(), 0, true);
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.phases.size() == 2);
  CHECK(step.phases[0].ops[0].ops == 500);  // write
  // The kept file's blocks that hold data are the blocks the verify phase read.
  std::filesystem::path file;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (entry.is_regular_file()) file = entry.path();
  }
  REQUIRE(!file.empty());
  std::ifstream in(file, std::ios::binary);
  std::vector<char> block(4096);
  std::uint64_t written = 0;
  while (in.read(block.data(), static_cast<std::streamsize>(block.size()))) {
    written += std::any_of(block.begin(), block.end(), [](char c) { return c != 0; }) ? 1 : 0;
  }
  CHECK(written < 400);
  CHECK(step.phases[1].ops[0].ops == written);
  CHECK(step.phases[1].ops[0].errors == 0);
}

TEST_CASE("verify after a paced write cut by its time limit reads only what was issued",
          "[disk][engine]") {
  test::TempDir dir("disk-paced");
  test::CapturingReporter reporter;
  // At 50 ops/s the write phase ends waiting for its next op's time: that request was built but
  // never issued, so it wrote nothing and verify must not read it.
  const RunResult run =
      Runner(test::shared_full_registry(), RunOptions{})
          .run(std::vector<Step>{Step{.workload = "disk",
                                      .params = {{"operation", "write"},
                                                 {"bs", "4k"},
                                                 {"size", "64m"},
                                                 {"rate_iops", "50"},
                                                 {"verify", "true"}},
                                      .targets = {dir.path()},
                                      .time_limit = std::chrono::milliseconds(300)}},
               reporter);
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  const std::uint64_t written = step.phases.at(0).ops[0].ops;
  CHECK(written > 0);
  CHECK(written < 30);
  CHECK(step.phases.at(1).ops[0].ops == written);
}

TEST_CASE("engine and option combinations that cannot work are refused before any I/O",
          "[disk][engine]") {
  test::TempDir dir("disk-refuse");
  const std::string d = dir.path().string();
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases{
      {{"run", "disk", "-d", d, "engine=libaio", "iodepth=8"}, "would not be asynchronous"},
      {{"run", "disk", "-d", d, "engine=mmap", "mode=direct"}, "cannot do O_DIRECT"},
      {{"run", "disk", "-d", d, "--engine", "mmap", "mode=direct"}, "cannot do O_DIRECT"},
      {{"run", "disk", "-d", d, "iodepth=8"}, "does one I/O at a time"},
      {{"run", "disk", "-d", d, "engine=io_uring", "iodepth=5000"}, "iodepth"},
      {{"run", "disk", "-d", d, "engine=pvsync2:hipri"}, "need O_DIRECT"},
      {{"run", "disk", "-d", d, "engine=io_uring:turbo"}, "has no option 'turbo'"},
      {{"run", "disk", "-d", d, "engine=uring"}, "unknown engine 'uring'"},
      {{"run", "disk", "-d", d, "mode=mmap", "engine=io_uring"}, "contradicts"},
      {{"run", "disk", "-d", d, "rwmix=70", "operation=write"}, "rwmix"},
      {{"run", "disk", "-d", d, "rate_iops=10", "rate_bytes=1m"}, "rate_iops and rate_bytes"},
      {{"run", "disk", "-d", d, "random_order=zipf:0"}, "theta > 0"},
      {{"run", "disk", "-d", d, "latency_sample=8", "rate_iops=100"},
       "latency_sample=8 with rate_iops=100"},
      {{"run", "disk", "-d", d, "latency_sample=64", "rate_bytes=1m"},
       "latency_sample=64 with rate_bytes=1m"},
      {{"run", "disk", "-d", d, "latency_sample=0"}, "latency_sample"},
      {{"run", "disk", "-d", d, "verify=true", "data=dedupe:25"},
       "verify=true with data=dedupe:25: verify stamps each block's first 40 bytes"},
      {{"run", "disk", "-d", d, "verify=true", "data=compressible:50,dedupe:25"},
       "which makes every block unique"},
      {{"run", "disk", "-d", d, "verify=true", "data=bonnie"}, "verify=true with data=bonnie"},
      {{"run", "disk", "-d", d, "verify=true", "bs=32", "size=32k"},
       "verify=true with bs=32: each block starts with a 40-byte verify stamp"},
      {{"run", "bonnie", "-d", d, "--engine", "io_uring"}, "bonnie++"},
      {{"run", "dbench", "-d", d, "--engine", "libaio"}, "dbench"},
      {{"run", "tiotest", "-d", d, "iodepth=4"}, "does one I/O at a time"},
      {{"run", "tiotest", "-d", d, "engine=libaio", "iodepth=4"}, "would not be asynchronous"},
  };
  for (const Case& c : cases) {
    INFO(fmt::format("{}", fmt::join(c.args, " ")));
    const test::CliResult result = test::run_cli(c.args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(c.expected));
    CHECK(dir.entries().empty());
  }
}

// A phase that records latency parts (slat/clat of an asynchronous engine, service time of an
// open loop) also holds ops timed without them, like the closing fsync: every part must still
// hold one sample per op, or the JSON would not read back ("the latency figures contradict").
TEST_CASE("latency parts count every op, the closing fsync too, and read back from JSON",
          "[disk][engine][json]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-parts");
  const std::vector<std::map<std::string, std::string>> cases{
      {{"operation", "write"},
       {"bs", "4k"},
       {"blocks", "64"},
       {"fsync", "true"},
       {"rate_iops", "100000"}},
      {{"operation", "write"},
       {"bs", "4k"},
       {"blocks", "64"},
       {"fsync", "true"},
       {"engine", "io_uring"},
       {"iodepth", "4"}},
  };
  for (const auto& params : cases) {
    std::string shown;
    for (const auto& [key, value] : params) shown += key + "=" + value + " ";
    INFO(shown);
    if (const auto engine = params.find("engine"); engine != params.end()) {
      if (const auto why = registry.create_engine(engine->second)->unavailable_reason();
          !why.empty()) {
        WARN("skipping " << engine->second << ": " << why);
        continue;
      }
    }
    const RunResult run = run_disk(registry, params, dir.path());
    const StepResult& step = run.steps.at(0);
    REQUIRE(step.status == Status::kOk);
    const PhaseResult& phase = step.phases.at(0);
    REQUIRE(phase.latency_parts_kind.any());
    for (std::size_t op = 0; op < phase.op_names.size(); ++op) {
      INFO(phase.op_names[op]);
      const OpLatencyPartsResult& parts = phase.latency_parts.at(op);
      const std::uint64_t ops = phase.ops.at(op).ops;
      if (phase.latency_parts_kind.service) CHECK(parts.service.count() == ops);
      if (phase.latency_parts_kind.submission_completion) {
        CHECK(parts.submission.count() == ops);
        CHECK(parts.completion.count() == ops);
      }
    }
    const std::string text = to_json(run, 2);
    const ResultDocument back = parse_result_json(text);
    CHECK(to_json(back.run, 2) == text);
  }
}

TEST_CASE("latency_sample times 1 op in N, counts, JSON and text keep the rest exact",
          "[disk][json]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-sample");
  const RunResult run = run_disk(
      registry, {{"operation", "read"}, {"bs", "4k"}, {"blocks", "100"}, {"latency_sample", "4"}},
      dir.path());
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.status == Status::kOk);
  const OpResult& read = step.phases.at(0).ops.at(0);
  CHECK(read.ops == 100);
  CHECK(read.bytes == 100 * 4096);
  CHECK(read.latency.count() == 25);
  const AttributeValue* every = step.attribute("latency_sample");
  REQUIRE(every != nullptr);
  CHECK(std::get<std::int64_t>(*every) == 4);

  // JSON keeps the sample count beside the op count and reads it back.
  const std::string json = to_json(run, 2);
  CHECK_THAT(json, Catch::Contains("\"samples\": 25"));
  const ResultDocument back = parse_result_json(json);
  CHECK(back.run.steps.at(0).phases.at(0).ops.at(0).ops == 100);
  CHECK(back.run.steps.at(0).phases.at(0).ops.at(0).latency.count() == 25);
  CHECK(to_json(back.run, 2) == json);
  std::string too_many = json;
  const std::string samples = "\"samples\": 25";
  too_many.replace(too_many.find(samples), samples.size(), "\"samples\": 101");
  CHECK_THROWS_WITH(parse_result_json(too_many), Catch::Contains("101 latency samples of 100 ops"));

  std::ostringstream text;
  iobench::plugins::disk::format_disk_text(step, text);
  CHECK_THAT(text.str(), Catch::Contains("sampled 1 in 4: 25 of 100 reads timed"));

  // The default times every op and writes no sample count.
  const RunResult every_op =
      run_disk(registry, {{"operation", "read"}, {"bs", "4k"}, {"blocks", "100"}}, dir.path());
  REQUIRE(every_op.status == Status::kOk);
  CHECK(every_op.steps.at(0).phases.at(0).ops.at(0).latency.count() == 100);
  CHECK_THAT(to_json(every_op, 2), !Catch::Contains("\"samples\""));
}

TEST_CASE("latency_sample with verify: every block is checked, 1 in N timed", "[disk]") {
  const Registry registry = test::make_full_registry();
  test::TempDir dir("disk-sample-verify");
  const RunResult run = run_disk(registry,
                                 {{"operation", "write"},
                                  {"bs", "4k"},
                                  {"blocks", "100"},
                                  {"verify", "true"},
                                  {"latency_sample", "4"}},
                                 dir.path());
  const StepResult& step = run.steps.at(0);
  INFO(step.message);
  REQUIRE(step.status == Status::kOk);
  REQUIRE(step.phases.size() == 2);
  const PhaseResult& write = step.phases.at(0);
  CHECK(write.ops.at(0).ops == 100);
  CHECK(write.ops.at(0).latency.count() == 25);
  CHECK(write.ops.at(1).ops == 1);  // the closing fsync is always timed
  CHECK(write.ops.at(1).latency.count() == 1);
  const PhaseResult& verify = step.phases.at(1);
  CHECK(verify.name == "verify");
  CHECK(verify.ops.at(0).ops == 100);
  CHECK(verify.ops.at(0).bytes == 100 * 4096);
  CHECK(verify.ops.at(0).latency.count() == 25);
}
