#pragma once

#include <functional>
#include <iobench/result.hpp>
#include <iobench/workload.hpp>
#include <optional>
#include <span>
#include <string>

#include "core/step_sync.hpp"

// A running step's PrepareContext and how a checkpoint's verdict lands in its StepResult.
namespace iobench::detail {

/// PrepareContext of a running step: attributes and warnings go into its StepResult; across
/// ranks (`sync` active) its identity and from_rank0() are the coordinator's.
class StepContext final : public PrepareContext {
 public:
  StepContext(std::span<const Target> targets, const Engine& engine, StepResult& result,
              StepSync& sync)
      : targets_(targets), engine_(engine), result_(result), sync_(sync) {}
  [[nodiscard]] const RankIdentity& rank_identity() const override {
    return sync_.active() ? sync_.coordinator().identity() : PrepareContext::rank_identity();
  }
  [[nodiscard]] std::string from_rank0(const std::function<std::string()>& produce) override;
  [[nodiscard]] std::vector<std::string> all_ranks(const std::string& mine) override;
  [[nodiscard]] std::span<const Target> targets() const override { return targets_; }
  [[nodiscard]] const Engine& engine() const override { return engine_; }
  [[nodiscard]] std::uint64_t seed() const override { return result_.seed; }
  void set_attribute(const std::string& key, AttributeValue value) override {
    for (auto& [k, v] : result_.attributes) {
      if (k == key) {
        v = std::move(value);
        return;
      }
    }
    result_.attributes.emplace_back(key, std::move(value));
  }
  void warn(const std::string& message) override { result_.warnings.push_back(message); }
  void skip_remaining_phases(const std::string& reason) override { skip_reason_ = reason; }
  /// report_prepare_progress() on this context: to `on_progress`'s function, if any.
  void report_progress(std::uint64_t done, std::uint64_t total) {
    if (on_progress_) on_progress_(done, total);
  }
  /// Where report_progress() goes (the step's set-up progress); empty: nowhere.
  void on_progress(std::function<void(std::uint64_t, std::uint64_t)> show) {
    on_progress_ = std::move(show);
  }
  /// Set by skip_remaining_phases(): why the phases after the current one do not run.
  [[nodiscard]] const std::optional<std::string>& skip_reason() const { return skip_reason_; }

 private:
  std::span<const Target> targets_;
  const Engine& engine_;
  StepResult& result_;
  StepSync& sync_;
  std::optional<std::string> skip_reason_;
  std::function<void(std::uint64_t, std::uint64_t)> on_progress_;
};

/// What a step result's status reports at a checkpoint (kNone unless failed or interrupted).
[[nodiscard]] StepSync::Kind sync_kind(Status status);

/// Applies the checkpoint that ended a step on another rank's problem (`verdict`, as
/// StepSync::sync() returned it) to this rank's result: lost ranks fail it, another rank's skip
/// becomes a warning, another's failure or interruption its status unless its own says more.
void take_verdict(const StepSync& sync, const std::string& verdict, StepResult& result);

/// An ok phase some of whose workers ended inside the warm-up: say so in the step's warnings.
void warn_unmeasured_workers(const PhaseResult& phase, PrepareContext& context);

}  // namespace iobench::detail
