#pragma once

#include <iobench/registry.hpp>

namespace iobench::plugins::mdtest {

/// Registers the mdtest workload and its text formatter (iobench's tables, then mdtest's
/// SUMMARY rate and SUMMARY time tables).
void register_family(PluginRegistrar& registrar);

}  // namespace iobench::plugins::mdtest
