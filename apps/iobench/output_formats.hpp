#pragma once

// The output formats of --format, in one table: the option's validation, its help text, the
// shell completions and what run, validate, compare and history write all read it, so a new
// format is one file under formats/ plus one registration line in output_formats.cpp
// (docs/adding-an-output-format.md).

#include <iobench/compare.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_history.hpp>
#include <iobench/suite.hpp>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::cli {

/// Where a run's --format output goes, for RunOutput::prepare.
struct RunOutputTarget {
  const SuitePlan& plan;
  const Registry& registry;
  const std::string& output_path;  ///< -o FILE; empty: standard output
  std::ostream& stdout_stream;     ///< standard output
  std::ostream& file_text;         ///< what -o FILE gets (written once the run has ended)
  std::ostream& err;               ///< notes for the user
};

/// What `run --format NAME` adds to a run: reporters and files set up before it, its part of
/// the output written after it. The text report itself is always made (see OutputFormat).
class RunOutput {
 public:
  virtual ~RunOutput() = default;
  /// Before the run (input valid): adds reporters to `reporters`, opens files beside -o.
  virtual void prepare(const RunOutputTarget& target, ReporterSet& reporters);
  /// Whether write() needs the run's result document (suite_to_json).
  [[nodiscard]] virtual bool wants_document() const { return false; }
  /// After the run: writes the format's output to `machine` (-o FILE or stdout); `document` is
  /// the result document when wants_document(), else empty.
  virtual void write(const std::string& document, std::ostream& machine);
  /// After -o is written: commits the files prepare() opened. Returns false (and says why on
  /// `err`) if one could not be written.
  [[nodiscard]] virtual bool commit_files(std::ostream& err);
};

/// Writes a compare result in a format.
using ComparisonWriter = void (*)(const Comparison& comparison, std::ostream& out);
/// Writes a history listing (ResultHistory::runs) in a format.
using HistoryWriter = void (*)(const std::vector<HistoryRun>& runs, std::ostream& out);
/// Makes the run part of a format.
using RunOutputFactory = std::unique_ptr<RunOutput> (*)();

/// One --format: its name and what each command that offers it does with it; a null member means
/// that command refuses the name.
struct OutputFormat {
  std::string_view name;  ///< as --format takes it: lowercase, no blanks
  /// run, validate: the text report is this format's output (it goes to -o FILE); for any other
  /// format the text report goes beside it (stdout with -o FILE, else stderr).
  bool is_text_report = false;
  RunOutputFactory run = nullptr;      ///< run and validate
  ComparisonWriter compare = nullptr;  ///< compare
  HistoryWriter history = nullptr;     ///< history
};

/// The commands with a --format.
enum class FormatCommand { kRun, kCompare, kHistory };

/// Every registered format, in the order --help, completions and error messages list them.
[[nodiscard]] std::span<const OutputFormat> output_formats();

/// The names `command` takes, in table order.
[[nodiscard]] std::vector<std::string> output_format_names(FormatCommand command);

/// The format `name` of `command`. Throws ConfigError "--format 'NAME' is not one of A, B, C"
/// (the names `command` takes) for any other name.
[[nodiscard]] const OutputFormat& find_output_format(std::string_view name, FormatCommand command);

/// The names `command` takes as a phrase: "text, json or csv".
[[nodiscard]] std::string output_format_choices(FormatCommand command);

/// --format's help text: the names of run and validate, then those only compare or history take.
[[nodiscard]] std::string output_format_help();

}  // namespace iobench::cli
