#pragma once

#include <cstdint>
#include <iobench/result.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plugins/bonnie/config.hpp"
#include "plugins/bonnie/spec_parser.hpp"

namespace iobench::plugins::bonnie {

/// bonnie++ release whose report layout is reproduced (text "Version" header, CSV column 1).
inline constexpr std::string_view kBonnieVersion = "2.00a";
inline constexpr std::string_view kLegacyBonnieVersion = "1.97";

/// What the report prints besides the per-phase figures: the test shape as bonnie++ prints it.
/// The workload stores it in the step's attributes (and so in JSON) and the formatters read it
/// back, so a result is printable without the workload object.
struct ReportHeader {
  std::string machine;
  /// I/O file size; 0 when no I/O phase was measured (bonnie++ -s 0).
  std::uint64_t file_size_mib = 0;
  std::uint32_t io_chunk_bytes = kDefaultChunkBytes;
  std::uint64_t seeks = kDefaultSeeks;
  std::uint32_t seekers = kDefaultSeekers;
  std::uint64_t per_char_mib = 0;
  std::uint32_t copies = 1;
  std::uint64_t seed = 0;
  /// The file test shape; files.num_k 0 when no file phase was measured (bonnie++ -n 0).
  FileSpec files;
  std::uint32_t repetitions = 1;
  ReportFormat format = ReportFormat::kV200;
  friend bool operator==(const ReportHeader&, const ReportHeader&) = default;
};

/// The header of a configured workload run with `seed`.
[[nodiscard]] ReportHeader make_report_header(const BonnieConfig& config, std::uint64_t seed);

/// The header as step attributes (keys: machine, file_size_mib, io_chunk_bytes, seeks, seekers,
/// per_char_mib, copies, seed, num_files_k, file_kind, max_size_bytes, min_size_bytes,
/// num_dirs, file_chunk_bytes, repetitions, report_format).
[[nodiscard]] std::vector<std::pair<std::string, AttributeValue>> to_attributes(
    const ReportHeader& header);

/// Reads the header back from `step`'s attributes; missing keys keep their defaults (machine:
/// the step name).
[[nodiscard]] ReportHeader read_report_header(const StepResult& step);

}  // namespace iobench::plugins::bonnie
