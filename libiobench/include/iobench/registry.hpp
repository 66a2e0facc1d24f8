#pragma once

#include <functional>
#include <iobench/engine.hpp>
#include <iobench/result.hpp>
#include <iobench/workload.hpp>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// Builds an engine instance.
using EngineFactory = std::function<std::unique_ptr<Engine>()>;
/// Formats one finished step for a workload family in one format ("text", "csv"). A "text"
/// formatter replaces the text reporter's generic step section, so it prints everything the user
/// must see there: the results, failed phases, and each of step.warnings as "WARNING: ...".
using ResultFormatter = std::function<void(const StepResult& step, std::ostream& out)>;

/// The narrow view plugins get to register what they provide. Every add_* throws PluginError on
/// a duplicate name.
class PluginRegistrar {
 public:
  virtual ~PluginRegistrar() = default;
  virtual void add_workload(WorkloadInfo info) = 0;
  virtual void add_engine(std::string name, EngineFactory factory) = 0;
  /// Registers how steps of `workload` are printed in `format` ("text" or "csv").
  virtual void add_formatter(std::string workload, std::string format,
                             ResultFormatter formatter) = 0;
};

/// Name -> factory tables for workloads, engines and family formatters. Filled once at start-up
/// (register_builtins, plugins::register_all, load_plugin), then read-only and thread-safe.
class Registry final : public PluginRegistrar {
 public:
  void add_workload(WorkloadInfo info) override;
  void add_engine(std::string name, EngineFactory factory) override;
  void add_formatter(std::string workload, std::string format, ResultFormatter formatter) override;

  /// The workload `name`. Throws ConfigError listing the known names (with a did-you-mean).
  [[nodiscard]] const WorkloadInfo& workload(std::string_view name) const;
  /// All workloads, sorted by name.
  [[nodiscard]] std::vector<const WorkloadInfo*> workloads() const;
  /// A new engine `name`. Throws ConfigError listing the known names.
  [[nodiscard]] std::unique_ptr<Engine> create_engine(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> engine_names() const;
  /// The formatter for (`workload`, `format`), or nullptr.
  [[nodiscard]] const ResultFormatter* formatter(std::string_view workload,
                                                 std::string_view format) const;

 private:
  std::map<std::string, WorkloadInfo, std::less<>> workloads_;
  std::map<std::string, EngineFactory, std::less<>> engines_;
  std::map<std::pair<std::string, std::string>, ResultFormatter, std::less<>> formatters_;
};

/// Registers the built-in engines ("psync", "mmap").
void register_builtins(Registry& registry);

/// Loads an external plugin: dlopen(path), finds `iobench_plugin_entry`, checks the descriptor's
/// ABI version, calls its register function. The library is never unloaded. Throws PluginError,
/// one distinct message per failure: no such file, not a regular file, dlopen failed (with
/// dlerror), no entry point, wrong ABI version (both versions named), registration threw (with the
/// exception text), or a duplicate name.
void load_plugin(Registry& registry, const std::string& path);

}  // namespace iobench
