#pragma once

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <vector>

namespace iobench::test {

/// How each worker of FakeWorkload behaves.
enum class FakeBehaviour {
  kFixedOps,      ///< records `ops` ops of 4096 bytes, ignoring keep_going()
  kUntilStopped,  ///< records ops while keep_going()
  kThrowAfter,    ///< records `ops` ops, then throws IoError(ENOSPC) (worker 0 only)
  kCrash,         ///< worker 0 calls abort() (process mode)
};

struct FakeConfig {
  std::vector<PhaseSpec> phases{PhaseSpec{
      .name = "fake", .op_names = {"op"}, .counter_names = {"constructed_at_start"}, .workers = 2}};
  FakeBehaviour behaviour = FakeBehaviour::kFixedOps;
  std::uint64_t ops = 1000;
};

/// A workload double with no I/O: exact, predictable op counts for runner tests. Counter 0 of
/// each worker is the number of workers constructed when its run() started (proves the barrier
/// for thread workers: it must equal the worker count).
class FakeWorkload final : public Workload {
 public:
  explicit FakeWorkload(FakeConfig config) : config_(std::move(config)) {}
  [[nodiscard]] std::vector<PhaseSpec> phases() const override { return config_.phases; }

  std::unique_ptr<PhaseWorker> make_worker(std::size_t, WorkerContext&) override {
    constructed_.fetch_add(1);
    return std::make_unique<Worker>(*this);
  }
  void after_phase(std::size_t, PrepareContext&) override { constructed_.store(0); }

 private:
  class Worker final : public PhaseWorker {
   public:
    explicit Worker(FakeWorkload& owner) : owner_(owner) {}
    void run(WorkerContext& ctx) override {
      ctx.add_counter(0, owner_.constructed_.load());
      const FakeConfig& config = owner_.config_;
      if (config.behaviour == FakeBehaviour::kCrash && ctx.worker_index() == 0) std::abort();
      OpTimer timer;
      if (config.behaviour == FakeBehaviour::kUntilStopped) {
        while (ctx.keep_going()) timer.lap(ctx, 0, 4096);
        return;
      }
      for (std::uint64_t i = 0; i < config.ops; ++i) timer.lap(ctx, 0, 4096);
      if (config.behaviour == FakeBehaviour::kThrowAfter && ctx.worker_index() == 0) {
        throw IoError(ENOSPC, "pwrite", "/fake/file");
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
  registry.add_workload(
      WorkloadInfo{.name = "fake",
                   .summary = "test double",
                   .params = {},
                   .factory = [&config](const WorkloadSetup&) -> std::unique_ptr<Workload> {
                     return std::make_unique<FakeWorkload>(config);
                   }});
}

}  // namespace iobench::test
