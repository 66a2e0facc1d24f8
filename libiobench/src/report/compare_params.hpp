#pragma once

// A step's params as `iobench compare` lines them up in "What differs": names through the
// aliases of the classic tools, values normalised by the workload's ParamSpec (sizes in bytes,
// durations in ns, booleans as true/false), defaults filled in for iobench's own results.

#include <iobench/result.hpp>
#include <map>
#include <optional>
#include <string>

namespace iobench::detail {

/// One param of a step: the text shown and the normal form two values are compared by.
struct ComparedParam {
  std::string shown;
  std::string normal;
};

/// The params of `step` by name. `own_result`: the step is iobench's own (not read from a classic
/// tool's output), so a param its workload declares but the step lacks (an older result) has
/// the ParamSpec's default; a classic result is compared only on what its source states. dbench
/// 4's "N clients M procs" becomes clients_per_process = N / M, the param iobench's dbench has.
[[nodiscard]] std::map<std::string, ComparedParam> compared_params(const StepResult& step,
                                                                   bool own_result);

}  // namespace iobench::detail

namespace iobench::detail {

/// The throughput dbench's final "Throughput N MB/sec" line gives, of iobench's dbench step
/// `step` and its execute phase `phase`, in bytes/s: ReadX and WriteX bytes completed by the last
/// whole-second tick of the execute period over those seconds (dbench.md 3.4: dbench prints the
/// figure of its last execute line, so the last partial second is left out), from the phase's
/// "bytes_to_last_tick" counter and the step's "tick_seconds" attribute. nullopt where the result
/// has neither (an older result) or no whole second passed (dbench then prints 0).
[[nodiscard]] std::optional<double> dbench_headline_bytes_per_s(const StepResult& step,
                                                                const PhaseResult& phase);

}  // namespace iobench::detail
