// Test plugin: registration throws; the loader must report it with the exception's text.
#include <stdexcept>

#include <iobench/plugin.hpp>

namespace {
void register_throwing(iobench::PluginRegistrar&) {
  throw std::runtime_error("database of workloads is on fire");
}
}  // namespace

IOBENCH_PLUGIN("throwing", "1.0", register_throwing)
