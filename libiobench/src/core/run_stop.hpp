#pragma once

#include <iobench/runner.hpp>
#include <stop_token>

namespace iobench::detail {

/// True once the process-wide request_stop() was called or `run_stop` (a run's
/// RunOptions::stop_token) asks to stop: what the runner, the phase executor and the suite
/// runner check.
[[nodiscard]] inline bool stop_wanted(const std::stop_token& run_stop) noexcept {
  return stop_requested() || run_stop.stop_requested();
}

}  // namespace iobench::detail
