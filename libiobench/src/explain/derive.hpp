#pragma once

// The derived figures of a phase's explanation, shared by explain_phase and the merged
// explanation over MPI ranks (report/rank_explain.cpp).
#include <iobench/explain.hpp>

namespace iobench::explain {

/// Sets the derived figures of `explanation` from its chains, devices and application figures:
/// device_read_bytes and device_write_bytes over the file systems' devices (each once; one that
/// lies under another counted device left out), device_backed_*_bytes, read/write amplification
/// and page_cache_read_percent (none after a warm-up, derived_note saying why, nor with a counted
/// device missing or invalid), shared_device (a device in several targets' chains). Replaces
/// what was derived before; the findings are left to add_findings.
void derive_figures(PhaseExplanation& explanation);

}  // namespace iobench::explain
