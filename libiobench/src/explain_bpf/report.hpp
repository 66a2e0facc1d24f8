#pragma once
// --explain's latency by layer in the text and JSON results.
#include <iobench/explain_bpf.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace iobench::detail {

/// The "where the time went" block printed under a phase, lines indented by two spaces and
/// ending in '\n'; "  explain: unavailable: <reason>\n" when it was not measured.
[[nodiscard]] std::string explain_bpf_text(const ExplainBpfPhase& phase);
/// The phase's "explain_bpf" JSON object: {"unavailable": reason} or {"residual": "fs_kernel_ns",
/// "calls": [...]} with every sum in ns (exact integers) and the means.
[[nodiscard]] nlohmann::ordered_json explain_bpf_json(const ExplainBpfPhase& phase);
/// The inverse of explain_bpf_json (the means are derived, not read). Throws ResultFormatError
/// naming the JSON pointer (under `pointer`) of a missing key, a value of the wrong type, an
/// empty "unavailable" or a call whose "calls" is not its "all.calls".
[[nodiscard]] ExplainBpfPhase explain_bpf_from_json(const nlohmann::ordered_json& j,
                                                    const std::string& pointer);

}  // namespace iobench::detail
