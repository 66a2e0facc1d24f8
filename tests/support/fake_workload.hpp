#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace iobench::test {

/// How each worker of FakeWorkload behaves.
enum class FakeBehaviour {
  kFixedOps,      ///< records `ops` ops of 4096 bytes, ignoring keep_going()
  kUntilStopped,  ///< records ops while keep_going()
  kThrowAfter,    ///< records `ops` ops, then throws IoError(ENOSPC) (worker 0 only)
  kCrash,         ///< worker 0 calls abort() (process mode)
  kFirstQuits,    ///< worker 0 records `ops` ops and returns; the others go on while keep_going()
};

struct FakeConfig {
  std::vector<PhaseSpec> phases{PhaseSpec{
      .name = "fake", .op_names = {"op"}, .counter_names = {"constructed_at_start"}, .workers = 2}};
  FakeBehaviour behaviour = FakeBehaviour::kFixedOps;
  std::uint64_t ops = 1000;
  /// CPU time each worker burns in make_worker() (untimed set-up).
  std::chrono::nanoseconds setup_cpu{0};
  /// CPU time each op burns before it is recorded.
  std::chrono::nanoseconds op_cpu{0};
  /// Each op sleeps this long first, deaf to stop requests (a stuck I/O call).
  std::chrono::nanoseconds op_sleep{0};
  /// make_worker() waits until ctx.stop_requested() (at most this long) and then returns
  /// nullptr, as a long set-up loop that sees a stop does.
  std::chrono::nanoseconds setup_until_stopped{0};
  /// The factory runs this long, checking WorkloadSetup::stop_requested() every ms: once it is
  /// true it throws InterruptedError, as a long loadfile parse that sees a stop does.
  std::chrono::nanoseconds factory_until_stopped{0};
  /// The path kThrowAfter's IoError names.
  std::string error_path = "/fake/file";
};

/// Spins until the calling thread has used `cpu` more CPU time (exactly that much is burnt,
/// however loaded the machine is).
inline void burn_cpu(std::chrono::nanoseconds cpu) {
  if (cpu.count() <= 0) return;
  const auto now = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  const auto end = now() + cpu;
  while (now() < end) {
  }
}

/// A workload double with no I/O: exact, predictable op counts for runner tests. Counter 0 of
/// each worker is the number of workers constructed when its run() started (proves the barrier
/// for thread workers: it must equal the worker count).
class FakeWorkload final : public Workload {
 public:
  explicit FakeWorkload(FakeConfig config) : config_(std::move(config)) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override { return config_.phases; }

  std::unique_ptr<PhaseWorker> make_worker(std::size_t, WorkerContext& ctx) override {
    if (config_.setup_until_stopped.count() > 0) {
      const auto end = std::chrono::steady_clock::now() + config_.setup_until_stopped;
      while (!ctx.stop_requested() && std::chrono::steady_clock::now() < end) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return nullptr;
    }
    burn_cpu(config_.setup_cpu);
    constructed_.fetch_add(1);
    return std::make_unique<Worker>(*this);
  }
  void after_phase(std::size_t, const PhaseResult&, PrepareContext&) override {
    constructed_.store(0);
  }

 private:
  class Worker final : public PhaseWorker {
   public:
    explicit Worker(FakeWorkload& owner) : owner_(owner) {}
    void run(WorkerContext& ctx) override {
      ctx.add_counter(0, owner_.constructed_.load());
      const FakeConfig& config = owner_.config_;
      if (config.behaviour == FakeBehaviour::kCrash && ctx.worker_index() == 0) std::abort();
      OpTimer timer;
      const bool until_stopped =
          config.behaviour == FakeBehaviour::kUntilStopped ||
          (config.behaviour == FakeBehaviour::kFirstQuits && ctx.worker_index() != 0);
      if (until_stopped) {
        while (ctx.keep_going()) {
          std::this_thread::sleep_for(config.op_sleep);
          burn_cpu(config.op_cpu);
          timer.lap(ctx, 0, 4096);
        }
        return;
      }
      for (std::uint64_t i = 0; i < config.ops; ++i) {
        burn_cpu(config.op_cpu);
        timer.lap(ctx, 0, 4096);
      }
      if (config.behaviour == FakeBehaviour::kThrowAfter && ctx.worker_index() == 0) {
        throw IoError(ENOSPC, "pwrite", config.error_path);
      }
      if (config.behaviour == FakeBehaviour::kThrowAfter) {
        while (ctx.keep_going()) timer.lap(ctx, 0, 4096);
      }
    }

   private:
    FakeWorkload& owner_;
  };

  FakeConfig config_;
  std::atomic<std::size_t> constructed_{0};
};

/// Registers "fake" into `registry`, built from `config` (which must outlive the registry).
inline void register_fake(Registry& registry, const FakeConfig& config) {
  registry.add_workload(WorkloadInfo{
      .name = "fake",
      .summary = "test double",
      .params = {},
      .factory = [&config](const WorkloadSetup& setup) -> std::unique_ptr<Workload> {
        if (config.factory_until_stopped.count() > 0) {
          const auto end = std::chrono::steady_clock::now() + config.factory_until_stopped;
          while (std::chrono::steady_clock::now() < end) {
            if (setup.stop_requested()) throw InterruptedError("fake: stopped");
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }
        return std::make_unique<FakeWorkload>(config);
      }});
}

}  // namespace iobench::test
