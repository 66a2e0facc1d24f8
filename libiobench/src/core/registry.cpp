#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/registry.hpp>

namespace iobench {
namespace {

template <typename Map>
std::vector<std::string> keys_of(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : map) keys.push_back(key);
  return keys;
}

// "unknown workload 'disc'; did you mean 'disk'? Known: bonnie, dbench, disk, tiotest"
std::string unknown_name_message(std::string_view kind, std::string_view name,
                                 const std::vector<std::string>& known) {
  std::string message = fmt::format("unknown {} '{}'", kind, name);
  if (const std::string guess = closest_match(name, known); !guess.empty()) {
    message += fmt::format("; did you mean '{}'?", guess);
  }
  message += fmt::format(" Known: {}", fmt::join(known, ", "));
  return message;
}

}  // namespace

void Registry::add_workload(WorkloadInfo info) {
  if (info.name.empty() || !info.factory) {
    throw PluginError("cannot register a workload without a name and a factory");
  }
  const std::string name = info.name;
  if (!workloads_.emplace(name, std::move(info)).second) {
    throw PluginError(fmt::format("workload '{}' is registered twice", name));
  }
}

void Registry::add_engine(std::string name, EngineFactory factory) {
  if (name.empty() || !factory) throw PluginError("cannot register an engine without a name");
  if (!engines_.emplace(name, std::move(factory)).second) {
    throw PluginError(fmt::format("engine '{}' is registered twice", name));
  }
}

void Registry::add_formatter(std::string workload, std::string format, ResultFormatter formatter) {
  if (!formatter) throw PluginError("cannot register an empty formatter");
  auto key = std::make_pair(workload, format);
  if (!formatters_.emplace(std::move(key), std::move(formatter)).second) {
    throw PluginError(
        fmt::format("a '{}' formatter for workload '{}' is registered twice", format, workload));
  }
}

const WorkloadInfo& Registry::workload(std::string_view name) const {
  if (auto it = workloads_.find(name); it != workloads_.end()) return it->second;
  throw ConfigError(unknown_name_message("workload", name, keys_of(workloads_)) +
                    " (see 'iobench list')");
}

std::vector<const WorkloadInfo*> Registry::workloads() const {
  std::vector<const WorkloadInfo*> all;
  for (const auto& [name, info] : workloads_) all.push_back(&info);
  return all;
}

std::unique_ptr<Engine> Registry::create_engine(std::string_view name) const {
  if (auto it = engines_.find(name); it != engines_.end()) return it->second();
  throw ConfigError(unknown_name_message("engine", name, keys_of(engines_)));
}

std::vector<std::string> Registry::engine_names() const { return keys_of(engines_); }

const ResultFormatter* Registry::formatter(std::string_view workload,
                                           std::string_view format) const {
  const auto it = formatters_.find(std::make_pair(std::string(workload), std::string(format)));
  return it == formatters_.end() ? nullptr : &it->second;
}

void register_builtins(Registry& registry) {
  registry.add_engine("psync", [] { return make_psync_engine(); });
  registry.add_engine("mmap", [] { return make_mmap_engine(); });
}

}  // namespace iobench
