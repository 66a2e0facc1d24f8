// The built-in suites: JSON text parsed by parse_suite like any suite file, so they are
// validated the same way. Sizes are small defaults; key=value on the command line overrides
// every step that declares the param.
#include <array>
#include <iobench/suite.hpp>

namespace iobench {
namespace {

constexpr std::string_view kQuick = R"json({
  "name": "quick",
  "description": "every family at small sizes, about a minute: the default job",
  "steps": [
    {"name": "disk sequential write", "workload": "disk",
     "params": {"operation": "write", "bs": "1m", "size": "128m"}},
    {"name": "disk sequential read", "workload": "disk",
     "params": {"operation": "read", "bs": "4k", "size": "128m"}},
    {"name": "disk random read from page cache", "workload": "disk",
     "params": {"operation": "read", "bs": "4k", "size": "32m", "seek": "random",
                "prime": true, "iterations": 2}},
    // bonnie++ at 64 MiB: far below 2 x RAM, so the page cache serves much of it (force).
    {"name": "bonnie", "workload": "bonnie",
     "params": {"size": "64m", "files": "1", "force": true}},
    {"name": "tiotest", "workload": "tiotest",
     "params": {"threads": 2, "size": "16m", "random_ops": 1000}},
    {"name": "dbench", "workload": "dbench",
     "params": {"procs": 2, "time_limit": "10s", "warmup": "2s"}}
  ]
})json";

constexpr std::string_view kBonnie = R"json({
  "name": "bonnie",
  "description": "bonnie++ 2.00 defaults: a file of twice this machine's RAM, 16 x 1024 files",
  "steps": [
    {"name": "bonnie", "workload": "bonnie"}
  ]
})json";

constexpr std::string_view kTiobench = R"json({
  "name": "tiobench",
  "description": "tiobench.pl: tiotest at 1, 2, 4 and 8 threads, its four report sections",
  "steps": [
    {"name": "tiobench", "workload": "tiobench",
     "params": {"threads": "1,2,4,8", "sizes": "256m", "block_sizes": "4096",
                "random_ops": 4000}}
  ]
})json";

constexpr std::string_view kDbench = R"json({
  "name": "dbench",
  "description": "dbench client.txt replay swept over 1, 2, 4 and 8 clients, 60 s each",
  "pause": "2s",
  "steps": [
    {"name": "dbench", "workload": "dbench",
     "params": {"time_limit": "60s", "warmup": "5s"},
     "sweep": {"param": "procs", "values": [1, 2, 4, 8]}}
  ]
})json";

// The five tests of the large-file ext2 report (seeds/000): give one -d per disk. The report's
// machine had 2 GB of RAM: its 12 GB files could not be cached, its 8 x 200 MB primed set could.
// Sized to the machine the same way: the sequential files together hold twice the RAM (reads
// come from the device even without drop_caches), the primed files together half of it. Its
// "nocopy" hack (reads that skip copy_to_user) has no portable equivalent (sendfile to
// /dev/null skips the copy but costs more than a 4 KiB copy does today); the variants here are
// the portable neighbours: O_DIRECT for the sequential reads (no page cache, no copy through
// it), a memory mapping for the page-cache reads (no read syscall; a user-space memcpy).
constexpr std::string_view kSeedReports = R"json({
  "name": "seed-reports",
  "description": "the five tests of the large-file ext2 report, one worker per target",
  "steps": [
    {"name": "test 1 sequential write 1 MiB", "workload": "disk",
     "params": {"operation": "write", "bs": "1m", "size": "2*ram/targets"}},
    {"name": "test 2 sequential read 4 KiB", "workload": "disk",
     "params": {"operation": "read", "bs": "4k", "size": "2*ram/targets"}},
    {"name": "test 3 sequential read 4 KiB direct", "workload": "disk",
     "params": {"operation": "read", "bs": "4k", "size": "2*ram/targets", "mode": "direct"}},
    {"name": "test 4 random read from page cache", "workload": "disk",
     "params": {"operation": "read", "bs": "4k", "size": "ram/2/targets", "seek": "random",
                "prime": true, "iterations": 10}},
    {"name": "test 5 random read from page cache mmap", "workload": "disk",
     "params": {"operation": "read", "bs": "4k", "size": "ram/2/targets", "seek": "random",
                "prime": true, "iterations": 10, "mode": "mmap"}}
  ]
})json";

// IO500: the list's twelve phases in one io500 step (plugins/io500), whose report ends with
// IO500's [RESULT] and [SCORE ] lines. The list's sizes are the user's to set so that each write
// phase runs past the 300 s stonewall; a phase that ends sooner is reported [INVALID].
constexpr std::string_view kIo500 = R"json({
  "name": "io500",
  "description": "the IO500 list's phases and score, 300 s stonewall",
  "steps": [
    {"name": "io500", "workload": "io500"}
  ]
})json";

