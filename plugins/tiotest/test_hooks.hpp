#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "plugins/tiotest/tiotest_config.hpp"

namespace iobench::plugins::tiotest {

/// Every offset one worker of one random phase used, in order (test mode only).
struct RandomOffsetLog {
  std::size_t phase_index = 0;   ///< index in Workload::phases()
  std::size_t worker_index = 0;  ///< the thread
  PhaseKind kind = PhaseKind::kRandomWrite;
  std::uint64_t generator_seed = 0;  ///< the seed of the worker's RandomOffsets
  std::uint64_t base_offset = 0;     ///< start of the thread's file or raw region
  std::uint64_t blocks = 0;          ///< blocks in the thread's file
  std::uint64_t block_size = 0;
  std::span<const std::uint64_t> offsets;  ///< byte offsets, valid during the call only
};

/// Observation points for tests. A production run has none installed and pays one predictable
/// branch per random op. Callbacks must not throw (they may run in a worker's destructor): record
/// what they see and let the test assert afterwards.
struct TestHooks {
  /// Called from a worker's thread after its timed run (untimed), once per worker of every random
  /// phase, with every offset it used. The offsets are kept in a buffer of random_ops entries
  /// allocated before the phase, so memory grows with the ops only in this test mode.
  std::function<void(const RandomOffsetLog& log)> on_random_offsets;
  /// Called in the runner's process after phase `phase_index` (named `phase_name`) ended, with the
  /// thread files of that phase's run (thread order). Between phases, so a test may alter a file
  /// (e.g. corrupt a block to exercise the consistency check).
  std::function<void(std::size_t phase_index, const std::string& phase_name,
                     const std::vector<std::filesystem::path>& files)>
      after_phase;
};

/// Installs `hooks` for workloads built from now on (nullptr removes them). The pointee must
/// outlive those workloads. REQUIRES: no tiotest workload is being built concurrently.
void set_test_hooks(const TestHooks* hooks) noexcept;
/// The hooks installed now, or nullptr.
[[nodiscard]] const TestHooks* installed_test_hooks() noexcept;

}  // namespace iobench::plugins::tiotest
