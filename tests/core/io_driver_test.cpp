// The IoDriver through the runner, with test engines whose behaviour is known exactly: completions
// out of order, would-block failures, short transfers, a failed request, a stalling device, and
// requests overlapping ones in flight (serialize_overlaps).
#include <time.h>

#include <catch2/catch.hpp>
#include <deque>
#include <iobench/error.hpp>
#include <iobench/io_driver.hpp>
#include <iobench/metrics.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

constexpr std::uint32_t kLength = 4096;

enum class Behaviour {
  kReverse,  ///< asynchronous; completes each batch in reverse order
  kEagain,   ///< every 10th request fails with EAGAIN
  kShort,    ///< every request completes with half its length; the rest goes via read_at
  kFailAt,   ///< the 50th request fails with EIO
  kStall,    ///< synchronous; every 200th request takes 20 ms
  kSync,     ///< synchronous; every request completes in full at once
  kTrickle,  ///< asynchronous; each reap returns one completion, the oldest
};

struct Shared {
  std::atomic<std::uint64_t> read_at_calls{0};
  std::atomic<std::uint64_t> max_in_flight{0};
  /// Requests submitted while a request overlapping their bytes was in flight (or earlier in
  /// their batch).
  std::atomic<std::uint64_t> overlaps{0};
};

class TestQueue final : public IoQueue {
 public:
  TestQueue(std::uint32_t depth, Behaviour behaviour, Shared& shared)
      : IoQueue(depth), behaviour_(behaviour), shared_(shared) {}
  void submit(std::span<const IoRequest> requests) override {
    std::vector<IoCompletion> batch;
    for (const IoRequest& r : requests) {
      for (const IoRequest& other : in_flight_requests_) {
        if (r.offset < other.offset + other.length && other.offset < r.offset + r.length) {
          ++shared_.overlaps;
          break;
        }
      }
      in_flight_requests_.push_back(r);
      ++count_;
      std::int64_t result = r.length;
      if (behaviour_ == Behaviour::kEagain && count_ % 10 == 0) result = -EAGAIN;
      if (behaviour_ == Behaviour::kShort) result = r.length / 2;
      if (behaviour_ == Behaviour::kFailAt && count_ == 50) result = -EIO;
      if (behaviour_ == Behaviour::kStall && count_ % 200 == 0) {
        const timespec pause{0, 20'000'000};
        ::nanosleep(&pause, nullptr);
      }
      batch.push_back({r.tag, result});
    }
    if (behaviour_ == Behaviour::kReverse) std::reverse(batch.begin(), batch.end());
    done_.insert(done_.end(), batch.begin(), batch.end());
    in_flight_ += static_cast<std::uint32_t>(requests.size());
    shared_.max_in_flight = std::max<std::uint64_t>(shared_.max_in_flight, in_flight_);
  }
  std::size_t reap(std::span<IoCompletion> out, std::size_t /*min*/) override {
    const std::size_t most = behaviour_ == Behaviour::kTrickle ? 1 : out.size();
    std::size_t n = 0;
    for (; n < most && !done_.empty(); ++n) {
      out[n] = done_.front();
      done_.pop_front();
      std::erase_if(in_flight_requests_,
                    [tag = out[n].tag](const IoRequest& r) { return r.tag == tag; });
    }
    in_flight_ -= static_cast<std::uint32_t>(n);
    return n;
  }

 private:
  Behaviour behaviour_;
  Shared& shared_;
  std::uint64_t count_ = 0;
  std::deque<IoCompletion> done_;
  std::vector<IoRequest> in_flight_requests_;
};

