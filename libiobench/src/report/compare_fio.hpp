#pragma once

// fio's jobs lined up with iobench's disk steps for `iobench compare` (README, "Comparing with
// bonnie++, tiotest, dbench and fio results"): a fio job is the disk step that does the same I/O.

#include <iobench/compare.hpp>
#include <optional>
#include <span>
#include <vector>

namespace iobench::detail {

/// Per input nullopt (its document is used as it is), or where that input was read from fio's JSON
/// and another input has disk steps, a copy whose jobs stand for those steps: a job whose rw, bs,
/// iodepth, ioengine and direct match a disk step's operation and seek, bs, iodepth, engine and
/// mode (fio's defaults: rw=read, bs=4k, iodepth=1, ioengine=psync, direct=0) is placed as that
/// step (its suite step and sweep point) with workload "disk", its params translated to disk's
/// names; its phases "read"/"write" are disk's. A job that matches none, a mixed one (rw=rw,
/// randrw: disk has one "mixed" phase where fio reports read and write apart) and one of
/// several entries of a job (numjobs without --group_reporting: per clone, not the job's figures)
/// stay fio steps and are listed in the copy's not_mapped, with why.
[[nodiscard]] std::vector<std::optional<ResultDocument>> fio_aligned_with_disk(
    std::span<const CompareInput> inputs);

}  // namespace iobench::detail
