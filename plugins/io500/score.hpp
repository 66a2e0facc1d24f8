#pragma once

// IO500's score and its result lines, computed from the figures of the list's phases: the
// bandwidth (ior) and metadata (mdtest, find) groups and the list's validity rules.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::io500 {

/// The list's scored phases in the order IO500 runs and prints them.
inline constexpr std::string_view kPhaseOrder[] = {"ior-easy-write",
                                                   "mdtest-easy-write",
                                                   "ior-hard-write",
                                                   "mdtest-hard-write",
                                                   "find",
                                                   "ior-easy-read",
                                                   "mdtest-easy-stat",
                                                   "ior-hard-read",
                                                   "mdtest-hard-stat",
                                                   "mdtest-easy-delete",
                                                   "mdtest-hard-read",
                                                   "mdtest-hard-delete"};

/// IO500's extended phases (its --mode=extended) in the order they run and are printed: never in
/// the score; find-easy is in the metadata group of IO500's extended score ([SCOREX]),
/// ior-rnd4K-easy-read in no group.
inline constexpr std::string_view kExtendedPhaseOrder[] = {"find-easy", "ior-rnd4K-easy-read"};
/// Whether `name` is one of kExtendedPhaseOrder.
[[nodiscard]] bool is_extended_phase(std::string_view name) noexcept;

/// The figure of one finished (or failed) phase, as IO500 rates it.
struct PhaseFigure {
  std::string name;  ///< IO500's phase name, "ior-easy-write"
  /// GiB/s for the ior phases (bytes / 2^30 / seconds), kIOPS for mdtest and find
  /// (items / 1000 / seconds).
  double score = 0;
  double seconds = 0;   ///< the phase's wall time
  std::string failure;  ///< empty when the phase completed; its error text otherwise
  /// Empty, or why the phase's own figure is not valid though it completed (find matching nothing).
  std::string invalid;
};

/// Whether a phase is in the bandwidth group: IO500 rates the phases named ior-* in GiB/s.
[[nodiscard]] bool is_bandwidth_phase(std::string_view name) noexcept;
/// Whether a phase is a write phase that must run for at least the stonewall time
/// (ior-easy-write, ior-hard-write, mdtest-easy-write, mdtest-hard-write).
[[nodiscard]] bool is_timed_write_phase(std::string_view name) noexcept;

/// GiB/s of `bytes` moved in `seconds` (0 for a phase of no time).
[[nodiscard]] double gib_per_s(std::uint64_t bytes, double seconds) noexcept;
/// kIOPS of `items` done in `seconds` (0 for a phase of no time).
[[nodiscard]] double kiops(std::uint64_t items, double seconds) noexcept;

/// The stonewall time (s) the list requires; IO500 marks a run with any other as invalid.
inline constexpr double kListStonewallSeconds = 300.0;

/// The validity rules a result is checked against.
struct ValidityRules {
  /// Seconds each write phase must run at least (IO500's stonewall time; 300 on the list).
  double stonewall_seconds = 300;
  /// The run is io500-quick: small sizes and short stonewalls, never valid for the list.
  bool quick = false;
};

/// One phase's line: its figure and why it is not valid (empty when valid).
struct PhaseVerdict {
  PhaseFigure figure;
  std::vector<std::string> invalid_reasons;
};

/// The score of a run and the reasons it is not valid for the list.
struct Io500Score {
  double bandwidth_gib_s = 0;        ///< geometric mean of the ior phases' GiB/s
  double metadata_kiops = 0;         ///< geometric mean of the mdtest and find phases' kIOPS
  double total = 0;                  ///< sqrt(bandwidth_gib_s x metadata_kiops)
  std::vector<PhaseVerdict> phases;  ///< in the order given
  /// Every reason the run is not valid for the list, phase reasons first ("<phase>: <reason>").
  std::vector<std::string> invalid_reasons;
  [[nodiscard]] bool valid() const noexcept { return invalid_reasons.empty(); }
};

/// IO500's score of `phases`: each group's geometric mean over its phases with a score above 0
/// (0 when it has none, as IO500's calc_score), total = sqrt(bandwidth x metadata). A phase is
/// not valid when it failed, when its score is not above 0, when its own figure says so, or, for
/// a write phase, when it ran less than rules.stonewall_seconds; any such phase, a list phase
/// missing from `phases`, a stonewall time other than kListStonewallSeconds and a quick run make
/// the run not valid. Throws ConfigError for a
/// stonewall time that is negative or not finite.
[[nodiscard]] Io500Score compute_score(const std::vector<PhaseFigure>& phases,
                                       const ValidityRules& rules);

/// IO500's summary: one "[RESULT] %20s %15f <GiB/s|kIOPS> : time %.3f seconds" line per phase
/// (" [INVALID]" after a phase that is not valid), the line "[SCORE ] Bandwidth X GiB/s : IOPS Y
/// kiops : TOTAL Z" (" [INVALID]" when the run is not), then one "[INVALID] <reason>" line per
/// reason, so a result that is not valid never reads as a pass.
void write_result_lines(const Io500Score& score, std::ostream& out);

/// The extended phases' section, printed after write_result_lines(): a heading, one line per
/// phase of `extended` as IO500 prints it ("[RESULT]" for find-easy, "[      ]" for a phase in
/// no score group; " [INVALID]" after one that is not valid), then IO500's "[SCOREX] Bandwidth X
/// GiB/s : IOPS Y kiops : TOTAL Z" over `scored` and find-easy (" [INVALID]" when any of them is
/// not valid). `scored` and the score computed from it alone are left as they are.
void write_extended_lines(const std::vector<PhaseFigure>& scored,
                          const std::vector<PhaseFigure>& extended, const ValidityRules& rules,
                          std::ostream& out);

}  // namespace iobench::plugins::io500
