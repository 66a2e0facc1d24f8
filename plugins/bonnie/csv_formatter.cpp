#include "plugins/bonnie/csv_formatter.hpp"

#include <fmt/format.h>

#include <ostream>
#include <vector>

#include "plugins/bonnie/cell_text.hpp"
#include "plugins/bonnie/phases.hpp"

namespace iobench::plugins::bonnie {
namespace {

constexpr std::string_view kHeadStart = "format_version,bonnie_version,name,concurrency,seed,";
constexpr std::string_view kHeadIo198 = "file_size,io_chunk_size,seek_count,seek_proc_count,";
constexpr std::string_view kHeadIo197 = "file_size,io_chunk_size,";
constexpr std::string_view kHeadFiles = "num_files,max_size,min_size,num_dirs,file_chunk_size,";

/// "NAME,NAME_cpu," for the six phases from `first` on (the columns add_cells() fills).
void add_rate_columns(std::string& header, PhaseId first) {
  for (std::size_t i = index_of(first); i < index_of(first) + 6; ++i) {
    header += fmt::format("{0},{0}_cpu,", kPhaseNames[i]);
  }
}

/// The columns after the I/O test's sizes: rates and CPU of the I/O phases, the file test's
/// sizes, rates and CPU of the file phases, then every phase's latency.
std::string head_rest() {
  std::string rest;
  add_rate_columns(rest, PhaseId::kPutc);
  rest += kHeadFiles;
  add_rate_columns(rest, PhaseId::kSeqCreate);
  rest += fmt::format("{}_latency", fmt::join(kPhaseNames, "_latency,"));
  return rest;
}

void add_cells(std::vector<std::string>& fields, const ReportRow& row, PhaseId first) {
  for (std::size_t i = index_of(first); i < index_of(first) + 6; ++i) {
    const auto id = static_cast<PhaseId>(i);
    fields.push_back(csv_rate(id, row.cells[i]));
    fields.push_back(csv_cpu(row.cells[i]));
  }
}

}  // namespace

std::string csv_header(ReportFormat format) {
  std::string header(kHeadStart);
  header += format == ReportFormat::kV197 ? kHeadIo197 : kHeadIo198;
  header += head_rest();
  return header;
}

std::string csv_line(const ReportHeader& h, const ReportRow& row) {
  const bool legacy = h.format == ReportFormat::kV197;
  std::vector<std::string> fields;
  fields.reserve(kCsvFields198);
  fields.emplace_back(legacy ? "1.97" : "1.98");
  fields.emplace_back(legacy ? kLegacyBonnieVersion : kBonnieVersion);
  fields.push_back(row.name);
  fields.push_back(std::to_string(h.copies));
  fields.push_back(std::to_string(h.seed));

  const std::size_t io_fields = legacy ? 14 : 16;
  if (h.file_size_mib > 0) {
    fields.push_back(print_size(h.file_size_mib, "MG"));
    fields.push_back(h.io_chunk_bytes == kDefaultChunkBytes ? std::string{}
                                                            : print_size(h.io_chunk_bytes, " km"));
    if (!legacy) {
      fields.push_back(std::to_string(h.seeks));
      fields.push_back(std::to_string(h.seekers));
    }
    add_cells(fields, row, PhaseId::kPutc);
  } else {
    fields.resize(fields.size() + io_fields);
  }

  if (h.files.num_k > 0) {
    const FileSpec& f = h.files;
    fields.push_back(std::to_string(f.num_k));
    switch (f.kind) {
      case FileKind::kHardLink:
        fields.emplace_back("link");
        break;
      case FileKind::kSymlink:
        fields.emplace_back("symlink");
        break;
      case FileKind::kRegular:
        fields.push_back(f.max_bytes != 0 ? std::to_string(f.max_bytes) : std::string{});
        break;
    }
    fields.push_back(f.min_bytes != 0 ? std::to_string(f.min_bytes) : std::string{});
    fields.push_back(f.dirs > 1 ? std::to_string(f.dirs) : std::string{});
    fields.push_back(f.chunk_bytes != kDefaultChunkBytes ? print_size(f.chunk_bytes, " km")
                                                         : std::string{});
    add_cells(fields, row, PhaseId::kSeqCreate);
  } else {
    fields.resize(fields.size() + 17);
  }

  for (const PhaseId id : kAllPhases) {
    fields.push_back(format_latency(row.cells[index_of(id)].latency_ns));
  }
  return fmt::format("{}", fmt::join(fields, ","));
}

void format_csv(const Report& report, std::ostream& out) {
  if (report.header.repetitions > 1) out << csv_header(report.header.format) << '\n';
  for (const ReportRow& row : report.rows) out << csv_line(report.header, row) << '\n';
}

void format_csv_step(const StepResult& step, std::ostream& out) {
  format_csv(build_report(step), out);
}

}  // namespace iobench::plugins::bonnie
