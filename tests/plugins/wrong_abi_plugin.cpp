// Test plugin: a descriptor claiming a future ABI version; the loader must refuse it.
#include <iobench/plugin.hpp>

namespace {
void register_nothing(iobench::PluginRegistrar&) {}
}  // namespace

extern "C" __attribute__((visibility("default"))) const iobench_plugin_descriptor*
iobench_plugin_entry() {
  static const iobench_plugin_descriptor descriptor{IOBENCH_PLUGIN_ABI_VERSION + 41, "wrong_abi",
                                                    "1.0", register_nothing};
  return &descriptor;
}