class TestFile final : public IoFile {
 public:
  TestFile(Behaviour behaviour, Shared& shared) : behaviour_(behaviour), shared_(shared) {}
  void read_at(std::span<std::byte>, std::uint64_t) override { ++shared_.read_at_calls; }
  void write_at(std::span<const std::byte>, std::uint64_t) override {}
  void sync() override {}
  void close() override {}
  [[nodiscard]] std::uint64_t size() const override { return 0; }
  [[nodiscard]] int fd() const override { return -1; }
  [[nodiscard]] const std::filesystem::path& path() const override { return path_; }
  std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override {
    return std::make_unique<TestQueue>(options.depth, behaviour_, shared_);
  }

 private:
  Behaviour behaviour_;
  Shared& shared_;
  std::filesystem::path path_ = "/test/file";
};

class TestEngine final : public Engine {
 public:
  TestEngine(Behaviour behaviour, Shared& shared) : behaviour_(behaviour), shared_(shared) {}
  [[nodiscard]] std::string name() const override { return "test"; }
  [[nodiscard]] EngineCaps caps() const override {
    const bool async = behaviour_ != Behaviour::kStall && behaviour_ != Behaviour::kSync;
    return {.async = async, .max_depth = async ? 64U : 1U, .moves_data = false};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation&,
                                             const OpenOptions&) const override {
    return std::make_unique<TestFile>(behaviour_, shared_);
  }

 private:
  Behaviour behaviour_;
  Shared& shared_;
};

// A workload of `ops` reads per worker through the driver, at `iodepth`, optionally paced.
struct DriveConfig {
  std::uint64_t ops = 1000;
  std::uint32_t iodepth = 1;
  double rate_iops = 0;
  std::uint32_t latency_sample = 1;
  /// Offsets cycle over this many kLength blocks (0: every op its own block).
  std::uint64_t blocks = 0;
  bool serialize_overlaps = false;
};

class DriveWorkload final : public Workload {
 public:
  DriveWorkload(DriveConfig config, EngineCaps caps) : config_(config), caps_(caps) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override {
    return {PhaseSpec{
        .name = "drive",
        .op_names = {"read"},
        .workers = 1,
        .latency_parts = {.submission_completion = caps_.async, .service = config_.rate_iops > 0}}};
  }
  std::unique_ptr<PhaseWorker> make_worker(std::size_t, WorkerContext& ctx) override {
    return std::make_unique<Worker>(config_, ctx.engine());
  }

 private:
  class Source {
   public:
    Source(std::uint64_t ops, std::uint64_t blocks) : ops_(ops), blocks_(blocks) {}
    bool next(IoRequest& r, OpId& op) {
      if (done_ == ops_) return false;
      r.direction = IoDirection::kRead;
      r.length = kLength;
      r.offset = (blocks_ == 0 ? done_ : done_ % blocks_) * kLength;
      ++done_;
      op = 0;
      return true;
    }
    void completed(const IoRequest&, OpId) {}

   private:
    std::uint64_t ops_;
    std::uint64_t blocks_;
    std::uint64_t done_ = 0;
  };
  class Worker final : public PhaseWorker {
   public:
    Worker(DriveConfig config, const Engine& engine)
        : config_(config),
          file_(engine.open(FileLocation::user_target("/test/file"), {})),
          buffers_(kLength * config.iodepth),
          queue_(file_->make_queue({.depth = config.iodepth})) {
      if (config.rate_iops > 0) pacer_.emplace(RateLimit{.ops_per_s = config.rate_iops}, 1);
      driver_.emplace(*file_, *queue_, buffers_.span(), kLength,
                      IoDriverOptions{.depth = config.iodepth,
                                      .async = engine.caps().async,
                                      .pacer = pacer_ ? &*pacer_ : nullptr,
                                      .latency_sample = config.latency_sample,
                                      .sample_seed = 7,
                                      .serialize_overlaps = config.serialize_overlaps});
    }
    void run(WorkerContext& ctx) override {
      Source source(config_.ops, config_.blocks);
      driver_->run(ctx, source);
    }

