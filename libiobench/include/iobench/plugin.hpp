#pragma once

/// SDK for external workload plugins. A plugin is a shared object exporting one C function,
/// `iobench_plugin_entry`, that returns a pointer to a static descriptor. Write it with
/// IOBENCH_PLUGIN and build it with iobench_add_plugin() from the installed CMake package.
///
/// The ABI version covers the layout of every public type a plugin touches (WorkloadInfo,
/// PhaseSpec, WorkerContext, Engine...): it is bumped whenever one of them changes, and a plugin
/// built for another version is refused at load time with both versions in the message.

#include <cstdint>
#include <iobench/registry.hpp>

/// The plugin ABI this iobench implements.
/// 3 (iobench 0.2, one bump for the whole wave): engines with queues (IoQueue, EngineCaps),
/// FileLocation and ConfinedDir in Target and the engines' open(), after_phase() with the
/// phase's result, WorkerContext's constructor private, Status::kNoMeasurement; WorkerContext
/// records the time series (record() with the op's completion time), PhaseResult::time_series;
/// PrepareContext::rank_identity() and from_rank0() for runs across ranks; results' op figures
/// as OpResult/OpLatencyPartsResult with CompactLatencyHistogram (WorkerResult, PhaseResult);
/// WorkloadSetup::run_stop and stop_requested(), InterruptedError for a factory a stop cut short.
/// 4 (wave 3, one bump for the whole wave): PhaseSpec::steady_state and ::wear_out,
/// WorkloadInfo::times_own_phases, WorkerContext::wearing_out(), PhaseSpec::process_workers,
/// PrepareContext::all_ranks().
/// 5: PhaseSpec::per_op_series and SeriesPoint::op_points (the time series split by op kind),
/// WorkerContext's inline record() counting the op in the series before its OpStats.
#define IOBENCH_PLUGIN_ABI_VERSION 5u

extern "C" {
/// What a plugin's entry point returns. All pointers refer to static storage.
struct iobench_plugin_descriptor {
  std::uint32_t abi_version;  ///< IOBENCH_PLUGIN_ABI_VERSION at build time
  const char* name;           ///< e.g. "hello"
  const char* version;        ///< the plugin's own version, e.g. "1.0"
  /// Registers the plugin's workloads/engines/formatters. May throw; the loader reports it.
  void (*register_plugin)(iobench::PluginRegistrar& registrar);
};
/// The entry point's type; the symbol is named "iobench_plugin_entry".
using iobench_plugin_entry_fn = const iobench_plugin_descriptor* (*)();
}

/// Defines the entry point of a plugin named NAME (string), VERSION (string), whose registration
/// function is REGISTER_FN (void(iobench::PluginRegistrar&)).
#define IOBENCH_PLUGIN(NAME, VERSION, REGISTER_FN)                                               \
  extern "C" __attribute__((visibility("default"))) const iobench_plugin_descriptor*             \
  iobench_plugin_entry() {                                                                       \
    static const iobench_plugin_descriptor descriptor{IOBENCH_PLUGIN_ABI_VERSION, NAME, VERSION, \
                                                      REGISTER_FN};                              \
    return &descriptor;                                                                          \
  }
