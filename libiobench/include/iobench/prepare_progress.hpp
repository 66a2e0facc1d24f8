#pragma once

/// How a workload's long prepare() (filebench's creation of a fileset of 10^6 files) tells the
/// runner how far it is, for the progress line's percentage and ETA.

#include <cstdint>
#include <iobench/workload.hpp>

namespace iobench {

/// prepare() has done `done` of `total` units of its untimed work (entries, bytes...). The
/// runner shows it as the step's set-up progress (RunOptions::on_progress: a ProgressSnapshot of
/// state kSetUp with no phase name, done_fraction = done / total, phase_left_ns extrapolated
/// from the rate so far, step_left_ns that plus the phases' time limits), at most once per
/// RunOptions::progress_interval and always at done == total. Cheap: one clock read between
/// reports. A PrepareContext the runner did not make (a test's own) ignores it.
void report_prepare_progress(PrepareContext& ctx, std::uint64_t done, std::uint64_t total);

}  // namespace iobench