   private:
    DriveConfig config_;
    std::unique_ptr<IoFile> file_;
    AlignedBuffer buffers_;
    std::unique_ptr<IoQueue> queue_;
    std::optional<RatePacer> pacer_;
    std::optional<IoDriver> driver_;
  };

  DriveConfig config_;
  EngineCaps caps_;
};

RunResult drive(Behaviour behaviour, const DriveConfig& config, Shared& shared,
                std::uint64_t ops_limit = 0) {
  Registry registry;
  register_builtins(registry);
  registry.add_engine({.name = "test",
                       .summary = "test engine",
                       .options = {},
                       .factory = [behaviour, &shared](const EngineSpec&) {
                         return std::make_unique<TestEngine>(behaviour, shared);
                       }});
  registry.add_workload(
      {.name = "drive",
       .summary = "driver test",
       .params = {},
       .factory = [config](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
         return std::make_unique<DriveWorkload>(config, setup.engine.caps());
       }});
  test::TempDir dir("driver");
  test::CapturingReporter reporter;
  return Runner(registry, RunOptions{})
      .run(std::vector<Step>{Step{.workload = "drive",
                                  .targets = {dir.path()},
                                  .engine = "test",
                                  .ops_limit = ops_limit}},
           reporter);
}

}  // namespace

TEST_CASE("the driver keeps the queue at its depth and records every completion",
          "[core][driver]") {
  Shared shared;
  const RunResult run = drive(Behaviour::kReverse, {.ops = 1000, .iodepth = 16}, shared);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.ops[0].ops == 1000);
  CHECK(phase.ops[0].bytes == 1000 * kLength);
  CHECK(shared.max_in_flight == 16);
  REQUIRE(phase.latency_parts.size() == 1);
  CHECK(phase.latency_parts_kind.submission_completion);
  CHECK(phase.latency_parts[0].submission.count() == 1000);
  CHECK(phase.latency_parts[0].completion.count() == 1000);
  // Every op's total is its submission plus its completion part (both measured on one clock).
  CHECK(phase.latency_parts[0].submission.sum() + phase.latency_parts[0].completion.sum() ==
        phase.ops[0].latency.sum());
  CHECK(run.steps.at(0).engine == "test");
}

TEST_CASE("serialize_overlaps never has two requests of one block in flight at once",
          "[core][driver]") {
  // Two blocks at depth 8: without it, up to 8 requests of 2 blocks in flight together (what
  // made verify misjudge a block written twice at once); with it, each waits for the one before
  // it of its block, whether the queue returns a batch at once (reversed) or one at a time.
  for (const Behaviour behaviour : {Behaviour::kReverse, Behaviour::kTrickle}) {
    INFO("behaviour " << static_cast<int>(behaviour));
    Shared shared;
    const RunResult run = drive(
        behaviour, {.ops = 1000, .iodepth = 8, .blocks = 2, .serialize_overlaps = true}, shared);
    REQUIRE(run.status == Status::kOk);
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    CHECK(phase.ops[0].ops == 1000);
    CHECK(phase.ops[0].bytes == 1000 * kLength);
    CHECK(shared.overlaps == 0);
    CHECK(shared.max_in_flight == 2);
  }
  // Blocks enough for the depth: the queue stays full.
  Shared wide;
  const RunResult full =
      drive(Behaviour::kTrickle,
            {.ops = 1000, .iodepth = 8, .blocks = 64, .serialize_overlaps = true}, wide);
  REQUIRE(full.status == Status::kOk);
  CHECK(full.steps.at(0).phases.at(0).ops[0].ops == 1000);
  CHECK(wide.overlaps == 0);
  CHECK(wide.max_in_flight == 8);
  // Without it the same two blocks overlap in flight: what the count above would catch.
  Shared loose;
  const RunResult racing =
      drive(Behaviour::kReverse, {.ops = 1000, .iodepth = 8, .blocks = 2}, loose);
  REQUIRE(racing.status == Status::kOk);
  CHECK(loose.overlaps > 0);
  CHECK(loose.max_in_flight == 8);
}

