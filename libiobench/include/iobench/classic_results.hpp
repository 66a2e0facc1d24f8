#pragma once

/// Results people already have, read as they are: bonnie++'s CSV and text tables, tiotest's
/// tables and terse lines, tiobench.pl's tables, dbench's final output, fio's JSON, the
/// seeds' "Completed writing ..." lines and mdtest's SUMMARY rate table, each mapped onto a
/// ResultDocument so that `iobench compare` and `iobench report` take them beside iobench's own
/// JSON.
///
/// A classic result carries only the figures its source printed: each phase has
/// PhaseResult::reported (ReportedFigures: throughput, IOPS, latency mean/max/percentiles, CPU)
/// and no op kinds; a figure the source lacks is absent, never 0; bonnie++'s "+++++" is kept as
/// "too fast to measure". Phase names are those of iobench's own workloads where the family
/// matches (bonnie: putc, put_block, rewrite, getc, get_block, seeks, seq_create, seq_stat,
/// seq_del, ran_create, ran_stat, ran_del; tiotest/tiobench: Write, Random Write, Read, Random
/// Read; dbench: execute; mdtest: "File creation", "Tree removal"...). Facts the source states
/// (bonnie++'s machine name, size, version; fio's version; dbench's procs) go into the environment
/// and the step params; what cannot be mapped is listed in ResultDocument::source->not_mapped.

#include <filesystem>
#include <iobench/error.hpp>
#include <iobench/result_json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace iobench {

/// The formats read_result_file reads.
enum class ResultFormat {
  kAuto,         ///< detect from the text (detect_result_format)
  kIobenchJson,  ///< iobench's own result document (parse_result_json)
  kBonnieCsv,    ///< bonnie++ CSV lines: 1.0x (27 fields), 1.96, 1.97 (48), 1.98 (50)
  kBonnieText,   ///< bonnie++'s (or Bonnie's) text table, also as pasted and wrapped in mail
  kTiotest,      ///< tiotest's result and latency tables, or its terse (-T) lines
  kTiobench,     ///< tiobench.pl's report tables
  kDbench,       ///< dbench's final output: 2.x/3.x "Throughput" lines, 4.x op table + line
  kFioJson,      ///< fio 3.x --output-format=json (also with --group_reporting)
  kSeedLines,    ///< "Completed writing|reading N mbytes across ..." lines (seed reports)
  kMdtest,       ///< mdtest's text output: its SUMMARY rate table (a phase per row, Mean ops/s)
  kFilebench,    ///< filebench's output: Per-Operation Breakdown and IO Summary (phase "run")
};

/// The name --from takes: "auto", "iobench-json", "bonnie-csv", "bonnie-text", "tiotest",
/// "tiobench", "dbench", "fio-json", "seed-lines", "mdtest", "filebench".
[[nodiscard]] std::string_view to_string(ResultFormat format) noexcept;
/// Every format but kAuto, in the order of the enum.
[[nodiscard]] std::span<const ResultFormat> result_formats() noexcept;
/// The format named `name` (to_string). Throws ConfigError naming `name` and the valid names.
[[nodiscard]] ResultFormat parse_result_format(std::string_view name);

/// The format of `text` by its marks: a JSON object with "schema" (iobench) or "fio version"
/// (fio); "Completed writing|reading"; "Tiotest results for" or terse "write:" lines;
/// tiobench.pl's "Identifier ... Rate (CPU%)" header; mdtest's "SUMMARY rate"; filebench's
/// "Per-Operation Breakdown" with "IO Summary:"; dbench's "Throughput
/// N MB/sec"; the bonnie++ text headers ("Sequential Output"); else comma-separated lines of
/// bonnie++'s field counts. Throws ConfigError (with `source_name`) when none matches.
[[nodiscard]] ResultFormat detect_result_format(std::string_view text,
                                                std::string_view source_name = "input");

/// Reads `text` in `format` (kAuto: detect_result_format) into a document. `source_name` (a
/// file name) starts every error message. A pure function of its arguments.
///
/// Throws ConfigError "SOURCE:LINE: what was expected, what was found" (fio and iobench JSON:
/// "SOURCE: POINTER: ...") when the text is not that format or has nothing to compare.
[[nodiscard]] ResultDocument parse_result_text(std::string_view text, ResultFormat format,
                                               std::string_view source_name = "input");

/// Reads the file `path` in `format` (kAuto: detected) into a document: iobench's own JSON
/// (as load_result_file) or any classic format above. Throws ConfigError naming the path when
/// it cannot be read (or is a directory), else what parse_result_text throws.
[[nodiscard]] ResultDocument read_result_file(const std::filesystem::path& path,
                                              ResultFormat format = ResultFormat::kAuto);

}  // namespace iobench
