#pragma once

#include <iobench/coordinator.hpp>
#include <optional>
#include <string>
#include <vector>

namespace iobench::detail {

/// The checkpoints of one step across ranks. Every rank calls sync() at the same points (after
/// prepare, at each phase's barrier, after each phase); the first checkpoint where some rank
/// reports a problem is the last of the step for every rank (all of them stop there), and a rank
/// that leaves the step early (an exception) calls catch_up() once, where the others are waiting.
/// So every rank makes the same collectives. Without a coordinator (or alone) it does nothing.
class StepSync {
 public:
  /// What a rank reports at a checkpoint.
  enum class Kind { kNone, kFailed, kInterrupted, kSkip };
  /// Thrown by the runner to leave a step that a checkpoint ended (not an error of its own).
  struct Ended {};

  explicit StepSync(Coordinator* coordinator) : coordinator_(coordinator) {}

  /// True when there are other ranks to agree with.
  [[nodiscard]] bool active() const noexcept {
    return coordinator_ != nullptr && coordinator_->ranked();
  }
  /// The coordinator (active() only).
  [[nodiscard]] Coordinator& coordinator() const noexcept { return *coordinator_; }

  /// Collective checkpoint: shares what this rank reports; returns, if some rank reported a
  /// problem (or the ranks were lost), its description: "rank R (HOST): message" per rank with
  /// one, the worst kind first. nullopt: go on. After a problem, later calls return it again
  /// without any collective.
  std::optional<std::string> sync(Kind kind, const std::string& message);
  /// Collective checkpoint that also shares a text: as sync(kNone, ...) with `mine` travelling
  /// with it. Returns every rank's text, indexed by rank, or nullopt if some rank reported a
  /// problem at it (or the ranks were lost): the step ends there, as after sync() gave a verdict.
  /// A rank catching up (catch_up()) meets the others here too.
  std::optional<std::vector<std::string>> exchange(const std::string& mine);
  /// A rank that stops early: the one checkpoint the others are waiting at, unless this rank
  /// already passed the step's last one.
  void catch_up(Kind kind, const std::string& message);

  /// True after a checkpoint that ended the step.
  [[nodiscard]] bool ended() const noexcept { return verdict_.has_value(); }
  /// The ending checkpoint's description (as sync() returned it); nullopt before.
  [[nodiscard]] const std::optional<std::string>& verdict() const noexcept { return verdict_; }
  /// The worst kind reported at the ending checkpoint by any rank (kNone before).
  [[nodiscard]] Kind worst() const noexcept { return worst_; }
  /// True if the ending checkpoint had a problem of this rank's own.
  [[nodiscard]] bool own_problem() const noexcept { return own_; }

 private:
  /// sync(); with `texts`, every rank's message is stored there when no rank has a problem.
  std::optional<std::string> checkpoint(Kind kind, const std::string& message,
                                        std::vector<std::string>* texts);

  Coordinator* coordinator_;
  std::optional<std::string> verdict_;
  Kind worst_ = Kind::kNone;
  bool own_ = false;
};

}  // namespace iobench::detail
