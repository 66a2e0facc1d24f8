#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins::disk {

/// Registers the disk workload family: its workloads and its text/csv formatters.
void register_family(PluginRegistrar& registrar);

}  // namespace iobench::plugins::disk
