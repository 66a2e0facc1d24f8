#pragma once

// A hand-built RunResult with fixed numbers, so reporter output can be compared exactly with the
// golden files in tests/report/golden/.
//
// Latencies are chosen so every reported percentile is an exact recorded value whatever point of
// a bucket the histogram reports: values below 256 ns have buckets of their own, a run's minimum
// is the last value of its bucket and its maximum the first of its bucket (the reported point is
// clamped to [min, max]). result_test.cpp checks these bucket facts.

#include <cstdint>
#include <iobench/result.hpp>

namespace iobench::test {

inline constexpr std::uint64_t kFastNs = 100'351;             // last value of its bucket
inline constexpr std::uint64_t kSlowNs = 1'548'288;           // first value of its bucket
inline constexpr std::uint64_t kSyncFastNs = 2'516'582'399;   // > 2 s, last of its bucket
inline constexpr std::uint64_t kSyncSlowNs = 12'079'595'520;  // > 10 s, first of its bucket

/// Three steps: "seqwrite" (workload disk, 2 workers on 2 targets, ok), "meta" (workload
/// custom-meta, one process worker, three op kinds, interrupted) and "broken" (workload disk,
/// failed before any phase). The run is interrupted.
[[nodiscard]] RunResult make_sample_run();

}  // namespace iobench::test
