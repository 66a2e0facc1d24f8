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

/// Builds an engine instance configured by `spec` (its options already checked against the
/// engine's EngineInfo::options).
using EngineFactory = std::function<std::unique_ptr<Engine>(const EngineSpec& spec)>;

/// A registered engine: name, one-line summary, the options it accepts after a colon, factory.
struct EngineInfo {
  std::string name{};  ///< e.g. "io_uring"
  std::string summary{};
  std::vector<EngineOptionSpec> options{};
  EngineFactory factory{};
};
/// Formats one finished step for a workload family in one format ("text", "csv", "csv_header").
/// A "text" formatter replaces the text reporter's generic step section, so it prints everything
/// the user must see there: the results, failed phases, each of step.warnings as "WARNING: ...",
/// and the units of its figures where they differ from iobench's (MiB = 2^20 bytes). A "csv"
/// formatter writes a step's rows of the family's own CSV file (make_family_csv_reporter); a
/// "csv_header" formatter writes that file's header line, once, before the first step's rows.
using ResultFormatter = std::function<void(const StepResult& step, std::ostream& out)>;

/// The narrow view plugins get to register what they provide. Every add_* throws PluginError on
/// a duplicate name.
class PluginRegistrar {
 public:
  virtual ~PluginRegistrar() = default;
  virtual void add_workload(WorkloadInfo info) = 0;
  virtual void add_engine(EngineInfo info) = 0;
  /// Registers how steps of `workload` are printed in `format` ("text" or "csv").
  virtual void add_formatter(std::string workload, std::string format,
                             ResultFormatter formatter) = 0;
};

/// Name -> factory tables for workloads, engines and family formatters. Filled once at start-up
/// (register_builtins, register_builtin_workloads, load_plugin), then read-only and thread-safe.
class Registry final : public PluginRegistrar {
 public:
  void add_workload(WorkloadInfo info) override;
  void add_engine(EngineInfo info) override;
  void add_formatter(std::string workload, std::string format, ResultFormatter formatter) override;

  /// The workload `name`. Throws ConfigError listing the known names (with a did-you-mean).
  [[nodiscard]] const WorkloadInfo& workload(std::string_view name) const;
  /// All workloads, sorted by name.
  [[nodiscard]] std::vector<const WorkloadInfo*> workloads() const;
  /// A new engine for `spec_text` ("psync", "io_uring:fixedbufs,sqpoll"). Throws ConfigError
  /// naming the known engines for an unknown name, and the engine's options for an unknown
  /// option. Does not check availability (Engine::unavailable_reason()).
  [[nodiscard]] std::unique_ptr<Engine> create_engine(std::string_view spec_text) const;
  [[nodiscard]] std::vector<std::string> engine_names() const;
  /// All engines, sorted by name.
  [[nodiscard]] std::vector<const EngineInfo*> engines() const;
  /// The formatter for (`workload`, `format`), or nullptr.
  [[nodiscard]] const ResultFormatter* formatter(std::string_view workload,
                                                 std::string_view format) const;

 private:
  std::map<std::string, WorkloadInfo, std::less<>> workloads_;
  std::map<std::string, EngineInfo, std::less<>> engines_;
  std::map<std::pair<std::string, std::string>, ResultFormatter, std::less<>> formatters_;
};

/// Registers the built-in engines: psync, pvsync2, mmap, io_uring, libaio, null.
void register_builtins(Registry& registry);

/// Loads an external plugin: dlopen(path), finds `iobench_plugin_entry`, checks the descriptor's
/// ABI version, calls its register function. The library is never unloaded. Throws PluginError,
/// one distinct message per failure: no such file, not a regular file, dlopen failed (with
/// dlerror), no entry point, wrong ABI version (both versions named), registration threw (with the
/// exception text), or a duplicate name.
void load_plugin(Registry& registry, const std::string& path);

}  // namespace iobench
