// Test plugin: registration throws; the loader must report it with the exception's text.
#include <iobench/plugin.hpp>
#include <stdexcept>

namespace {
void register_throwing(iobench::PluginRegistrar&) {
  throw std::runtime_error("database of workloads is on fire");
}
}  // namespace

IOBENCH_PLUGIN("throwing", "1.0", register_throwing)
