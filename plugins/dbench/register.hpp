#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins::dbench {

/// Registers the dbench workload family: its workloads and its text/csv formatters.
void register_family(PluginRegistrar& registrar);

}  // namespace iobench::plugins::dbench
