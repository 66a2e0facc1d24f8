#include <fmt/format.h>

#include <algorithm>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/printable.hpp>
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
  std::string message = fmt::format("unknown {} '{}'", kind, printable(name));
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

void Registry::add_engine(EngineInfo info) {
  if (info.name.empty() || !info.factory) {
    throw PluginError("cannot register an engine without a name and a factory");
  }
  if (info.name.find_first_of(":,") != std::string::npos) {
    throw PluginError(fmt::format("engine name '{}' contains ':' or ','", info.name));
  }
  const std::string name = info.name;
  if (!engines_.emplace(name, std::move(info)).second) {
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

std::unique_ptr<Engine> Registry::create_engine(std::string_view spec_text) const {
  const EngineSpec spec = EngineSpec::parse(spec_text);
  const auto it = engines_.find(spec.name);
  if (it == engines_.end()) {
    throw ConfigError(unknown_name_message("engine", spec.name, keys_of(engines_)) +
                      " (see 'iobench list')");
  }
  const EngineInfo& info = it->second;
  for (const std::string& option : spec.options) {
    const bool known = std::any_of(info.options.begin(), info.options.end(),
                                   [&](const EngineOptionSpec& o) { return o.name == option; });
    if (known) continue;
    std::vector<std::string> names;
    for (const EngineOptionSpec& o : info.options) names.push_back(o.name);
    throw ConfigError(names.empty()
                          ? fmt::format("engine '{}': {} takes no options; give just '{}'",
                                        spec_text, info.name, info.name)
                          : fmt::format("engine '{}': {} has no option '{}'; its options: {}",
                                        spec_text, info.name, option, fmt::join(names, ", ")));
  }
  return info.factory(spec);
}

std::vector<std::string> Registry::engine_names() const { return keys_of(engines_); }

std::vector<const EngineInfo*> Registry::engines() const {
  std::vector<const EngineInfo*> all;
  for (const auto& [name, info] : engines_) all.push_back(&info);
  return all;
}

const ResultFormatter* Registry::formatter(std::string_view workload,
                                           std::string_view format) const {
  const auto it = formatters_.find(std::make_pair(std::string(workload), std::string(format)));
  return it == formatters_.end() ? nullptr : &it->second;
}

void register_builtins(Registry& registry) {
  registry.add_engine({.name = "psync",
                       .summary = "pread(2)/pwrite(2), one I/O at a time (the default)",
                       .options = {},
                       .factory = [](const EngineSpec&) { return make_psync_engine(); }});
  registry.add_engine(
      {.name = "pvsync2",
       .summary = "preadv2(2)/pwritev2(2), one I/O at a time, with per-call flags",
       .options = {{"hipri", "RWF_HIPRI: poll for the completion (O_DIRECT, poll queues)"},
                   {"nowait",
                    "RWF_NOWAIT: a request that would block (data not in the "
                    "page cache) fails with EAGAIN, counted as an error op; any such "
                    "op fails the phase (exit 1), as fio without ignore_error"}},
       .factory = [](const EngineSpec& spec) { return make_pvsync2_engine(spec); }});
  registry.add_engine({.name = "mmap",
                       .summary = "the file mapped MAP_SHARED; I/O is memcpy, sync is msync",
                       .options = {},
                       .factory = [](const EngineSpec&) { return make_mmap_engine(); }});
  registry.add_engine(
      {.name = "io_uring",
       .summary = "io_uring (liburing): queue depth up to 4096, batched submit and reap",
       .options = {{"fixedbufs", "registered buffers (IORING_OP_READ_FIXED/WRITE_FIXED)"},
                   {"registerfiles", "registered file descriptor (IOSQE_FIXED_FILE)"},
                   {"sqpoll", "a kernel thread polls the submission queue (IORING_SETUP_SQPOLL)"},
                   {"hipri", "polled completions (IORING_SETUP_IOPOLL; O_DIRECT only)"}},
       .factory = [](const EngineSpec& spec) { return make_io_uring_engine(spec); }});
  registry.add_engine({.name = "libaio",
                       .summary = "Linux native AIO (io_submit/io_getevents); O_DIRECT only",
                       .options = {},
                       .factory = [](const EngineSpec&) { return make_libaio_engine(); }});
  registry.add_engine(
      {.name = "null",
       .summary = "moves no byte, completes at once: measures iobench's own cost per op",
       .options = {},
       .factory = [](const EngineSpec&) { return make_null_engine(); }});
}

}  // namespace iobench
