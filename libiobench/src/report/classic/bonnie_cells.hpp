#pragma once

// bonnie++'s twelve tests as iobench's bonnie phases, and its cells (rates, CPU, latencies)
// read into ReportedFigures: shared by the CSV and the text-table readers.

#include <array>
#include <cstddef>
#include <string_view>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

/// bonnie++'s tests in its order, by iobench's bonnie phase names (plugins/bonnie/phases.cpp).
inline constexpr std::array<std::string_view, 12> kBonniePhases{
    "putc",       "put_block", "rewrite", "getc",       "get_block", "seeks",
    "seq_create", "seq_stat",  "seq_del", "ran_create", "ran_stat",  "ran_del"};
/// Tests 0..4 report a rate in K/sec; 5 (seeks) seeks/s; 6..11 files/s.
inline constexpr std::size_t kBonnieSeeks = 5;

/// One test's cells as printed: rate, CPU and latency (empty: the source has no such cell).
struct BonnieCells {
  std::string_view rate;
  std::string_view cpu;
  std::string_view latency;
};

/// Adds phase kBonniePhases[test] to `step` from `cells`, or nothing when the rate and CPU
/// cells are empty (the test did not run). A bad cell fails with SOURCE:LINE naming the test.
void add_bonnie_phase(StepResult& step, std::size_t test, const BonnieCells& cells,
                      std::string_view source, std::size_t line);

}  // namespace iobench::detail::classic
