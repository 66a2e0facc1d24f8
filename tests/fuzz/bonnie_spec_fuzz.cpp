// Fuzz target: bonnie's `size` (bonnie++ -s size[:chunk[:seeks[:seekers]]]) and `files` (-n
// num[:max[:min[:dirs[:chunk]]]]) specs, its `phases` list, and the phase names its report
// model reads back ("put_block#2").
//
// Invariants: only ConfigError is thrown, naming the param; a parsed spec is within bonnie++'s
// limits (chunk a power of two in 256..1m, seekers <= 1024, min <= max, dirs 1..99999, files
// below the name-table limit) and, written out in full with plain numbers, parses to the same
// spec; the phases named one by one are selected, and listing the selected phases selects the
// same set; a phase name parses back from the name the plan gives it.
#include <fmt/format.h>

#include <bit>
#include <iobench/error.hpp>
#include <optional>
#include <string>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/spec_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace bonnie = iobench::plugins::bonnie;

template <typename Parse>
auto try_parse(Parse parse, std::string_view field) -> std::optional<decltype(parse())> {
  try {
    return parse();
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).find(field) != std::string_view::npos, e.what());
    return std::nullopt;
  }
}

void check_io_spec(std::string_view text) {
  const auto spec = try_parse([&] { return bonnie::parse_io_spec(text, "size"); }, "size");
  if (!spec) return;
  if (spec->size_mib == 0) {
    FUZZ_CHECK(bonnie::parse_io_spec("0", "size") == *spec, text);
    return;
  }
  FUZZ_CHECK(std::has_single_bit(spec->chunk_bytes) &&
                 spec->chunk_bytes >= bonnie::kMinChunkBytes &&
                 spec->chunk_bytes <= bonnie::kMaxChunkBytes,
             text);
  FUZZ_CHECK(spec->seekers <= 1024, text);
  FUZZ_CHECK(spec->size_mib * 1024 * 1024 >= spec->chunk_bytes, text);
  const std::string full =
      fmt::format("{}:{}:{}:{}", spec->size_mib, spec->chunk_bytes, spec->seeks, spec->seekers);
  FUZZ_CHECK(bonnie::parse_io_spec(full, "size") == *spec, full);
}

void check_file_spec(std::string_view text) {
  const auto spec = try_parse([&] { return bonnie::parse_file_spec(text, "files"); }, "files");
  if (!spec) return;
  FUZZ_CHECK(spec->num_k <= bonnie::kMaxNumFilesK, text);
  if (spec->num_k == 0) {
    FUZZ_CHECK(bonnie::parse_file_spec("0", "files") == *spec, text);
    return;
  }
  FUZZ_CHECK(spec->min_bytes <= spec->max_bytes, text);
  FUZZ_CHECK(spec->dirs >= 1 && spec->dirs <= bonnie::kMaxDirs, text);
  FUZZ_CHECK(spec->chunk_bytes >= 1, text);
  const std::string max = spec->kind == bonnie::FileKind::kHardLink ? "-1"
                          : spec->kind == bonnie::FileKind::kSymlink
                              ? "-2"
                              : std::to_string(spec->max_bytes);
  const std::string full = fmt::format("{}:{}:{}:{}:{}", spec->num_k, max, spec->min_bytes,
                                       spec->dirs, spec->chunk_bytes);
  FUZZ_CHECK(bonnie::parse_file_spec(full, "files") == *spec, full);
}

void check_phases(std::string_view text) {
  const auto selection =
      try_parse([&] { return bonnie::parse_phase_selection(text, "phases"); }, "phases");
  if (!selection) return;
  FUZZ_CHECK((selection->named & ~selection->phases).none(), text);
  FUZZ_CHECK(selection->phases.any(), text);
  std::string listed;
  for (const bonnie::PhaseId id : bonnie::kAllPhases) {
    if (!selection->phases.test(bonnie::index_of(id))) continue;
    if (!listed.empty()) listed += ",";
    listed += bonnie::phase_name(id);
  }
  const auto again = bonnie::parse_phase_selection(listed, "phases");
  FUZZ_CHECK(again.phases == selection->phases && again.named == selection->phases, listed);
}

void check_phase_name(std::string_view text) {
  const auto phase = bonnie::parse_planned_phase_name(text);
  if (!phase) return;
  FUZZ_CHECK(phase->repetition >= 1, text);
  const std::string name = bonnie::planned_phase_name(*phase, std::max(phase->repetition, 2U));
  const auto again = bonnie::parse_planned_phase_name(name);
  FUZZ_CHECK(again && again->id == phase->id && again->repetition == phase->repetition, name);
  if (phase->repetition == 1) {
    FUZZ_CHECK(
        bonnie::parse_planned_phase_name(bonnie::planned_phase_name(*phase, 1))->id == phase->id,
        text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  check_io_spec(text);
  check_file_spec(text);
  check_phases(text);
  check_phase_name(text);
  return 0;
}
