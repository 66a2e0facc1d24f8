#include "plugins/bonnie/phases.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iobench/error.hpp>
#include <iobench/params.hpp>

namespace iobench::plugins::bonnie {
namespace {

PhaseSet group(std::initializer_list<PhaseId> ids) {
  PhaseSet set;
  for (const PhaseId id : ids) set.set(index_of(id));
  return set;
}

const PhaseSet kIoGroup = group({PhaseId::kPutc, PhaseId::kPutBlock, PhaseId::kRewrite,
                                 PhaseId::kGetc, PhaseId::kGetBlock, PhaseId::kSeeks});
const PhaseSet kFilesGroup =
    group({PhaseId::kSeqCreate, PhaseId::kSeqStat, PhaseId::kSeqDelete, PhaseId::kRandCreate,
           PhaseId::kRandStat, PhaseId::kRandDelete});
const PhaseSet kPerCharGroup = group({PhaseId::kPutc, PhaseId::kGetc});

/// Why phase `id` cannot run with `in`, or empty if it can.
std::string why_off(PhaseId id, const PlanInputs& in) {
  if (is_io_phase(id) && !in.io_enabled) return "size=0 turns the I/O tests off";
  if ((id == PhaseId::kPutc || id == PhaseId::kGetc) && !in.per_char_enabled) {
    return "per_char=0 turns the per-char tests off";
  }
  if (id == PhaseId::kSeeks && !in.seeks_enabled) {
    return "seeks or seekers 0 in size=... turns the seeks test off";
  }
  if (!is_io_phase(id) && !in.files_enabled) return "files=0 turns the file tests off";
  return {};
}

}  // namespace

std::string_view phase_name(PhaseId id) noexcept { return kPhaseNames[index_of(id)]; }

std::optional<PhaseId> phase_from_name(std::string_view name) noexcept {
  for (const PhaseId id : kAllPhases) {
    if (kPhaseNames[index_of(id)] == name) return id;
  }
  return std::nullopt;
}

PhaseSelection parse_phase_selection(std::string_view text, std::string_view field) {
  PhaseSelection selection;
  for (const std::string_view item :
       split_list_param(text, field, "put_block,get_block", ListSeparators::kCommas)) {
    if (item == "all") {
      selection.phases |= kIoGroup | kFilesGroup;
    } else if (item == "io") {
      selection.phases |= kIoGroup;
    } else if (item == "files") {
      selection.phases |= kFilesGroup;
    } else if (item == "per_char") {
      selection.phases |= kPerCharGroup;
    } else if (const auto id = phase_from_name(item)) {
      selection.phases.set(index_of(*id));
      selection.named.set(index_of(*id));
    } else {
      std::vector<std::string> candidates{"all", "io", "files", "per_char"};
      for (const auto name : kPhaseNames) candidates.emplace_back(name);
      const std::string suggestion = closest_match(item, candidates);
      throw ConfigError(fmt::format(
          "{}: unknown phase '{}'{}; known: all, io, files, per_char, {}", field, item,
          suggestion.empty() ? std::string{} : fmt::format(" (did you mean '{}'?)", suggestion),
          fmt::join(kPhaseNames, ", ")));
    }
  }
  return selection;
}

std::vector<PlannedPhase> build_plan(const PlanInputs& in, std::string_view field) {
  for (const PhaseId id : kAllPhases) {
    if (!in.selection.named.test(index_of(id))) continue;
    if (const std::string why = why_off(id, in); !why.empty()) {
      throw ConfigError(fmt::format("{}: phase '{}' was selected but {}; drop it from {}", field,
                                    phase_name(id), why, field));
    }
  }
  const auto wanted = [&](PhaseId id) {
    return in.selection.phases.test(index_of(id)) && why_off(id, in).empty();
  };

  // One repetition's plan: each phase with "measured" (selected) or "needed" (unmeasured).
  std::vector<PlannedPhase> once;
  const auto add = [&](PhaseId id, bool measured) {
    once.push_back(PlannedPhase{.id = id, .measured = measured, .repetition = 1});
  };
  if (wanted(PhaseId::kPutc)) add(PhaseId::kPutc, true);
  const bool needs_file = wanted(PhaseId::kRewrite) || wanted(PhaseId::kGetc) ||
                          wanted(PhaseId::kGetBlock) || wanted(PhaseId::kSeeks);
  if (wanted(PhaseId::kPutBlock) || needs_file) add(PhaseId::kPutBlock, wanted(PhaseId::kPutBlock));
  for (const PhaseId id :
       {PhaseId::kRewrite, PhaseId::kGetc, PhaseId::kGetBlock, PhaseId::kSeeks}) {
    if (wanted(id)) add(id, true);
  }
  for (const auto& [create, stat, del] :
       {std::array{PhaseId::kSeqCreate, PhaseId::kSeqStat, PhaseId::kSeqDelete},
        std::array{PhaseId::kRandCreate, PhaseId::kRandStat, PhaseId::kRandDelete}}) {
    if (!wanted(create) && !wanted(stat) && !wanted(del)) continue;
    add(create, wanted(create));
    if (wanted(stat)) add(stat, true);
    add(del, wanted(del));
  }

  bool any_measured = false;
  for (const PlannedPhase& p : once) any_measured = any_measured || p.measured;
  if (!any_measured) {
    throw ConfigError(fmt::format(
        "{}: nothing to run: every selected phase is turned off (size=0, files=0, per_char=0 or "
        "seeks 0); select a phase whose test is on",
        field));
  }

  std::vector<PlannedPhase> plan;
  plan.reserve(once.size() * in.repetitions);
  for (std::uint32_t rep = 1; rep <= in.repetitions; ++rep) {
    for (PlannedPhase p : once) {
      p.repetition = rep;
      plan.push_back(p);
    }
  }
  return plan;
}

std::string planned_phase_name(const PlannedPhase& phase, std::uint32_t repetitions) {
  if (repetitions <= 1) return std::string(phase_name(phase.id));
  return fmt::format("{}#{}", phase_name(phase.id), phase.repetition);
}

std::optional<PlannedPhase> parse_planned_phase_name(std::string_view name) {
  const std::size_t hash = name.find('#');
  const auto id = phase_from_name(name.substr(0, hash));
  if (!id) return std::nullopt;
  PlannedPhase phase{.id = *id, .measured = true, .repetition = 1};
  if (hash != std::string_view::npos) {
    const std::string_view digits = name.substr(hash + 1);
    std::uint32_t rep = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rep);
    if (ec != std::errc{} || end != digits.data() + digits.size() || rep == 0) {
      return std::nullopt;
    }
    phase.repetition = rep;
  }
  return phase;
}

}  // namespace iobench::plugins::bonnie
