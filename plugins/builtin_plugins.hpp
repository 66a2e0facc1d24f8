#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins {

/// Registers every built-in workload family (disk, bonnie, tiotest, dbench) and its formatters.
void register_all(PluginRegistrar& registrar);

}  // namespace iobench::plugins
