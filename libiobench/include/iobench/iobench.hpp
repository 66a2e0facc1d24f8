#pragma once

/// Umbrella header: every public header of iobench, for a program that links iobench::iobench
/// (CMake) or `pkg-config --cflags --libs iobench`. A test (tests/headers) checks that it names
/// every installed header and that each compiles on its own.
#include <iobench/classic_results.hpp>
#include <iobench/clock.hpp>
#include <iobench/compact_latency_histogram.hpp>
#include <iobench/compare.hpp>
#include <iobench/confined_dir.hpp>
#include <iobench/coordinator.hpp>
#include <iobench/data_pattern.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/explain.hpp>
#include <iobench/explain_bpf.hpp>
#include <iobench/file_util.hpp>
#include <iobench/format.hpp>
#include <iobench/html_report.hpp>
#include <iobench/io_driver.hpp>
#include <iobench/latency_histogram.hpp>
#include <iobench/lateness_trend.hpp>
#include <iobench/metrics.hpp>
#include <iobench/params.hpp>
#include <iobench/plugin.hpp>
#include <iobench/prepare_progress.hpp>
#include <iobench/printable.hpp>
#include <iobench/random_mix.hpp>
#include <iobench/rank_results.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result.hpp>
#include <iobench/result_history.hpp>
#include <iobench/result_json.hpp>
#include <iobench/runner.hpp>
#include <iobench/statistics.hpp>
#include <iobench/steady_state.hpp>
#include <iobench/suite.hpp>
#include <iobench/sysinfo.hpp>
#include <iobench/testing.hpp>
#include <iobench/time_series.hpp>
#include <iobench/units.hpp>
#include <iobench/version.hpp>
#include <iobench/worker_context.hpp>
#include <iobench/workload.hpp>
#include <iobench/workload_info.hpp>
#include <iobench/workloads.hpp>
