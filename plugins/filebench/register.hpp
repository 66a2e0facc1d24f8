#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins::filebench {

/// Registers the filebench workload family: the "filebench" workload and its text formatter.
void register_family(PluginRegistrar& registrar);

}  // namespace iobench::plugins::filebench
