#pragma once

#include <cstdint>
#include <iobench/data_pattern.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plugins/bonnie/phases.hpp"
#include "plugins/bonnie/spec_parser.hpp"

namespace iobench {
class Params;
}

namespace iobench::plugins::bonnie {

/// Which bonnie++ release's report layout the formatters reproduce.
enum class ReportFormat {
  kV200,  ///< bonnie++ 2.00a: k/m/g rates, "Name:Size etc", CSV format 1.98 (50 fields)
  kV197,  ///< bonnie++ 1.97: K/sec columns, "Concurrency" line, CSV format 1.97 (48 fields)
};

/// The workload's parameters as given, before validation (one field per ParamSpec; see
/// register.cpp for their help texts). Unset optionals take bonnie++'s defaults.
struct RawOptions {
  /// -s size[:chunk[:seeks[:seekers]]] as bonnie++ reads it, size in MiB (param bonnie_s).
  std::optional<std::string> size;
  std::optional<std::uint64_t> size_mib;     ///< param size; unset (and no -s): from the RAM
  std::optional<std::uint64_t> chunk_bytes;  ///< param chunk_size; unset: 8192
  std::optional<std::uint64_t> seeks;        ///< param seeks; unset: 8192
  std::optional<std::uint64_t> seekers;      ///< param seekers; unset: 5
  std::string files = "16";                  ///< -n num[:max[:min[:dirs[:chunk]]]]
  std::optional<std::uint64_t> ram_mib;      ///< -r; unset: the machine's RAM; 0: no RAM checks
  bool force = false;                  ///< run even if a RAM rule says the results are suspect
  std::uint64_t per_char_mib = 3;      ///< -f N; 0 = -f (skip the per-char tests)
  bool fsync = false;                  ///< -b
  bool direct = false;  ///< O_DIRECT on every block phase (bonnie++ -D: on the creating opens)
  DataPattern data{DataPattern::Kind::kBonnie, 0};
  std::uint64_t repetitions = 1;       ///< -x
  std::optional<std::uint64_t> seed;   ///< -z; unset: the step's seed
  std::optional<std::string> machine;  ///< -m; unset: the host name
  std::string phases = "all";
  std::optional<std::uint64_t> processes;  ///< copies; unset: one per target
  ReportFormat report_format = ReportFormat::kV200;
};

/// What the machine and the step add to the options.
struct HostFacts {
  std::uint64_t physical_memory_bytes = 0;  ///< 0 if unknown
  std::string hostname;
  std::size_t target_count = 1;
  /// Soft RLIMIT_NOFILE: fsync=true keeps one descriptor open per file-test directory.
  std::uint64_t open_files_limit = 1024;
};

/// The validated configuration of one bonnie workload.
struct BonnieConfig {
  IoSpec io;                       ///< io.size_mib 0: no I/O tests
  FileSpec files;                  ///< files.num_k 0: no file tests
  std::uint64_t ram_mib = 0;       ///< RAM the checks used (0: checks off)
  std::uint64_t per_char_mib = 0;  ///< effective per-char size: min(per_char, size)
  bool fsync = false;
  /// O_DIRECT on the block phases (put_block, rewrite, get_block, seeks), never the per-char ones.
  bool direct = false;
  /// Block output's bytes and the file tests' data (DataPattern::Kind::kBonnie: bonnie++'s).
  DataPattern data{DataPattern::Kind::kBonnie, 0};
  std::uint32_t repetitions = 1;
  std::optional<std::uint64_t> seed;  ///< unset: use the step's seed
  std::string machine;
  std::uint32_t copies = 1;
  std::uint32_t target_count = 1;  ///< copy c works in target c % target_count
  ReportFormat report_format = ReportFormat::kV200;
  std::vector<PlannedPhase> plan;
  /// Warnings for the step result (a RAM rule overridden with force).
  std::vector<std::string> warnings;

  /// Seek-phase workers per copy, else 1.
  [[nodiscard]] std::uint32_t workers_per_copy(PhaseId id) const noexcept {
    return id == PhaseId::kSeeks ? io.seekers : 1;
  }
};

/// bonnie++'s default file size for `ram_mib` of RAM: max(300, 2 x RAM) MiB, rounded up to whole
/// GiB when more than 512 MiB past one; 300 MiB when the RAM is unknown (0).
[[nodiscard]] std::uint64_t default_size_mib(std::uint64_t ram_mib) noexcept;

/// Validates `raw` for `host` and builds the configuration. Throws ConfigError naming the
/// parameter, its value and the fix, for: a malformed size/files/phases text; size and files both
/// 0; the 2x RAM rule (size x copies < 2 x RAM, unless ram=0 or force); the file-count rules
/// (num x 37 KiB of names over half the RAM, unless ram=0 or force; over 1 GiB always);
/// direct with a chunk that is not a multiple of 4 KiB; a machine name with a comma or control
/// character; fsync with more directories than open descriptors allow;
/// fewer copies than targets; repetitions 0; a phase selected whose test is off.
/// Pure: no I/O.
[[nodiscard]] BonnieConfig make_config(const RawOptions& raw, const HostFacts& host);

/// Reads the workload's validated Params into RawOptions: size, ram and per_char (bytes) must be
/// whole MiB, bonnie++'s unit; bonnie_s excludes size, chunk_size, seeks and seekers. Throws
/// ConfigError naming the param and the fix.
[[nodiscard]] RawOptions raw_options_from(const Params& params);

}  // namespace iobench::plugins::bonnie
