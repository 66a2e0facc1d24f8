#pragma once

#include <iobench/engine.hpp>
#include <iobench/testing.hpp>
#include <iobench/workload.hpp>
#include <memory>

namespace iobench::test {

/// A WorkerContext in the measuring state (psync engine, one op kind "op"), for driving a
/// workload's worker directly.
struct DirectContext {
  std::unique_ptr<Engine> engine = make_psync_engine();
  PhaseSpec spec{.name = "direct", .op_names = {"op"}};
  testing::WorkerHarness harness{spec, {}, *engine};
  WorkerContext& ctx = (harness.start_measuring(), harness.context());
};

}  // namespace iobench::test