TEST_CASE("an op limit holds at any depth", "[core][driver]") {
  Shared shared;
  const RunResult run = drive(Behaviour::kReverse, {.ops = 1000, .iodepth = 32}, shared, 100);
  REQUIRE(run.status == Status::kOk);
  CHECK(run.steps.at(0).phases.at(0).ops[0].ops == 100);
}

TEST_CASE("would-block failures are counted as errors, then fail the phase", "[core][driver]") {
  // Requests that would have blocked (RWF_NOWAIT) moved no data: the loop counts them and goes
  // on, and the worker then fails, saying how many and where the first was.
  Shared shared;
  const RunResult run = drive(Behaviour::kEagain, {.ops = 1000, .iodepth = 8}, shared);
  REQUIRE(run.status == Status::kFailed);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.status == Status::kFailed);
  CHECK(phase.message ==
        "worker 0: 100 of 1000 requests would have blocked (RWF_NOWAIT) and moved no data, first "
        "the read of 4096 bytes at offset 36864 in /test/file: Resource temporarily unavailable");
  const OpResult& read = phase.ops[0];
  CHECK(read.errors == 100);
  CHECK(read.ops == 900);
}

TEST_CASE("open loop: N paced ops span N intervals, so the rate reported is the rate asked",
          "[core][driver]") {
  // 20 ops at 200/s, the last due 95 ms after the first: the worker's window ends at the end of
  // that op's interval, 100 ms, so the phase reports 20 / 0.1 s = 200 ops/s (at most; a window
  // ending at the last op's issue gave 20 / 0.095 s = 210.5). The same when the op limit, not
  // the source, ends the loop. A bound from the schedule, not from the machine's speed.
  for (const std::uint64_t limit : {std::uint64_t{0}, std::uint64_t{20}}) {
    INFO("op limit " << limit);
    Shared shared;
    const RunResult run = drive(Behaviour::kStall,
                                {.ops = limit == 0 ? 20U : 1000U, .rate_iops = 200}, shared, limit);
    REQUIRE(run.status == Status::kOk);
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    CHECK(phase.ops[0].ops == 20);
    CHECK(phase.workers.at(0).elapsed_ns >= 100'000'000);
    CHECK(phase.wall_ns >= 100'000'000);
    CHECK(iobench::ops_per_s(phase.total_ops(), phase.wall_ns) <= 200.0);
    CHECK(phase.pacing.backlog_ops == 0);
  }
}

TEST_CASE("a short transfer is finished, then counted in full", "[core][driver]") {
  Shared shared;
  const RunResult run = drive(Behaviour::kShort, {.ops = 300, .iodepth = 4}, shared);
  REQUIRE(run.status == Status::kOk);
  CHECK(shared.read_at_calls == 300);
  CHECK(run.steps.at(0).phases.at(0).ops[0].bytes == 300 * kLength);
}

TEST_CASE("a failed request ends the worker naming the call, offset and errno", "[core][driver]") {
  Shared shared;
  const RunResult run = drive(Behaviour::kFailAt, {.ops = 1000, .iodepth = 8}, shared);
  REQUIRE(run.status == Status::kFailed);
  CHECK_THAT(run.steps.at(0).message,
             Catch::Contains("read of 4096 bytes at offset 200704 in /test/file") &&
                 Catch::Contains("/test/file") && Catch::Contains("Input/output error"));
}

