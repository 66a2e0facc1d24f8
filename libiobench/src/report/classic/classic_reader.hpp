#pragma once

// Pieces the classic-result readers share (classic_results.hpp): lines with mail quoting taken
// off, whitespace tokens, exact number parsing, "source:line: ..." errors and the document
// skeleton every reader fills.

#include <cstddef>
#include <cstdint>
#include <iobench/classic_results.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::detail::classic {

/// One line of the input: 1-based number, text without "\r", without mail quote markers
/// ("> ", ">>", "> >") and without leading blanks (`raw` keeps the blanks, for fixed columns).
struct Line {
  std::size_t number = 0;
  std::string_view text;
  std::string_view raw;  ///< without "\r" and quote markers, leading blanks kept
};

[[nodiscard]] std::vector<Line> lines_of(std::string_view text);
/// Whitespace-separated tokens.
[[nodiscard]] std::vector<std::string_view> tokens_of(std::string_view text);
/// A whole token as a finite decimal number ("12", "-3.5", "1e3"); nullopt otherwise.
[[nodiscard]] std::optional<double> number_of(std::string_view token);
/// `text` without leading and trailing blanks.
[[nodiscard]] std::string_view trimmed(std::string_view text);

/// Throws ConfigError "SOURCE:LINE: WHAT".
[[noreturn]] void fail(std::string_view source, std::size_t line, const std::string& what);

/// An empty document of a classic `format` (schema kResultSchema, run ok, source set).
[[nodiscard]] ResultDocument classic_document(ResultFormat format);
/// A new ok step `name` of `workload` at the end of `document`.
StepResult& add_step(ResultDocument& document, std::string name, std::string workload);
/// A new ok phase `name` of `step` with empty ReportedFigures.
PhaseResult& add_phase(StepResult& step, std::string name);
/// The phase's figures (add_phase made them).
[[nodiscard]] ReportedFigures& figures(PhaseResult& phase);
/// `seconds` in ns; 0 (not known) for a negative, non-finite or out-of-range figure.
[[nodiscard]] std::uint64_t ns_of_seconds(double seconds);
/// A reported value.
[[nodiscard]] ReportedFigure figure(double value);
/// Notes `what` (of line `line`; 0: the whole input) as not mapped.
void not_mapped(ResultDocument& document, std::size_t line, const std::string& what);
/// Makes the steps repetitions of one step (placements: step name, `point`, repetition 1, 2,
/// ...) when there are several results of the same step; one result needs none.
void place_repetitions(ResultDocument& document);

// The readers, one per format (`source`: the name errors start with).
[[nodiscard]] ResultDocument read_bonnie_csv(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_bonnie_text(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_tiotest(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_tiobench(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_dbench(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_fio_json(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_seed_lines(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_mdtest(std::string_view text, std::string_view source);
[[nodiscard]] ResultDocument read_filebench(std::string_view text, std::string_view source);

}  // namespace iobench::detail::classic
