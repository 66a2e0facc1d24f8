#include "plugins/disk/disk_formatter.hpp"

#include <catch2/catch.hpp>
#include <sstream>

using namespace iobench;
using namespace iobench::plugins::disk;

namespace {
WorkerResult worker(std::size_t index, std::uint64_t ops, std::uint64_t bs,
                    std::uint64_t latency_ns, std::uint64_t elapsed_ns) {
  WorkerResult w;
  w.index = index;
  w.target_index = index;
  w.elapsed_ns = elapsed_ns;
  w.ops.resize(2);
  for (std::uint64_t i = 0; i < ops; ++i) w.ops[0].record(bs, latency_ns);
  return w;
}
}  // namespace

TEST_CASE("seed-style counts and sizes", "[disk]") {
  CHECK(format_count(12288) == "12k");
  CHECK(format_count(3145728) == "3m");
  CHECK(format_count(512000) == "500k");
  CHECK(format_count(1000) == "1000");
  CHECK(format_size(12ULL << 30, false) == "12GB");
  CHECK(format_size(1 << 20, true) == "1M");
  CHECK(format_size(4096, true) == "4k");
  CHECK(format_size(2097152000ULL, false) == "2.0GB");
}

TEST_CASE("disk text matches the seeds' completed and per-target lines", "[disk]") {
  StepResult step;
  step.attributes = {{"file.0", std::string("/mnt/a/bigfile")},
                     {"file.1", std::string("/mnt/b/bigfile")}};
  PhaseResult phase;
  phase.name = "write";
  phase.op_names = {"write", "fsync"};
  phase.wall_ns = 2'000'000'000;
  phase.workers = {worker(0, 1024, 1 << 20, 40'000'000, 2'000'000'000),
                   worker(1, 1024, 1 << 20, 20'000'000, 1'000'000'000)};
  phase.ops.resize(2);
  for (const auto& w : phase.workers) phase.ops[0].merge(w.ops[0]);
  step.phases.push_back(phase);
  step.warnings = {"page cache not dropped before 'write': not root"};
  std::ostringstream out;
  format_disk_text(step, out);
  const std::string text = out.str();
  CHECK_THAT(
      text, Catch::StartsWith("Completed writing 2048 mbytes across 2 devices using 2048 blocks of "
                              "1048576 in 2.000000 seconds (1024.00 Mbytes/sec), 30000usec mean\n"
                              "#0 (/mnt/a/bigfile) 1GB in 2.000000s using 1k writes of 1M "
                              "(512.00MB/sec), 40000usec\n"
                              "#1 (/mnt/b/bigfile) 1GB in 1.000000s using 1k writes of 1M "
                              "(1024.00MB/sec), 20000usec\n"));
  CHECK_THAT(text, Catch::Contains("binary: MiB = 2^20"));
  // The family formatter replaces the generic section, warnings included.
  CHECK_THAT(text, Catch::EndsWith("\nWARNING: page cache not dropped before 'write': not root\n"));
}

TEST_CASE("a phase that failed before any op completed prints why, not figures of zero", "[disk]") {
  StepResult step;
  PhaseResult phase;
  phase.name = "read";
  phase.op_names = {"read"};
  phase.status = Status::kFailed;
  phase.message = "pread of 4096 bytes at offset 0: Input/output error";
  phase.wall_ns = 1'000'000;
  phase.workers = {worker(0, 0, 4096, 0, 1'000'000)};
  phase.workers[0].ops.resize(1);
  phase.ops.resize(1);
  step.phases.push_back(phase);
  std::ostringstream out;
  format_disk_text(step, out);
  CHECK_THAT(out.str(),
             Catch::StartsWith("Failed reading: no read completed: pread of 4096 bytes at "
                               "offset 0: Input/output error\n"));
  CHECK_THAT(out.str(), !Catch::Contains("usec"));
}