TEST_CASE("open loop: a stalling device shows in response times, not in service times",
          "[core][driver]") {
  // 1000 ops at 1000/s; every 200th takes 20 ms, delaying the ~20 ops due behind it. Measured
  // from the intended issue time (response) those delays show in the p99; measured from the
  // actual issue (service) only the 5 stalled ops are slow, below the 99th percentile.
  Shared shared;
  const RunResult run = drive(Behaviour::kStall, {.ops = 1000, .rate_iops = 1000}, shared);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  REQUIRE(phase.latency_parts_kind.service);
  const CompactLatencyHistogram& response = phase.ops[0].latency;
  const CompactLatencyHistogram& service = phase.latency_parts[0].service;
  CHECK(response.count() == 1000);
  CHECK(response.percentile(99) >= 10'000'000);
  CHECK(service.percentile(99) < 10'000'000);
  CHECK(service.max() >= 20'000'000);
  CHECK(phase.pacing.paced);
  CHECK(phase.pacing.late_ops >= 10);
  CHECK(phase.pacing.max_lag_ns >= 15'000'000);
  // The schedule does not slip: 1000 ops at 1000/s take about 1 s whatever the stalls.
  CHECK(phase.wall_ns >= 990'000'000);
}

TEST_CASE("latency sampling times 1 op in N and counts every op exactly", "[core][driver]") {
  // Synchronous at depth 1 (the loop that reads no clock for an untimed op) and a queue of an
  // asynchronous engine (the general loop, with its latency parts).
  for (const auto& [behaviour, depth] :
       {std::pair{Behaviour::kSync, 1U}, std::pair{Behaviour::kReverse, 8U}}) {
    INFO("iodepth " << depth);
    Shared shared;
    const RunResult run =
        drive(behaviour, {.ops = 100, .iodepth = depth, .latency_sample = 4}, shared);
    REQUIRE(run.status == Status::kOk);
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    CHECK(phase.ops[0].ops == 100);
    CHECK(phase.ops[0].bytes == 100 * kLength);
    // One timed op in each run of 4: exactly 25 latencies, in the histogram and every part.
    CHECK(phase.ops[0].latency.count() == 25);
    CHECK(phase.workers.at(0).ops[0].latency.count() == 25);
    if (phase.latency_parts_kind.submission_completion) {
      CHECK(phase.latency_parts.at(0).submission.count() == 25);
      CHECK(phase.latency_parts.at(0).completion.count() == 25);
    }
    // The time series counts every op, and its latency figures are of the timed ones.
    std::uint64_t series_ops = 0;
    std::uint64_t series_samples = 0;
    for (const SeriesPoint& point : phase.time_series.points) {
      series_ops += point.ops;
      std::uint64_t samples = 0;
      for (const auto& bucket : point.histogram.buckets) samples += bucket.second;
      series_samples += samples;
      if (samples == 0) continue;
      CHECK(point.latency_ns.mean ==
            Approx(static_cast<double>(point.histogram.sum_ns) / static_cast<double>(samples)));
    }
    CHECK(series_ops == 100);
    CHECK(series_samples == 25);
  }
}

TEST_CASE("latency sampling keeps an op limit and the default times every op", "[core][driver]") {
  Shared shared;
  const RunResult limited =
      drive(Behaviour::kSync, {.ops = 1000, .latency_sample = 10}, shared, 300);
  REQUIRE(limited.status == Status::kOk);
  CHECK(limited.steps.at(0).phases.at(0).ops[0].ops == 300);
  CHECK(limited.steps.at(0).phases.at(0).ops[0].latency.count() == 30);
  const RunResult every = drive(Behaviour::kSync, {.ops = 100}, shared);
  REQUIRE(every.status == Status::kOk);
  CHECK(every.steps.at(0).phases.at(0).ops[0].ops == 100);
  CHECK(every.steps.at(0).phases.at(0).ops[0].latency.count() == 100);
}

TEST_CASE("the driver refuses latency sampling in an open loop", "[core][driver]") {
  Shared shared;
  const RunResult run =
      drive(Behaviour::kSync, {.ops = 100, .rate_iops = 1000, .latency_sample = 4}, shared);
  REQUIRE(run.status == Status::kFailed);
  CHECK_THAT(run.steps.at(0).message,
             Catch::Contains("latency_sample=4") && Catch::Contains("open-loop"));
}
