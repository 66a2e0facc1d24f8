// --explain's per-op split (ExplainMode::kOps, the default) against the real kernel: op
// boundaries from iobench's own clock, the BPF program only on block requests and context
// switches. The ops' totals are iobench's own op latencies exactly; the layers add up to them; a
// page cache hit has no block request; O_DIRECT reads over a loop device are device time as
// diskstats' await counts it; ops in flight together are refused with the reason.
#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/runner.hpp>
#include <string>

#include "explain_bpf/session.hpp"
#include "tests/explain_bpf/explain_test_support.hpp"

using namespace iobench;
using namespace iobench::explain_test;

namespace {

RunResult run_ops(std::map<std::string, std::string> params, const std::filesystem::path& dir) {
  return run_disk(std::move(params), dir, true, {}, 0, ExplainMode::kOps);
}

}  // namespace

TEST_CASE("explain ops splits page cache reads without the syscall tracepoints", "[explain_bpf]") {
  if (!std::filesystem::is_directory("/dev/shm")) {
    WARN("skipped: no tmpfs at /dev/shm");
    return;
  }
  const ShmDir dir;
  const RunResult run = run_ops(
      {{"operation", "read"}, {"bs", "4k"}, {"size", "1m"}, {"iterations", "8"}}, dir.path());
  REQUIRE(run.status == Status::kOk);
  const std::string reason = unavailable(run);
  if (!reason.empty()) {
    WARN("skipped: explain: unavailable: " << reason);
    return;
  }
  // Loaded with the five block and scheduler programs attached, not the raw_syscalls pair that
  // taxes every system call (--explain=syscalls attaches seven).
  CHECK(bpf_fds("bpf_link") == 5);
  const PhaseResult& phase = run.steps.at(0).phases.back();
  REQUIRE(phase.explain_bpf->split_of == ExplainMode::kOps);
  const ExplainCall* read = find_call(*phase.explain_bpf, "read");
  REQUIRE(read != nullptr);
  const OpResult& reads = phase.ops.at(0);
  // Every op, timed by iobench's own clock: the totals are its latencies, to the ns.
  REQUIRE(reads.ops == 2048);
  CHECK(read->all.calls == reads.ops);
  CHECK(read->all.total_ns == reads.latency.sum());
  // Time off CPU the program charged to an op after user space had ended it lands on the next
  // one and is trimmed there (counted as clamped): rare (1 of 2048 in one CI run); the layers
  // still add up exactly.
  CHECK(read->clamped <= reads.ops / 100);
  check_layers_add_up(read->all);
  check_layers_add_up(read->p50);
  check_layers_add_up(read->p99);
  // tmpfs: no block device, so no request and no queue or device time.
  CHECK(read->cache_hits == read->all.calls);
  CHECK(read->block_requests == 0);
  CHECK(read->all.queue_ns == 0);
  CHECK(read->all.device_ns == 0);
}

TEST_CASE("explain ops puts O_DIRECT reads on a loop device in the device layer as diskstats does",
          "[explain_bpf]") {
  // The device honesty check for the per-op split: 4096 O_DIRECT 64 KiB reads over a
  // loop device reading its backing file with O_DIRECT, one request per op; queue + device per
  // request is the device's r_await within check_request_time_within_r_await's bounds.
  const DirectIoLoop fs;
  if (!fs.skip().empty()) {
    WARN("skipped: " << fs.skip());
    return;
  }
  const std::string& loop = fs.device();
  const RunResult run = run_ops(direct_reads(), fs.path());
  REQUIRE(run.status == Status::kOk);
  const std::string reason = unavailable(run);
  if (!reason.empty()) {
    WARN("skipped: explain: unavailable: " << reason);
    return;
  }
  const PhaseResult& phase = run.steps.at(0).phases.back();
  const OpResult& reads = phase.ops.at(0);
  REQUIRE(reads.ops == 4096);
  const ExplainCall* read = find_call(*phase.explain_bpf, "read");
  REQUIRE(read != nullptr);
  CHECK(read->all.calls == reads.ops);
  CHECK(read->all.total_ns == reads.latency.sum());
  // A request's completion charged to the op after its own (the program ran after user space
  // ended the op) is trimmed and counted: rare (1 op in 4096 in one CI run), and the layers
  // still add up exactly.
  CHECK(read->clamped <= reads.ops / 100);
  check_layers_add_up(read->all);
  CHECK(read->cache_hits == 0);
  CHECK(read->block_requests == reads.ops);
  const explain::DeviceDelta* dev = device_delta(phase, loop);
  REQUIRE(dev != nullptr);
  REQUIRE(dev->valid);
  const double per_request_ms = static_cast<double>(read->all.queue_ns + read->all.device_ns) /
                                1e6 / static_cast<double>(read->block_requests);
  INFO(loop << " r_await " << dev->r_await_ms << " ms, eBPF queue + device per request "
            << per_request_ms << " ms; mean op " << reads.latency.mean() / 1e6 << " ms");
  check_request_time_within_r_await(per_request_ms, *dev);
  CHECK(read->requests.completed >= read->block_requests - read->block_requests / 100);
  check_request_time_within_r_await(
      read->requests.mean(read->requests.queue_ns + read->requests.device_ns) / 1e6, *dev);
}

TEST_CASE("explain ops says why ops in flight together are not split", "[explain_bpf]") {
  if (!std::filesystem::is_directory("/dev/shm")) {
    WARN("skipped: no tmpfs at /dev/shm");
    return;
  }
  const ShmDir dir;
  // io_uring at queue depth 8 (where io_uring is refused, the phase says so: skipped).
  const RunResult run = run_ops({{"operation", "read"},
                                 {"bs", "4k"},
                                 {"size", "1m"},
                                 {"engine", "io_uring"},
                                 {"iodepth", "8"}},
                                dir.path());
  if (run.status != Status::kOk && !run.steps.empty() && !run.steps.at(0).phases.empty() &&
      run.steps.at(0).phases.back().message.find("io_uring") != std::string::npos) {
    WARN("skipped: " << run.steps.at(0).phases.back().message);
    return;
  }
  REQUIRE(run.status == Status::kOk);
  if (!detail::explain_bpf_loaded()) {
    WARN("skipped: explain: unavailable: " << unavailable(run));
    return;
  }
  CHECK_THAT(unavailable(run), Catch::Contains("1 worker(s) kept several ops in flight") &&
                                   Catch::Contains("--explain=syscalls"));
}
