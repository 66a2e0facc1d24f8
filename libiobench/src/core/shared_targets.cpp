#include "core/shared_targets.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <nlohmann/json.hpp>

namespace iobench::detail {

void agree_on_shared_targets(Coordinator& coordinator, std::span<const SharedTargets> steps) {
  nlohmann::json mine = nlohmann::json::array();
  for (const SharedTargets& step : steps) {
    nlohmann::json targets = nlohmann::json::array();
    for (const auto& t : step.targets) targets.push_back(t.string());
    mine.push_back(std::move(targets));
  }
  const std::vector<std::string> all =
      coordinator.all_gather(mine.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  const nlohmann::json first = nlohmann::json::parse(all.front(), nullptr, false);
  for (std::size_t r = 1; r < all.size(); ++r) {
    const nlohmann::json theirs = nlohmann::json::parse(all[r], nullptr, false);
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const bool same = first.is_array() && theirs.is_array() && s < first.size() &&
                        s < theirs.size() && first[s] == theirs[s];
      if (same) continue;
      const auto target_of = [&](const nlohmann::json& doc) {
        return doc.is_array() && s < doc.size() && !doc[s].empty()
                   ? printable(doc[s][0].get<std::string>())
                   : std::string("?");
      };
      throw ConfigError(fmt::format(
          "{}: {} needs every rank to name the same target directories, on a filesystem all "
          "ranks see, but rank {} names '{}' where rank 0 names '{}'; give -d DIR without "
          "{{rank}}, "
          "{{local_rank}} or {{host}} (without -d each rank uses a directory of its own)",
          steps[s].label, steps[s].param, r, target_of(theirs), target_of(first)));
    }
  }
}

}  // namespace iobench::detail
