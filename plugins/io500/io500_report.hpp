#pragma once

// The io500 workload's text report: iobench's per-phase tables, then IO500's [RESULT] and
// [SCORE ] lines with the validity verdict.

#include <iobench/result.hpp>
#include <iosfwd>
#include <vector>

#include "plugins/io500/score.hpp"

namespace iobench::plugins::io500 {

/// The figures of an io500 step's phases as IO500 rates them: ior phases in GiB/s of their
/// transfers over the phase's wall time, mdtest phases in kIOPS of their items, find in kIOPS
/// of the entries it examined (find_figure); a phase that did not end ok carries its status and
/// message as its failure, and a read phase whose "mismatches" counter is above 0 (data that was
/// not the pattern its write phase wrote, ior -R / mdtest -X) is not valid, saying how many.
[[nodiscard]] std::vector<PhaseFigure> phase_figures(const StepResult& step);
/// The rules the step ran under: its stonewall time and whether it is io500-quick (the step's
/// "stonewall_s" and "quick" attributes).
[[nodiscard]] ValidityRules validity_rules(const StepResult& step);
/// One line per ior write phase its stonewall cut short (the step's "stonewall.<phase>"
/// attribute, Io500Workload's): "ior-easy-write: stonewall hit after ..." with the bytes written
/// by the stonewall, IO500's throughput-stonewall and the bytes after the wear-out.
void write_stonewall_lines(const StepResult& step, std::ostream& out);
/// The registered "text" formatter of io500 steps: iobench's tables, the stonewall lines, the
/// "cache_proof" attribute, IO500's [RESULT]/[SCORE ]/[INVALID] lines of the scored phases, then
/// the extended phases' own section (write_extended_lines) when they ran.
void format_io500_text(const StepResult& step, std::ostream& out);

}  // namespace iobench::plugins::io500
