#include "plugins/bonnie/report_header.hpp"

#include <charconv>
#include <string_view>
#include <variant>

namespace iobench::plugins::bonnie {
namespace {

std::string_view kind_text(FileKind kind) {
  switch (kind) {
    case FileKind::kHardLink:
      return "link";
    case FileKind::kSymlink:
      return "symlink";
    case FileKind::kRegular:
      break;
  }
  return "regular";
}

const AttributeValue* find(const StepResult& step, std::string_view key) {
  for (const auto& [name, value] : step.attributes) {
    if (name == key) return &value;
  }
  return nullptr;
}

template <typename T>
void read_int(const StepResult& step, std::string_view key, T& out) {
  if (const AttributeValue* v = find(step, key)) {
    if (const auto* i = std::get_if<std::int64_t>(v); i != nullptr && *i >= 0) {
      out = static_cast<T>(*i);
    }
  }
}

void read_text(const StepResult& step, std::string_view key, std::string& out) {
  if (const AttributeValue* v = find(step, key)) {
    if (const auto* s = std::get_if<std::string>(v)) out = *s;
  }
}

}  // namespace

ReportHeader make_report_header(const BonnieConfig& config, std::uint64_t seed) {
  bool io_measured = false;
  bool files_measured = false;
  for (const PlannedPhase& p : config.plan) {
    if (!p.measured) continue;
    (is_io_phase(p.id) ? io_measured : files_measured) = true;
  }
  ReportHeader h;
  h.machine = config.machine;
  h.file_size_mib = io_measured ? config.io.size_mib : 0;
  h.io_chunk_bytes = config.io.chunk_bytes;
  h.seeks = config.io.seeks;
  h.seekers = config.io.seekers;
  h.per_char_mib = config.per_char_mib;
  h.copies = config.copies;
  h.seed = seed;
  h.files = config.files;
  if (!files_measured) h.files.num_k = 0;
  h.repetitions = config.repetitions;
  h.format = config.report_format;
  return h;
}

std::vector<std::pair<std::string, AttributeValue>> to_attributes(const ReportHeader& h) {
  const auto i = [](std::uint64_t v) { return AttributeValue{static_cast<std::int64_t>(v)}; };
  return {
      {"machine", AttributeValue{h.machine}},
      {"file_size_mib", i(h.file_size_mib)},
      {"io_chunk_bytes", i(h.io_chunk_bytes)},
      {"seeks", i(h.seeks)},
      {"seekers", i(h.seekers)},
      {"per_char_mib", i(h.per_char_mib)},
      {"copies", i(h.copies)},
      // As text: a 64-bit seed does not fit the signed integer attribute.
      {"seed", AttributeValue{std::to_string(h.seed)}},
      {"num_files_k", i(h.files.num_k)},
      {"file_kind", AttributeValue{std::string(kind_text(h.files.kind))}},
      {"max_size_bytes", i(h.files.max_bytes)},
      {"min_size_bytes", i(h.files.min_bytes)},
      {"num_dirs", i(h.files.dirs)},
      {"file_chunk_bytes", i(h.files.chunk_bytes)},
      {"repetitions", i(h.repetitions)},
      {"report_format",
       AttributeValue{std::string(h.format == ReportFormat::kV197 ? "1.97" : "2.00")}},
  };
}

ReportHeader read_report_header(const StepResult& step) {
  ReportHeader h;
  h.machine = step.name;
  read_text(step, "machine", h.machine);
  read_int(step, "file_size_mib", h.file_size_mib);
  read_int(step, "io_chunk_bytes", h.io_chunk_bytes);
  read_int(step, "seeks", h.seeks);
  read_int(step, "seekers", h.seekers);
  read_int(step, "per_char_mib", h.per_char_mib);
  read_int(step, "copies", h.copies);
  h.seed = step.seed;
  std::string seed;
  read_text(step, "seed", seed);
  if (!seed.empty()) {
    std::from_chars(seed.data(), seed.data() + seed.size(), h.seed);
  }
  read_int(step, "num_files_k", h.files.num_k);
  std::string kind;
  read_text(step, "file_kind", kind);
  if (kind == "link") h.files.kind = FileKind::kHardLink;
  if (kind == "symlink") h.files.kind = FileKind::kSymlink;
  read_int(step, "max_size_bytes", h.files.max_bytes);
  read_int(step, "min_size_bytes", h.files.min_bytes);
  read_int(step, "num_dirs", h.files.dirs);
  read_int(step, "file_chunk_bytes", h.files.chunk_bytes);
  read_int(step, "repetitions", h.repetitions);
  std::string format;
  read_text(step, "report_format", format);
  if (format == "1.97") h.format = ReportFormat::kV197;
  if (h.copies == 0) h.copies = 1;
  if (h.repetitions == 0) h.repetitions = 1;
  return h;
}

}  // namespace iobench::plugins::bonnie
