#include "plugins/disk/disk_config.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/units.hpp>

namespace iobench::plugins::disk {

std::vector<ParamSpec> disk_param_specs() {
  return {
      {.key = "operation",
       .type = ParamType::kEnum,
       .default_value = "write",
       .help = "write the file(s), or read them back",
       .choices = {"read", "write"}},
      {.key = "mode",
       .type = ParamType::kEnum,
       .default_value = "buffered",
       .help = "buffered (page cache), direct (O_DIRECT) or mmap (memcpy to/from a mapping)",
       .choices = {"buffered", "direct", "mmap"}},
      {.key = "bs",
       .type = ParamType::kSize,
       .default_value = "1m",
       .unit = "bytes",
       .help = "block size of each read or write",
       .min = 1,
       .max = 1ULL << 30},
      {.key = "blocks",
       .type = ParamType::kCount,
       .default_value = "",
       .unit = "blocks",
       .help = "blocks per target (working set = blocks x bs); or give size",
       .min = 1},
      {.key = "size",
       .type = ParamType::kSize,
       .default_value = "64m",
       .unit = "bytes",
       .help = "working set per target when blocks is not given",
       .min = 1},
      {.key = "seek",
       .type = ParamType::kEnum,
       .default_value = "sequential",
       .help = "sequential, or random block order",
       .choices = {"sequential", "random"}},
      {.key = "random_order",
       .type = ParamType::kEnum,
       .default_value = "permutation",
       .help = "with seek=random: each block once per iteration (permutation) or uniform picks "
               "with repetition",
       .choices = {"permutation", "uniform"}},
      {.key = "iterations",
       .type = ParamType::kCount,
       .default_value = "1",
       .unit = "passes",
       .help = "passes over the working set",
       .min = 1},
      {.key = "prime",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "read the working set untimed first, so reads come from the page cache"},
      {.key = "fsync",
       .type = ParamType::kBool,
       .default_value = "true",
       .help = "writes: fsync before close, timed (op 'fsync')"},
      {.key = "sync",
       .type = ParamType::kEnum,
       .default_value = "none",
       .help = "open with O_SYNC or O_DSYNC",
       .choices = {"none", "sync", "dsync"}},
      {.key = "file",
       .type = ParamType::kString,
       .default_value = "bigfile",
       .help = "name of the file created in each target's run directory"},
  };
}

DiskConfig make_disk_config(const Params& params, std::span<const std::filesystem::path> targets) {
  DiskConfig config;
  config.operation =
      params.get_string("operation") == "read" ? Operation::kRead : Operation::kWrite;
  const std::string& mode = params.get_string("mode");
  config.mode = mode == "direct" ? IoMode::kDirect
                : mode == "mmap" ? IoMode::kMmap
                                 : IoMode::kBuffered;
  config.seek =
      params.get_string("seek") == "random" ? SeekPattern::kRandom : SeekPattern::kSequential;
  config.random_order = params.get_string("random_order") == "uniform" ? RandomOrder::kUniform
                                                                       : RandomOrder::kPermutation;
  config.block_size_bytes = params.get_u64("bs");
  config.iterations = params.get_u64("iterations");
  config.prime = params.get_bool("prime");
  config.fsync = params.get_bool("fsync");
  config.sync = params.get_string("sync");
  config.file_name = params.get_string("file");

  if (params.given("blocks") && params.given("size")) {
    throw ConfigError(
        "disk: blocks and size both given; give one of them (blocks=N or size=BYTES)");
  }
  if (params.has("blocks")) {
    config.blocks = params.get_u64("blocks");
  } else {
    const std::uint64_t size = params.get_u64("size");
    if (size < config.block_size_bytes) {
      throw ConfigError(fmt::format(
          "disk: bs={} is larger than size={} ({} bytes > {} bytes); use a smaller bs or a larger "
          "size",
          params.get_string("bs"), params.get_string("size"), config.block_size_bytes, size));
    }
    if (size % config.block_size_bytes != 0) {
      throw ConfigError(fmt::format(
          "disk: size={} is not a whole number of blocks of bs={}; use a multiple of {} bytes",
          params.get_string("size"), params.get_string("bs"), config.block_size_bytes));
    }
    config.blocks = size / config.block_size_bytes;
  }
  if (config.blocks > (UINT64_MAX / config.block_size_bytes)) {
    throw ConfigError(fmt::format("disk: blocks={} x bs={} overflows 64 bits; use fewer blocks",
                                  config.blocks, config.block_size_bytes));
  }
  if (config.mode == IoMode::kDirect && config.block_size_bytes % AlignedBuffer::kAlignment != 0) {
    throw ConfigError(fmt::format(
        "disk: bs={} with mode=direct must be a multiple of {} bytes (O_DIRECT alignment)",
        params.get_string("bs"), AlignedBuffer::kAlignment));
  }
  if (config.file_name.empty() || config.file_name.find('/') != std::string::npos ||
      config.file_name == "." || config.file_name == "..") {
    throw ConfigError(
        fmt::format("disk: file='{}' must be a plain file name without '/'", config.file_name));
  }
  if (config.prime && config.operation == Operation::kWrite) {
    throw ConfigError("disk: prime=true only applies to operation=read");
  }
  for (const auto& target : targets) {
    struct stat st {};
    const bool existing_file = ::stat(target.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
    config.existing_file_target.push_back(existing_file);
    if (!existing_file) continue;
    if (config.operation == Operation::kWrite) {
      throw ConfigError(fmt::format(
          "disk: target '{}' is an existing file; iobench never overwrites existing files, so "
          "operation=write needs a directory target",
          target.string()));
    }
    if (S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) < config.working_set_bytes()) {
      throw ConfigError(fmt::format(
          "disk: target '{}' has {} bytes, fewer than blocks x bs = {} bytes; use fewer blocks",
          target.string(), st.st_size, config.working_set_bytes()));
    }
  }
  return config;
}

}  // namespace iobench::plugins::disk
