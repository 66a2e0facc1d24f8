#include "plugins/io500/io500_config.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>

namespace iobench::plugins::io500 {

// The bounds keep every byte count of the run (planned_bytes is the largest) within 2^64.
static_assert(kMaxRanks * (kMaxIorEasyBytes + kMaxItemsPerRank * kIorHardTransferBytes +
                           kMaxItemsPerRank * kMdtestHardFileBytes) <
              std::uint64_t{1} << 62);

std::vector<ParamSpec> io500_param_specs() {
  return {
      {.key = "ranks",
       .type = ParamType::kCount,
       .default_value = "2",
       .unit = "workers",
       .help = "workers of each phase (find: one), each an IO500 rank (mpirun -np of io500)",
       .min = 1,
       .max = kMaxRanks},
      {.key = "stonewall",
       .type = ParamType::kDuration,
       .default_value = "300s",
       .unit = "s",
       .help = "IO500 stonewall-time: each write phase stops after this long, then wears out "
               "(every rank goes on to the most transfers or items any rank had done: IOR's "
               "stoneWallingWearOut, mdtest -W), and must run this long to be valid (300 s on "
               "the list; less only for local tests)",
       .min = 1'000'000},
      {.key = "ior_easy_size",
       .type = ParamType::kSize,
       .default_value = "1g",
       .unit = "bytes",
       .help = "ior-easy blockSize: bytes each rank writes to its own file in 2 MiB transfers "
               "(rounded down to whole transfers), unless the stonewall ends it first",
       .max = kMaxIorEasyBytes},
      {.key = "ior_hard_segments",
       .type = ParamType::kCount,
       .default_value = "10000",
       .unit = "transfers",
       .help = "ior-hard segmentCount: 47008-byte transfers per rank, interleaved in one shared "
               "file, unless the stonewall ends it first",
       .min = 1,
       .max = kMaxItemsPerRank},
      {.key = "mdtest_easy_items",
       .type = ParamType::kCount,
       .default_value = "100000",
       .unit = "files",
       .help = "mdtest-easy -n: empty files per rank, each rank in its own directory (-u)",
       .min = 1,
       .max = kMaxItemsPerRank},
      {.key = "mdtest_hard_items",
       .type = ParamType::kCount,
       .default_value = "10000",
       .unit = "files",
       .help = "mdtest-hard -n: 3901-byte files per rank, all in one shared directory",
       .min = 1,
       .max = kMaxItemsPerRank},
      {.key = "quick",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "io500-quick: the result is always marked not valid for the list"},
      {.key = "cache_proof",
       .type = ParamType::kBool,
       .default_value = "false",
       .help =
           "IO500's drop-caches: sync and drop the page cache before every read, stat, delete and "
           "find phase (root only; the result says what was done, or why not); the rank "
           "shift of every read and stat phase is always on"},
      {.key = "checkpoint",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "with cache_proof: before every phase, freeze and at once thaw the target's file "
               "system (FIFREEZE, FITHAW, as fsfreeze -f then -u), so a journalling one (ext4, "
               "xfs) writes its journal's blocks home and the drop that follows frees the "
               "metadata the journal held: cold stat phases then start alike run after run; "
               "root only, by rank 0's process; every writer to that file system stalls for "
               "each freeze; a file system that cannot be frozen (tmpfs) is named, not tried "
               "again"},
      {.key = "extended",
       .type = ParamType::kBool,
       .default_value = "false",
       .help = "IO500's --mode=extended: also run find-easy (-name *01* over the mdtest-easy "
               "tree) and ior-rnd4K-easy-read (random 4 KiB reads of the ior-easy files), "
               "printed apart with [SCOREX]; the score never includes them"},
      {.key = "paths",
       .type = ParamType::kEnum,
       .default_value = "full",
       .help = "how the mdtest and find phases name files: full (as IO500's mdtest and pfind: "
               "every open, stat and unlink by the file's whole path from the target as given, "
               "the kernel resolving every component each time; list-comparable) or dirfd "
               "(iobench's lower-overhead *at calls on open directories, measuring less path "
               "lookup than io500: its metadata rates and score come out above the list's); full "
               "trusts the target's path during each phase, so it is refused unless every "
               "directory on it is owned by root or you and not group/other-writable unless "
               "sticky, and when an mdtest file's whole path would reach PATH_MAX with its NUL",
       .choices = {"full", "dirfd"}},
  };
}

Io500Config make_io500_config(const Params& params, std::size_t target_count) {
  if (target_count != 1) {
    throw ConfigError(fmt::format(
        "io500: {} targets; IO500 writes every phase's files into one data directory, give one "
        "target (-d)",
        target_count));
  }
  Io500Config c;
  c.ranks = static_cast<std::uint32_t>(params.get_u64("ranks"));
  c.stonewall = params.get_duration("stonewall");
  const std::uint64_t easy_bytes = params.get_u64("ior_easy_size");
  c.ior_easy_transfers = easy_bytes / kIorEasyTransferBytes;
  if (c.ior_easy_transfers == 0) {
    throw ConfigError(fmt::format(
        "io500: ior_easy_size={} is less than one 2 MiB transfer; give ior_easy_size=2m or more",
        params.get_string("ior_easy_size")));
  }
  c.ior_hard_segments = params.get_u64("ior_hard_segments");
  c.mdtest_easy_items = params.get_u64("mdtest_easy_items");
  c.mdtest_hard_items = params.get_u64("mdtest_hard_items");
  c.quick = params.get_bool("quick");
  c.cache_proof = params.get_bool("cache_proof");
  c.checkpoint = params.get_bool("checkpoint");
  if (c.checkpoint && !c.cache_proof) {
    throw ConfigError(
        "io500: checkpoint=true without cache_proof=true: the checkpoint is there so that the "
        "page-cache drops free what the journal held; give cache_proof=true too, or drop "
        "checkpoint");
  }
  c.extended = params.get_bool("extended");
  c.paths = path_mode_of(params.get_string("paths"));
  return c;
}

}  // namespace iobench::plugins::io500
