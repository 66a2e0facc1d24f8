#pragma once

/// Umbrella header: everything a program that links iobench::iobench uses.
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/format.hpp>
#include <iobench/latency_histogram.hpp>
#include <iobench/metrics.hpp>
#include <iobench/params.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result.hpp>
#include <iobench/runner.hpp>
#include <iobench/sysinfo.hpp>
#include <iobench/units.hpp>
#include <iobench/version.hpp>
#include <iobench/workload.hpp>