// io500-quick: the same phases at tiny sizes, a few seconds; never valid for the list.
constexpr std::string_view kIo500Quick = R"json({
  "name": "io500-quick",
  "description": "the IO500 phases at tiny sizes, a few seconds; never valid for the list",
  "steps": [
    {"name": "io500-quick", "workload": "io500",
     "params": {"ranks": 2, "stonewall": "1s", "ior_easy_size": "8m", "ior_hard_segments": 64,
                "mdtest_easy_items": 200, "mdtest_hard_items": 200, "quick": true}}
  ]
})json";

// SNIA PTS 2.0 (workload pts): purge, workload-independent preconditioning, then rounds of
// the test's matrix until its tracked cell is steady (at most 25 rounds of 1 minute per cell).
// A block device with --destructive=SERIAL is the real test; a directory with capacity= (and
// round_time= to shorten it) runs the same rounds on a file, marked not PTS-valid.
constexpr std::string_view kPtsIops = R"json({
  "name": "pts-iops",
  "description": "SNIA PTS 2.0 IOPS: RND 7 R/W mixes x 8 block sizes, steady state on 4KiB 0/100",
  "steps": [
    {"name": "pts-iops", "workload": "pts", "params": {"test": "iops"}}
  ]
})json";

// Throughput: a step per block size, each with its own purge, preconditioning and steady state.
constexpr std::string_view kPtsThroughput = R"json({
  "name": "pts-throughput",
  "description": "SNIA PTS 2.0 throughput: SEQ 100/0 and 0/100 at 128KiB, then at 1024KiB",
  "steps": [
    {"name": "pts-throughput 128KiB", "workload": "pts",
     "params": {"test": "throughput", "block_sizes": "128k"}},
    {"name": "pts-throughput 1024KiB", "workload": "pts",
     "params": {"test": "throughput", "block_sizes": "1024k"}}
  ]
})json";

constexpr std::string_view kPtsLatency = R"json({
  "name": "pts-latency",
  "description": "SNIA PTS 2.0 latency: RND TC1 QD1, 3 R/W mixes x 3 block sizes, mean/p99/max",
  "steps": [
    {"name": "pts-latency", "workload": "pts", "params": {"test": "latency"}}
  ]
})json";

// WSAT: from the purged device, RND 4KiB writes round after round until 4 x capacity is written.
constexpr std::string_view kPtsWsat = R"json({
  "name": "pts-wsat",
  "description": "SNIA PTS 2.0 write saturation: RND 4KiB 0/100 IOPS over time up to 4 x capacity",
  "steps": [
    {"name": "pts-wsat", "workload": "pts", "params": {"test": "wsat"}}
  ]
})json";

// DIRTH: RND 4KiB writes over TC x QD (1..32 each), every round from the largest OIO down, until
// the largest OIO's IOPS is steady; libaio (O_DIRECT) for the queue depths.
constexpr std::string_view kPtsDirth = R"json({
  "name": "pts-dirth",
  "description": "SNIA PTS 2.0 demand intensity / response time histogram: RND 4KiB 0/100 over TC x QD",
  "steps": [
    {"name": "pts-dirth", "workload": "pts", "params": {"test": "dirth", "engine": "libaio"}}
  ]
})json";

constexpr std::array<BuiltinSuite, 12> kBuiltins{{
    {"quick", "every family at small sizes, about a minute (the default job)", kQuick},
    {"bonnie", "bonnie++ with its defaults (a file of 2 x RAM)", kBonnie},
    {"tiobench", "tiobench.pl: tiotest at 1, 2, 4, 8 threads", kTiobench},
    {"dbench", "dbench swept over 1, 2, 4, 8 clients", kDbench},
    {"seed-reports", "the five tests of the large-file ext2 report, one worker per target",
     kSeedReports},
    {"io500", "the IO500 list's phases, [RESULT] lines and score (300 s stonewall)", kIo500},
    {"io500-quick", "the IO500 phases at tiny sizes, a few seconds; never list-valid", kIo500Quick},
    {"pts-iops", "SNIA PTS 2.0 IOPS matrix to steady state (raw device; capacity= for a file)",
     kPtsIops},
    {"pts-throughput", "SNIA PTS 2.0 throughput: SEQ 128KiB and 1024KiB read and write",
     kPtsThroughput},
    {"pts-latency", "SNIA PTS 2.0 latency: TC1 QD1 mean/p99/max, 3 mixes x 3 block sizes",
     kPtsLatency},
    {"pts-wsat", "SNIA PTS 2.0 WSAT: RND 4KiB write IOPS over time up to 4 x capacity", kPtsWsat},
    {"pts-dirth", "SNIA PTS 2.0 DIRTH: RND 4KiB write IOPS vs response time over TC x QD",
     kPtsDirth},
}};

}  // namespace

std::span<const BuiltinSuite> builtin_suites() noexcept { return kBuiltins; }

std::optional<Suite> builtin_suite(std::string_view name) {
  for (const BuiltinSuite& builtin : kBuiltins) {
    if (builtin.name == name) {
      return parse_suite(builtin.json, std::string("builtin:") + std::string(name));
    }
  }
  return std::nullopt;
}

}  // namespace iobench
