#pragma once

// compare's explain block (issue 29): each input's explanation of a phase summarised side by
// side, and which findings differ from the baseline's, as sentences naming both sides.
#include <iobench/compare.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace iobench::detail {

/// The explanations of one phase: `results` holds per input its ok results of the phase (the
/// first that carries an explanation is summarised). nullopt unless the baseline and another
/// input carry one.
[[nodiscard]] std::optional<ExplainComparison> explain_comparison(
    const std::vector<std::vector<const PhaseResult*>>& results);

/// The block's lines for people, without indent: the differing findings first, then the plain
/// lists, then the side-by-side figures as rows of cells (a title, one cell per input). Inputs
/// are named "#N" counting from `first_number` (compare's text: #0 the baseline; the HTML
/// report, which numbers its runs from 1: #1).
struct ExplainLines {
  std::vector<std::string> findings;
  std::vector<std::vector<std::string>> figures;
};
[[nodiscard]] ExplainLines explain_lines(const ExplainComparison& explain,
                                         std::size_t first_number = 0);

/// The block as text, under a phase's heading and before its metric table.
void write_explain_text(const ExplainComparison& explain, std::ostream& out);
/// The block as Markdown: a list of the findings, a pipe table of the figures.
void write_explain_markdown(const ExplainComparison& explain, std::ostream& out);
/// The block as JSON (comparison_to_json's phases[].explain).
[[nodiscard]] nlohmann::ordered_json explain_comparison_json(const ExplainComparison& explain);

}  // namespace iobench::detail
