#include "plugins/bonnie/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <iobench/error.hpp>
#include <iobench/params.hpp>

namespace iobench::plugins::bonnie {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
/// bonnie++'s estimate of the memory one file name costs on a 64-bit machine (22 name + 6
/// directory + 1 terminator + 8 pointer bytes).
constexpr std::uint64_t kBytesPerName = 37;
constexpr std::uint32_t kMaxCopies = 256;
constexpr std::uint64_t kMaxRepetitions = 10000;
constexpr std::size_t kMaxMachineLength = 255;
/// Descriptors fsync=true needs besides one per directory (stdio, the files being written...).
constexpr std::uint64_t kSpareDescriptors = 32;

std::string copies_text(std::uint32_t copies) {
  return copies == 1 ? "1 copy" : fmt::format("{} copies", copies);
}

void check_machine(const std::string& machine) {
  if (machine.empty()) {
    throw ConfigError("machine: empty; give the name to print in the report, e.g. machine=vm1");
  }
  if (machine.size() > kMaxMachineLength) {
    throw ConfigError(fmt::format(
        "machine: '{}...' is {} characters; bon_csv2html reads lines of 1023 bytes, use at most {}",
        machine.substr(0, 20), machine.size(), kMaxMachineLength));
  }
  for (const char c : machine) {
    if (c == ',' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      throw ConfigError(fmt::format(
          "machine: '{}' contains a comma or a control character, which would break the CSV "
          "line; use letters, digits, '-', '.' or '_'",
          machine));
    }
  }
}

void check_ram_rules(BonnieConfig& config, bool force) {
  if (config.ram_mib == 0) return;  // ram=0: bonnie++'s -r 0 turns every RAM check off
  const std::uint64_t twice_ram = 2 * config.ram_mib;
  if (config.io.size_mib > 0 && config.io.size_mib * config.copies < twice_ram) {
    const std::string what = fmt::format(
        "size: {} MiB x {} is less than twice the RAM ({} MiB), so the page cache can hold the "
        "file and the results are suspect (bonnie++: \"File size should be double RAM for good "
        "results\")",
        config.io.size_mib, copies_text(config.copies), config.ram_mib);
    if (!force) {
      throw ConfigError(fmt::format(
          "{}; use size={}m or more, ram=SIZE (e.g. ram=4g) for the RAM to plan for, ram=0 to "
          "turn the RAM checks off, or force=true to run anyway",
          what, (twice_ram + config.copies - 1) / config.copies));
    }
    config.warnings.push_back(what + " (run anyway: force=true)");
  }
  if (config.files.num_k > 0 && config.files.num_k * kBytesPerName * 2 > config.ram_mib * 1024) {
    const std::string what = fmt::format(
        "files: testing {}K files in {} MiB of RAM would page bonnie++'s file-name table (37 "
        "bytes per file; its limit is half the RAM) and bonnie++ refuses it",
        config.files.num_k, config.ram_mib);
    if (!force) {
      throw ConfigError(fmt::format(
          "{}; use files={} or fewer, ram=0 to turn the RAM checks off, or force=true to run "
          "anyway",
          what, config.ram_mib * 1024 / (kBytesPerName * 2)));
    }
    config.warnings.push_back(what + " (run anyway: force=true)");
  }
}

// The I/O test shape: bonnie++'s -s text (bonnie_s), or size, chunk_size, seeks and seekers.
IoSpec io_spec_of(const RawOptions& raw, std::uint64_t ram_mib) {
  if (raw.size) {
    if (raw.size_mib || raw.chunk_bytes || raw.seeks || raw.seekers) {
      throw ConfigError(
          "bonnie_s: gives the size, chunk, seeks and seekers as bonnie++'s -s text; give "
          "either bonnie_s or size/chunk_size/seeks/seekers");
    }
    return parse_io_spec(*raw.size, "bonnie_s");
  }
  IoSpec spec{.size_mib = raw.size_mib.value_or(default_size_mib(ram_mib))};
  if (raw.chunk_bytes) {
    const std::uint64_t chunk = *raw.chunk_bytes;
    if (chunk < kMinChunkBytes || chunk > kMaxChunkBytes || !std::has_single_bit(chunk)) {
      throw ConfigError(fmt::format(
          "bonnie: chunk_size={} bytes is not a power of two between 256 and 1m bytes (bonnie++'s "
          "limits); use e.g. 4k, 8k (the default) or 64k",
          chunk));
    }
    spec.chunk_bytes = static_cast<std::uint32_t>(chunk);
  }
  if (raw.seeks) {
    if (*raw.seeks > kMaxSeeks) {
      throw ConfigError(fmt::format("bonnie: seeks={} is more than {}", *raw.seeks, kMaxSeeks));
    }
    spec.seeks = *raw.seeks;
  }
  if (raw.seekers) {
    if (*raw.seekers > kMaxSeekers) {
      throw ConfigError(
          fmt::format("bonnie: seekers={} is more than {}", *raw.seekers, kMaxSeekers));
    }
    spec.seekers = static_cast<std::uint32_t>(*raw.seekers);
  }
  if (spec.size_mib > 0 && spec.size_mib * kMiB < spec.chunk_bytes) {
    throw ConfigError("bonnie: size is smaller than one chunk; use a larger size or chunk_size");
  }
  return spec;
}

// A size param in bytes as bonnie++'s MiB; it must be a whole number of them.
std::uint64_t whole_mib(const Params& params, std::string_view key, std::string_view option) {
  const std::uint64_t bytes = params.get_u64(key);
  if (bytes % kMiB != 0) {
    throw ConfigError(fmt::format(
        "bonnie: {}={} is {} bytes, not a whole number of MiB, the unit of bonnie++ {}; use e.g. "
        "{}={}m",
        key, params.get_string(key), bytes, option, key, std::max<std::uint64_t>(1, bytes / kMiB)));
  }
  return bytes / kMiB;
}

}  // namespace

