#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <iobench/error.hpp>
#include <iobench/plugin.hpp>
#include <iobench/printable.hpp>
#include <iobench/registry.hpp>

#include "plugin/shared_library.hpp"

namespace iobench {

void load_plugin(Registry& registry, const std::string& given_path) {
  // Messages below echo the path: shown escaped and bounded.
  const std::string path = printable(given_path);
  struct stat st {};
  if (::stat(given_path.c_str(), &st) != 0) {
    throw PluginError(fmt::format("plugin '{}': cannot load: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw PluginError(fmt::format("plugin '{}': not a regular file", path));
  }
  std::string dl_error;
  // A path without '/' would make dlopen search the library path: pin it to the given file.
  const std::string dl_path =
      given_path.find('/') == std::string::npos ? "./" + given_path : given_path;
  detail::SharedLibrary library = detail::SharedLibrary::open(dl_path, dl_error);
  if (!library) {
    throw PluginError(fmt::format("plugin '{}': dlopen failed: {}", path, dl_error));
  }
  void* entry_symbol = library.symbol("iobench_plugin_entry");
  if (entry_symbol == nullptr) {
    throw PluginError(fmt::format(
        "plugin '{}': no entry point 'iobench_plugin_entry' (define it with IOBENCH_PLUGIN)",
        path));
  }
  const auto entry = reinterpret_cast<iobench_plugin_entry_fn>(entry_symbol);
  const iobench_plugin_descriptor* descriptor = entry();
  if (descriptor == nullptr) {
    throw PluginError(fmt::format("plugin '{}': iobench_plugin_entry returned null", path));
  }
  if (descriptor->abi_version != IOBENCH_PLUGIN_ABI_VERSION) {
    throw PluginError(fmt::format(
        "plugin '{}': built for plugin ABI version {}, this iobench implements version {}; "
        "rebuild the plugin against this iobench",
        path, descriptor->abi_version, IOBENCH_PLUGIN_ABI_VERSION));
  }
  if (descriptor->register_plugin == nullptr || descriptor->name == nullptr) {
    throw PluginError(
        fmt::format("plugin '{}': descriptor has no name or register function", path));
  }
  try {
    descriptor->register_plugin(registry);
  } catch (const PluginError& e) {
    throw PluginError(fmt::format("plugin '{}' ({}): {}", path, descriptor->name, e.what()));
  } catch (const std::exception& e) {
    throw PluginError(
        fmt::format("plugin '{}' ({}): registration threw: {}", path, descriptor->name, e.what()));
  } catch (...) {
    throw PluginError(fmt::format("plugin '{}' ({}): registration threw a non-standard exception",
                                  path, descriptor->name));
  }
  library.leak();
}

}  // namespace iobench
