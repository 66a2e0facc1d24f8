#pragma once

// A phase's explanation (explain.hpp) to and from its JSON object, key "explain" of a phase
// (schema iobench-result/3). Keys carry their units (_bytes, _ms, _us, _percent); vmstat deltas
// keep the kernel's names and units (pgpgin/pgpgout KiB, the others events or 4 KiB pages).
#include <iobench/explain.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace iobench::detail {

[[nodiscard]] nlohmann::ordered_json explain_to_json(const explain::PhaseExplanation& e);
/// The inverse of explain_to_json. Throws ResultFormatError naming the JSON pointer (under
/// `pointer`) of a missing key or a value of the wrong type.
[[nodiscard]] explain::PhaseExplanation explain_from_json(const nlohmann::ordered_json& j,
                                                          const std::string& pointer);

}  // namespace iobench::detail