std::uint64_t default_size_mib(std::uint64_t ram_mib) noexcept {
  if (ram_mib == 0) return 300;
  std::uint64_t size = std::max<std::uint64_t>(300, 2 * ram_mib);
  if (size % 1024 > 512) size = (size / 1024 + 1) * 1024;
  return size;
}

BonnieConfig make_config(const RawOptions& raw, const HostFacts& host) {
  // Each value on its own first, then the rules between values and the machine (RAM): a bad
  // value is named as itself, not as a cross-check it happens to fail too.
  const PhaseSelection selection = parse_phase_selection(raw.phases, "phases");
  BonnieConfig config;
  config.machine = raw.machine.value_or(host.hostname);
  check_machine(config.machine);
  config.ram_mib = raw.ram_mib.value_or(host.physical_memory_bytes / kMiB);
  config.io = io_spec_of(raw, config.ram_mib);
  config.files = parse_file_spec(raw.files, "files");
  if (config.io.size_mib == 0 && config.files.num_k == 0) {
    throw ConfigError(
        "size: 0 and files: 0 turn off both the I/O and the file tests; give size (e.g. "
        "size=2g) or files (e.g. files=16)");
  }

  if (raw.processes && *raw.processes == 0) {
    throw ConfigError("processes: 0; give the number of concurrent copies, 1 or more");
  }
  const std::uint64_t copies = raw.processes.value_or(host.target_count);
  if (copies > kMaxCopies) {
    throw ConfigError(
        fmt::format("processes: {} copies is more than {}; use fewer", copies, kMaxCopies));
  }
  if (copies < host.target_count) {
    throw ConfigError(fmt::format(
        "processes: {} copies for {} targets; every target needs a copy (copies go to the "
        "targets in turn), so give processes={} or more, or fewer targets",
        copies, host.target_count, host.target_count));
  }
  config.copies = static_cast<std::uint32_t>(copies);
  config.target_count = static_cast<std::uint32_t>(host.target_count);

  if (raw.repetitions == 0 || raw.repetitions > kMaxRepetitions) {
    throw ConfigError(fmt::format("repetitions: {}; give 1 to {} (bonnie++ -x)", raw.repetitions,
                                  kMaxRepetitions));
  }
  config.repetitions = static_cast<std::uint32_t>(raw.repetitions);

  config.per_char_mib = std::min(raw.per_char_mib, config.io.size_mib);
  config.fsync = raw.fsync;
  config.direct = raw.direct;
  config.data = raw.data;
  if (config.direct && config.io.size_mib > 0 && config.io.chunk_bytes % 4096 != 0) {
    throw ConfigError(fmt::format(
        "direct: O_DIRECT needs a chunk that is a multiple of 4096 bytes, but the chunk is {} "
        "bytes; use e.g. chunk_size=8k",
        config.io.chunk_bytes));
  }
  if (config.fsync && config.files.num_k > 0 &&
      config.files.dirs + kSpareDescriptors > host.open_files_limit) {
    throw ConfigError(fmt::format(
        "files: fsync=true keeps each of the {} directories open, more than the limit of {} open "
        "files allows; use fewer dirs or raise the limit (ulimit -n)",
        config.files.dirs, host.open_files_limit));
  }

  config.seed = raw.seed;
  config.report_format = raw.report_format;

  check_ram_rules(config, raw.force);

  const PlanInputs inputs{
      .selection = selection,
      .io_enabled = config.io.size_mib > 0,
      .per_char_enabled = config.per_char_mib > 0,
      .seeks_enabled = config.io.seeks > 0 && config.io.seekers > 0,
      .files_enabled = config.files.num_k > 0,
      .repetitions = config.repetitions,
  };
  config.plan = build_plan(inputs, "phases");
  return config;
}

RawOptions raw_options_from(const Params& params) {
  RawOptions raw;
  if (params.has("bonnie_s")) raw.size = params.get_string("bonnie_s");
  if (params.has("size")) raw.size_mib = whole_mib(params, "size", "-s");
  if (params.has("chunk_size")) raw.chunk_bytes = params.get_u64("chunk_size");
  if (params.has("seeks")) raw.seeks = params.get_u64("seeks");
  if (params.has("seekers")) raw.seekers = params.get_u64("seekers");
  raw.files = params.get_string("files");
  if (params.has("ram")) raw.ram_mib = whole_mib(params, "ram", "-r");
  raw.force = params.get_bool("force");
  raw.per_char_mib = whole_mib(params, "per_char", "-fN");
  raw.fsync = params.get_bool("fsync");
  raw.direct = params.get_bool("direct");
  raw.data = DataPattern::parse(params.get_string("data"), "data");
  raw.repetitions = params.get_u64("repetitions");
  if (params.has("seed")) raw.seed = params.get_u64("seed");
  if (params.has("machine")) raw.machine = params.get_string("machine");
  raw.phases = params.get_string("phases");
  if (params.has("processes")) raw.processes = params.get_u64("processes");
  raw.report_format =
      params.get_string("report_format") == "1.97" ? ReportFormat::kV197 : ReportFormat::kV200;
  return raw;
}

}  // namespace iobench::plugins::bonnie
