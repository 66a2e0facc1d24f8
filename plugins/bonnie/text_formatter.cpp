#include "plugins/bonnie/text_formatter.hpp"

#include <fmt/format.h>

#include <ostream>

#include "plugins/bonnie/cell_text.hpp"

namespace iobench::plugins::bonnie {
namespace {

constexpr std::array kIoPhases{PhaseId::kPutc, PhaseId::kPutBlock, PhaseId::kRewrite,
                               PhaseId::kGetc, PhaseId::kGetBlock, PhaseId::kSeeks};
constexpr std::array kFilePhases{PhaseId::kSeqCreate,  PhaseId::kSeqStat,  PhaseId::kSeqDelete,
                                 PhaseId::kRandCreate, PhaseId::kRandStat, PhaseId::kRandDelete};
constexpr std::string_view kRateColumns =
    " /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP";

std::string_view version_text(const ReportHeader& h) {
  return h.format == ReportFormat::kV197 ? kLegacyBonnieVersion : kBonnieVersion;
}

/// Six rate+CPU cells, then the "Latency" line.
void write_cells(std::ostream& out, const ReportRow& row, std::span<const PhaseId, 6> phases,
                 bool legacy) {
  for (const PhaseId id : phases) {
    const Cell& cell = row.cells[index_of(id)];
    out << text_rate(id, cell, legacy) << text_cpu(cell);
  }
  out << "\nLatency          ";
  for (const PhaseId id : phases) {
    out << fmt::format(" {:>9}", format_latency(row.cells[index_of(id)].latency_ns));
  }
  out << '\n';
}

void write_io_block(std::ostream& out, const Report& report) {
  const ReportHeader& h = report.header;
  const bool legacy = h.format == ReportFormat::kV197;
  out << fmt::format(
      "Version {:>5}       ------Sequential Output------ --Sequential Input- "
      "--Random-\n",
      version_text(h));
  if (legacy) {
    out << fmt::format(
        "Concurrency {:3d}     -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- "
        "--Seeks--\n",
        h.copies);
    out << (h.io_chunk_bytes == kDefaultChunkBytes ? "Machine        Size "
                                                   : "Machine   Size:chnk ")
        << "K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n";
  } else {
    out << "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n";
    out << "Name:Size etc       " << kRateColumns << '\n';
  }
  const std::string size_text = legacy ? legacy_io_size_text(h) : io_size_text(h);
  for (const ReportRow& row : report.rows) {
    out << name_size_cell(row.name, size_text);
    write_cells(out, row, kIoPhases, legacy);
  }
}

void write_file_block(std::ostream& out, const Report& report) {
  const ReportHeader& h = report.header;
  const bool legacy = h.format == ReportFormat::kV197;
  out << fmt::format(
      "Version {:>5}       ------Sequential Create------ --------Random "
      "Create--------\n",
      version_text(h));
  out << fmt::format("{:<19.19} -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n",
                     h.machine);
  const bool has_max = h.files.kind != FileKind::kRegular || h.files.max_bytes != 0;
  if (h.files.min_bytes != 0) {
    out << "files:max:min       ";
  } else if (has_max) {
    out << "files:max           ";
  } else {
    out << "              files ";
  }
  out << kRateColumns << '\n';
  const std::string spec = file_spec_text(h);
  for (const ReportRow& row : report.rows) {
    out << (report.rows.size() == 1 ? fmt::format("{:>19}", spec) : name_size_cell(row.name, spec));
    write_cells(out, row, kFilePhases, legacy);
  }
}

}  // namespace

std::string io_size_text(const ReportHeader& h) {
  std::string text = print_size(h.file_size_mib, "MG");
  text += ':';
  if (h.io_chunk_bytes != kDefaultChunkBytes) text += print_size(h.io_chunk_bytes, " km");
  text += ':';
  if (h.copies != 1) text += std::to_string(h.copies);
  text += ':';
  if (h.seeks != kDefaultSeeks) text += std::to_string(h.seeks);
  text += ':';
  if (h.seekers != kDefaultSeekers) text += std::to_string(h.seekers);
  while (!text.empty() && text.back() == ':') text.pop_back();
  return text;
}

std::string legacy_io_size_text(const ReportHeader& h) {
  std::string text = h.file_size_mib % 1024 == 0 ? fmt::format("{}G", h.file_size_mib / 1024)
                                                 : fmt::format("{}M", h.file_size_mib);
  if (h.io_chunk_bytes != kDefaultChunkBytes) {
    text += h.io_chunk_bytes >= 1024 ? fmt::format(":{}k", h.io_chunk_bytes / 1024)
                                     : fmt::format(":{}", h.io_chunk_bytes);
  }
  return text;
}

std::string file_spec_text(const ReportHeader& h) {
  std::string text = std::to_string(h.files.num_k);
  switch (h.files.kind) {
    case FileKind::kHardLink:
      text += ":link";
      break;
    case FileKind::kSymlink:
      text += ":symlink";
      break;
    case FileKind::kRegular:
      if (h.files.max_bytes != 0) {
        text += fmt::format(":{}:{}", h.files.max_bytes, h.files.min_bytes);
      }
      break;
  }
  if (h.files.dirs > 1) text += fmt::format("/{}", h.files.dirs);
  return text;
}

void format_text(const Report& report, std::ostream& out) {
  const ReportHeader& h = report.header;
  if (h.file_size_mib > 0) write_io_block(out, report);
  if (h.files.num_k > 0) {
    write_file_block(out, report);
  } else {
    out << '\n';
  }
}

void format_text_step(const StepResult& step, std::ostream& out) {
  format_text(build_report(step), out);
  out << kUnitsNote;
  for (const std::string& warning : step.warnings) out << "WARNING: " << warning << '\n';
}

}  // namespace iobench::plugins::bonnie
