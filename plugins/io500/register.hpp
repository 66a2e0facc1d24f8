#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins::io500 {

/// Registers the io500 workload and its text formatter.
void register_family(PluginRegistrar& registrar);

}  // namespace iobench::plugins::io500
