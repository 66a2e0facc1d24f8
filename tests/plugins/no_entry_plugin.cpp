// Test plugin: a valid shared object without the iobench_plugin_entry symbol.
extern "C" __attribute__((visibility("default"))) int not_an_iobench_plugin() { return 42; }
