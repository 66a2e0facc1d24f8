// bonnie++ CSV lines (bonnie_tiobench.md A.10) into a document: one step "bonnie" per line
// (several lines: repetitions, as `bonnie++ -x N` writes them). Layouts by field count:
//   1.0x  27 fields: name,size, 6 x (rate,cpu), num_files, 6 x (rate,cpu)          (no latency)
//   1.97  48 fields: format_version,bonnie_version,name,concurrency,seed,size,chunk, 6 x (rate,
//         cpu), num_files,max,min,dirs,file_chunk, 6 x (rate,cpu), 12 latencies   (1.96 alike)
//   1.98  50 fields: 1.97 with seeks and seek_proc_count after chunk
// A 1.96 line of a `-s 0` run has one field fewer in its (empty) I/O part (Debian #660564).
#include <fmt/format.h>

#include <iobench/printable.hpp>

#include "report/classic/bonnie_cells.hpp"

namespace iobench::detail::classic {

namespace {

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t comma = line.find(',');
    out.push_back(trimmed(line.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    line.remove_prefix(comma + 1);
  }
}

// Where a layout keeps its parts.
struct Layout {
  std::size_t name, size, io, num_files, files, latency;  // latency: 0 = none
  std::size_t fields;
};

constexpr Layout kLayout10x{0, 1, 2, 14, 15, 0, 27};
constexpr Layout kLayout197{2, 5, 7, 19, 24, 36, 48};
constexpr Layout kLayout198{2, 5, 9, 21, 26, 38, 50};

// Digits only: a count such as num_dirs (a file chunk size may carry a k or m).
bool is_count(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

void set_param(StepResult& step, const char* key, std::string_view value) {
  if (!value.empty()) step.params[key] = std::string(value);
}

}  // namespace

ResultDocument read_bonnie_csv(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kBonnieCsv);
  for (const Line& line : lines_of(text)) {
    if (line.text.empty()) continue;
    // Header lines: 1.0x "name,file_size,...", 1.9x "format_version,bonnie_version,...".
    if (line.text.starts_with("name,") || line.text.starts_with("format_version,")) continue;
    std::vector<std::string_view> f = fields_of(line.text);
    const std::string_view format = f.front();
    Layout layout = kLayout10x;
    if (format == "1.98") {
      layout = kLayout198;
    } else if (format == "1.96" || format == "1.97") {
      layout = kLayout197;
      if (format == "1.96" && f.size() == 47) f.insert(f.begin() + 5, std::string_view());
    } else if (f.size() != 27) {
      fail(source, line.number,
           fmt::format("expected a bonnie++ CSV line: format 1.96, 1.97 or 1.98 first, or the "
                       "27 fields of 1.0x; got {} fields starting '{}'",
                       f.size(), printable(format)));
    }
    if (f.size() != layout.fields) {
      fail(source, line.number,
           fmt::format("expected {} fields in a bonnie++ {} CSV line, got {}", layout.fields,
                       layout.latency == 0 ? std::string("1.0x") : std::string(format), f.size()));
    }
    StepResult& step = add_step(document, "bonnie", "bonnie");
    if (layout.latency != 0) {
      document.source->tool_version = std::string(f[1]);
      set_param(step, "bonnie_version", f[1]);
      set_param(step, "concurrency", f[3]);
      set_param(step, "seed", f[4]);
      set_param(step, "chunk_size", f[6]);
      if (layout.fields == 50) {
        set_param(step, "seeks", f[7]);
        set_param(step, "seekers", f[8]);
      }
      set_param(step, "max_size", f[layout.num_files + 1]);
      set_param(step, "min_size", f[layout.num_files + 2]);
      if (layout.fields == 50 && f[layout.num_files + 3].empty() &&
          is_count(f[layout.num_files + 4])) {
        // bonnie++ 1.98-2.00a write num_dirs one column late, in file_chunk_size's place, and
        // leave num_dirs' own empty (bonnie_tiobench.md A.10). iobench writes both in their
        // own columns, a file chunk with bonnie++'s k/m unit where it has one (print_size).
        set_param(step, "num_dirs", f[layout.num_files + 4]);
      } else {
        set_param(step, "num_dirs", f[layout.num_files + 3]);
        set_param(step, "file_chunk_size", f[layout.num_files + 4]);
      }
    } else {
      document.source->tool_version = "1.0x";
    }
    set_param(step, "size", f[layout.size]);
    set_param(step, "files", f[layout.num_files]);
    if (document.run.steps.size() == 1) {
      document.run.environment.hostname = std::string(f[layout.name]);
    } else if (document.run.environment.hostname != f[layout.name]) {
      not_mapped(
          document, line.number,
          fmt::format("machine name '{}' differs from the first line's '{}'; read as a "
                      "repetition of step bonnie",
                      printable(f[layout.name]), printable(document.run.environment.hostname)));
    }
    set_param(step, "name", f[layout.name]);
    for (std::size_t test = 0; test < kBonniePhases.size(); ++test) {
      const std::size_t at = test <= kBonnieSeeks ? layout.io + 2 * test
                                                  : layout.files + 2 * (test - kBonnieSeeks - 1);
      const std::string_view latency =
          layout.latency == 0 ? std::string_view() : f[layout.latency + test];
      add_bonnie_phase(step, test, BonnieCells{f[at], f[at + 1], latency}, source, line.number);
    }
    if (step.phases.empty()) {
      fail(source, line.number, "expected bonnie++ results, got a line where no test ran");
    }
  }
  if (document.run.steps.empty()) fail(source, 1, "expected bonnie++ CSV lines, found none");
  place_repetitions(document);
  return document;
}

}  // namespace iobench::detail::classic
