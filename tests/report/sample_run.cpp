#include "tests/report/sample_run.hpp"

#include "tests/support/test_support.hpp"

namespace iobench::test {
namespace {

using ::iobench::test::kMiB;

// `fast` writes of kFastNs then `slow` of kSlowNs, each moving `bytes`.
OpResult fast_and_slow(int fast, int slow, std::uint64_t bytes) {
  OpResult op;
  for (int i = 0; i < fast; ++i) op.record(bytes, kFastNs);
  for (int i = 0; i < slow; ++i) op.record(bytes, kSlowNs);
  return op;
}

Environment make_environment() {
  Environment env;
  env.hostname = "bench01";
  env.kernel = "Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)";
  env.arch = "x86_64";
  env.cpu_model = "Intel(R) Xeon(R) CPU E5-2620 v4 @ 2.10GHz";
  env.cpu_count = 16;
  env.memory_bytes = 64 * 1024 * kMiB;
  env.iobench_version = "0.1.0";
  env.start_time_utc = "2026-01-15T09:30:00Z";
  env.clock = "tsc (2400.000 MHz, calibrated against CLOCK_MONOTONIC_RAW over 5.0 ms)";
  env.targets.push_back(TargetInfo{.path = "/mnt/a",
                                   .fs_type = "ext4",
                                   .mount_point = "/mnt/a",
                                   .mount_options = "rw,relatime,errors=remount-ro",
                                   .device = "/dev/sdb1",
                                   .size_bytes = 1'000'204'886'016,
                                   .free_bytes = 900'184'397'414});
  env.targets.push_back(TargetInfo{.path = "/mnt/b,\"x\"",
                                   .fs_type = "xfs",
                                   .mount_point = "/mnt/b,\"x\"",
                                   .mount_options = "rw,noatime,attr2,inode64",
                                   .device = "/dev/sdc1",
                                   .size_bytes = 500'107'862'016,
                                   .free_bytes = 250'053'931'008});
  return env;
}

StepResult make_seqwrite() {
  StepResult step;
  step.name = "seqwrite";
  step.workload = "disk";
  step.engine = "psync";
  step.params = {{"blocks", "64"}, {"bs", "1048576"}, {"mode", "buffered"}, {"operation", "write"}};
  step.targets = {"/mnt/a", "/mnt/b,\"x\""};
  step.seed = 42;
  step.given_params = {"blocks", "bs", "operation"};
  step.engine = "psync";
  step.attributes = {{"file_bytes", std::int64_t{67'108'864}},
                     {"ram_ratio", 0.5},
                     {"note", std::string("primed")}};
  step.warnings = {"file smaller than 2x RAM: reads may come from the page cache"};

  PhaseResult phase;
  phase.name = "write";
  phase.op_names = {"write"};
  phase.counter_names = {"fsyncs"};
  phase.mode = WorkerMode::kThreads;
  phase.wall_ns = 640'000'000;
  phase.stonewall_ns = 500'000'000;

  WorkerResult w0;
  w0.index = 0;
  w0.target_index = 0;
  w0.seed = 1001;
  w0.elapsed_ns = 500'000'000;
  w0.cpu = {.user_ns = 50'000'000, .system_ns = 190'000'000};
  w0.ops = {fast_and_slow(60, 4, kMiB)};
  w0.counters = {1};

  WorkerResult w1;
  w1.index = 1;
  w1.target_index = 1;
  w1.seed = 18'446'744'073'709'551'557ULL;  // 2^64 - 59: no double holds it
  w1.elapsed_ns = 640'000'000;
  w1.cpu = {.user_ns = 64'000'000, .system_ns = 240'000'000};
  w1.ops = {fast_and_slow(62, 2, kMiB)};
  w1.counters = {1};

  phase.ops = {w0.ops[0]};
  phase.ops[0].merge(w1.ops[0]);
  phase.counters = {2};
  phase.workers = {w0, w1};
  phase.process_cpu = {.user_ns = 120'000'000, .system_ns = 450'000'000};
  phase.workers_cpu = {.user_ns = 114'000'000, .system_ns = 430'000'000};
  phase.system_busy_percent = 23.5;
  step.phases.push_back(std::move(phase));
  return step;
}

StepResult make_meta() {
  StepResult step;
  step.name = "meta";
  step.workload = "custom-meta";
  step.engine = "psync";
  step.params = {{"files", "253"}};
  step.targets = {"/mnt/a"};
  step.seed = 7;
  step.given_params = {"files"};
  step.engine = "mmap";
  step.time_limit_ns = 15'000'000'000;
  step.warmup_ns = 2'000'000'000;
  step.ops_limit = 1000;
  step.drop_caches = true;
  step.status = Status::kInterrupted;
  step.message = "stopped by SIGINT";

  PhaseResult phase;
  phase.name = "create and stat";
  phase.op_names = {"create", "stat", "sync"};
  phase.mode = WorkerMode::kProcesses;
  phase.wall_ns = 15'000'000'000;
  phase.stonewall_ns = 15'000'000'000;
  phase.status = Status::kInterrupted;
  phase.message = "stopped by SIGINT";

  WorkerResult w0;
  w0.seed = 77;
  w0.elapsed_ns = 15'000'000'000;
  w0.cpu = {.user_ns = 1'500'000'000, .system_ns = 6'000'000'000};
  w0.status = Status::kInterrupted;
  w0.message = "stopped by SIGINT";
  OpResult create = fast_and_slow(250, 3, 0);
  create.errors = 2;
  OpResult stat;
  for (std::uint64_t ns = 1; ns <= 253; ++ns) stat.record(0, ns);
  OpResult sync;
  sync.record(0, kSyncFastNs);
  sync.record(0, kSyncSlowNs);
  w0.ops = {create, stat, sync};

  phase.ops = w0.ops;
  phase.workers = {w0};
  phase.process_cpu = {.user_ns = 1'600'000'000, .system_ns = 6'100'000'000};
  phase.workers_cpu = w0.cpu;
  phase.system_busy_percent = 31.25;
  step.phases.push_back(std::move(phase));
  return step;
}

StepResult make_broken() {
  StepResult step;
  step.name = "broken";
  step.workload = "disk";
  step.engine = "io_uring:fixedbufs";
  step.params = {{"bs", "4096"}};
  step.targets = {"/mnt/a"};
  step.seed = 9;
  step.status = Status::kFailed;
  step.message = "pwrite /mnt/a/iobench.1.2/file0: No space left on device";
  return step;
}

}  // namespace

RunResult make_sample_run() {
  RunResult run;
  run.environment = make_environment();
  run.steps = {make_seqwrite(), make_meta(), make_broken()};
  run.status = Status::kInterrupted;
  return run;
}

}  // namespace iobench::test
