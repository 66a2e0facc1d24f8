#pragma once

// Hand-built result documents with fixed figures for the compare tests: each goes through
// to_json and parse_result_json, as a saved file would.

#include <cstdint>
#include <iobench/compare.hpp>
#include <iobench/explain.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace iobench::test {

/// A phase of `ops` ops of `op_bytes` each in `wall_ns`: ops - 1 of them take `latency_ns`, the
/// last 10 x `latency_ns`. Process CPU: user wall / 10, system wall / 5; one worker.
[[nodiscard]] PhaseResult compare_phase(const std::string& name, std::uint64_t wall_ns,
                                        std::uint64_t ops, std::uint64_t op_bytes,
                                        std::uint64_t latency_ns);

/// compare_phase "write": 1000 ops of 1 MiB in `wall_ns`, 100 us each (the last 1 ms).
[[nodiscard]] PhaseResult compare_write_phase(std::uint64_t wall_ns);
/// compare_phase "read": 1000 ops of 1 MiB in `wall_ns`, `latency_ns` each (the last 10x).
[[nodiscard]] PhaseResult compare_read_phase(std::uint64_t wall_ns,
                                             std::uint64_t latency_ns = 50'000);

/// The comparison as write_comparison_text prints it.
[[nodiscard]] std::string comparison_text(const Comparison& comparison);

/// A disk step `name` with `phases`, params bs=4096 and operation=write, engine psync, target
/// /mnt/a.
[[nodiscard]] StepResult compare_step(const std::string& name, std::vector<PhaseResult> phases);

/// The environment of bench01 (kernel 6.1, ext4 on /dev/sdb1 at /mnt/a, rw,relatime).
[[nodiscard]] Environment compare_environment();

/// A single-run document of `steps`.
[[nodiscard]] ResultDocument single_run_document(Environment environment,
                                                 std::vector<StepResult> steps);

/// A suite document: step "seq" repeated once per entry of `repetitions` (each entry the
/// step's phases of that repetition), placed as suite step "seq" without a sweep.
[[nodiscard]] ResultDocument repeated_document(
    Environment environment, const std::vector<std::vector<PhaseResult>>& repetitions);

/// The bytes loop_read_explanation's application read: 256 MiB.
inline constexpr std::uint64_t kLoopReadAppBytes = 256ULL << 20;

/// The explanation (explain_phase over crafted diskstats snapshots) of reading
/// kLoopReadAppBytes in 2 s on ext4 over loop0 (backed by a file on vda) while loop0 read
/// `sectors` 512-byte sectors and was busy `io_ms`.
[[nodiscard]] explain::PhaseExplanation loop_read_explanation(std::uint64_t sectors,
                                                              std::uint64_t io_ms);

/// `document` written by to_json and read back by parse_result_json.
[[nodiscard]] ResultDocument through_json(const ResultDocument& document);

/// `document` (to_json) written to `name` in `dir`, as `iobench run -o` writes it; its path.
std::string write_document(const TempDir& dir, const std::string& name,
                           const ResultDocument& document);

/// `phase` with the counters `names` = `values` (the phase and its one worker).
[[nodiscard]] PhaseResult with_counters(PhaseResult phase, const std::vector<std::string>& names,
                                        const std::vector<std::uint64_t>& values);

/// Step "md": a verifying read (items_done 100, `mismatches`) and a find (entries_scanned 500,
/// `matched`), each 100 ops in 1 s; the metrics alike whatever the counters.
[[nodiscard]] ResultDocument counter_document(std::uint64_t mismatches, std::uint64_t matched);

/// counter_document(3, 40) whose read phase ended failed, as iobench's data check fails it (its
/// message "data check (verify_read): 3 of the 100 files read did not hold the data pattern"):
/// the step failed too ("phase read failed").
[[nodiscard]] ResultDocument failed_read_document();

/// The entry of counter `name` in a phase of comparison_to_json's "phases"; fails the test
/// where the phase has no such counter.
[[nodiscard]] const nlohmann::json& counter_entry(const nlohmann::json& phase,
                                                  const std::string& name);

/// The index of column `name` in a CSV header row; fails the test if it is missing.
[[nodiscard]] std::size_t csv_column(const CsvRecord& header, const std::string& name);

}  // namespace iobench::test
