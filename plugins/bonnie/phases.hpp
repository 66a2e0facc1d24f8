#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::bonnie {

/// bonnie++'s twelve tests, in its order (also its semaphore numbers 0..11).
enum class PhaseId : std::uint8_t {
  kPutc,        ///< "Per Chr" output: one-byte write(2) calls
  kPutBlock,    ///< "Block" output: chunk-sized write(2) calls
  kRewrite,     ///< read a chunk, dirty it, seek back, write it
  kGetc,        ///< "Per Chr" input: one-byte read(2) calls
  kGetBlock,    ///< "Block" input: chunk-sized read(2) calls
  kSeeks,       ///< random chunk reads by concurrent seekers, 1 in 10 rewritten
  kSeqCreate,   ///< create files in name order
  kSeqStat,     ///< stat (and read) files in readdir order
  kSeqDelete,   ///< unlink files in readdir order
  kRandCreate,  ///< create files with random-prefixed names
  kRandStat,    ///< stat (and read) files in random order
  kRandDelete,  ///< unlink files in random order
};
inline constexpr std::size_t kPhaseCount = 12;

/// Every phase, in bonnie++'s order.
inline constexpr std::array<PhaseId, kPhaseCount> kAllPhases{
    PhaseId::kPutc,      PhaseId::kPutBlock,   PhaseId::kRewrite,   PhaseId::kGetc,
    PhaseId::kGetBlock,  PhaseId::kSeeks,      PhaseId::kSeqCreate, PhaseId::kSeqStat,
    PhaseId::kSeqDelete, PhaseId::kRandCreate, PhaseId::kRandStat,  PhaseId::kRandDelete};

/// The stable phase names, by index_of(PhaseId): bonnie++'s CSV column names, the `phases`
/// parameter's words and the step's phase names (planned_phase_name()). The one list of them.
inline constexpr std::array<std::string_view, kPhaseCount> kPhaseNames{
    "putc",       "put_block", "rewrite", "getc",       "get_block", "seeks",
    "seq_create", "seq_stat",  "seq_del", "ran_create", "ran_stat",  "ran_del"};

/// Stable phase name of `id` (kPhaseNames), e.g. "put_block".
[[nodiscard]] std::string_view phase_name(PhaseId id) noexcept;
/// The phase called `name`, or nullopt.
[[nodiscard]] std::optional<PhaseId> phase_from_name(std::string_view name) noexcept;
/// Position of `id` in bonnie++'s order (0..11): an index into kAllPhases and per-phase arrays.
[[nodiscard]] constexpr std::size_t index_of(PhaseId id) noexcept {
  return static_cast<std::size_t>(id);
}
/// True for the six I/O-file phases (putc .. seeks).
[[nodiscard]] constexpr bool is_io_phase(PhaseId id) noexcept {
  return index_of(id) <= index_of(PhaseId::kSeeks);
}

/// A set of phases.
using PhaseSet = std::bitset<kPhaseCount>;

/// What the `phases` parameter asked for.
struct PhaseSelection {
  PhaseSet phases;  ///< every phase selected, by name or by group
  PhaseSet named;   ///< the phases named one by one (must be able to run)
};

/// Parses the `phases` parameter: comma-separated phase names and the groups "all", "io" (putc ..
/// seeks), "files" (seq_create .. ran_del), "per_char" (putc, getc). Order and repeats do not
/// matter: phases always run in bonnie++'s order. Throws ConfigError naming `field`, with a
/// did-you-mean for a misspelt name.
[[nodiscard]] PhaseSelection parse_phase_selection(std::string_view text, std::string_view field);

/// One phase the workload runs.
struct PlannedPhase {
  PhaseId id = PhaseId::kPutc;
  /// false: run only because a selected phase needs its effect (the file it writes, the files
  /// it creates, or the clean-up a delete does); not reported.
  bool measured = true;
  std::uint32_t repetition = 1;  ///< 1-based
};

/// What decides the plan (a subset of the workload's configuration).
struct PlanInputs {
  PhaseSelection selection;
  bool io_enabled = false;        ///< size > 0
  bool per_char_enabled = false;  ///< per-char size > 0
  bool seeks_enabled = false;     ///< seeks > 0 and seekers > 0
  bool files_enabled = false;     ///< num > 0
  std::uint32_t repetitions = 1;
};

/// The phases to run, in order, repeated `repetitions` times. Phases selected through a group
/// whose tests are off ("all" with size 0, say) are left out, as bonnie++ leaves them out; a
/// phase that is needed by a selected one but not selected itself runs unmeasured: block output
/// writes the file rewrite/getc/get_block/seeks use, a create makes the files its stat and delete
/// use, and a delete removes what a create made.
/// Throws ConfigError (naming `field`) if a phase named one by one cannot run (its test is off),
/// or if nothing at all would be measured.
[[nodiscard]] std::vector<PlannedPhase> build_plan(const PlanInputs& inputs,
                                                   std::string_view field);

/// "put_block" for repetition 1 of a single-repetition run, "put_block#2" for repetition 2
/// when there are several.
[[nodiscard]] std::string planned_phase_name(const PlannedPhase& phase, std::uint32_t repetitions);
/// Inverse of planned_phase_name: the phase and its repetition, or nullopt.
[[nodiscard]] std::optional<PlannedPhase> parse_planned_phase_name(std::string_view name);

}  // namespace iobench::plugins::bonnie
