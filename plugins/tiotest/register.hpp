#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins::tiotest {

/// Registers the tiotest workload family: its workloads and its text/csv formatters.
void register_family(PluginRegistrar& registrar);

}  // namespace iobench::plugins::tiotest
