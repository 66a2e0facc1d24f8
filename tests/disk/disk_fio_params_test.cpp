// fio's numjobs, nrfiles, bssplit, thinktime and trim in the disk workload: parsing, refusals,
// and what a run really does (files, ops per size, holes, workers, pauses).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>

#include "plugins/disk/block_size_split.hpp"
#include "plugins/disk/disk_config.hpp"
#include "plugins/disk/disk_formatter.hpp"
#include "plugins/disk/file_set.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::disk;

// Names of their own: the unity build puts this file next to disk_workload_test.cpp.
namespace {

std::string fio_config_error(const std::map<std::string, std::string>& raw) {
  try {
    const auto specs = disk_param_specs();
    const Params params = Params::validate(specs, raw, "disk");
    const std::vector<std::filesystem::path> targets{"/tmp"};
    (void)make_disk_config(params, targets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

RunResult run_fio_disk(std::map<std::string, std::string> params,
                       std::vector<std::filesystem::path> targets, bool keep = false) {
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  return Runner(registry, RunOptions{.keep_files = keep})
      .run(std::vector<Step>{Step{
               .workload = "disk", .params = std::move(params), .targets = std::move(targets)}},
           reporter);
}

std::filesystem::path fio_run_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("iobench.", 0) == 0) found.push_back(entry.path());
  }
  REQUIRE(found.size() == 1);
  return found.front();
}

std::size_t fio_op_index(const PhaseResult& phase, const std::string& name) {
  const auto it = std::find(phase.op_names.begin(), phase.op_names.end(), name);
  REQUIRE(it != phase.op_names.end());
  return static_cast<std::size_t>(it - phase.op_names.begin());
}

std::uint64_t fio_counter(const PhaseResult& phase, const std::string& name) {
  const auto it = std::find(phase.counter_names.begin(), phase.counter_names.end(), name);
  REQUIRE(it != phase.counter_names.end());
  return phase.counters.at(static_cast<std::size_t>(it - phase.counter_names.begin()));
}

}  // namespace

TEST_CASE("bssplit tables give each size its percentage of the 100 slots", "[disk]") {
  const BlockSizeSplit split = BlockSizeSplit::parse("4k/50:64k/40:1m/10", "bssplit", 1 << 30, 1);
  REQUIRE(split.sizes() == std::vector<std::uint64_t>{4096, 65536, 1048576});
  // Every percentile's slot, hit exactly: 50 slots of 4k, 40 of 64k, 10 of 1m.
  std::array<int, 3> slots{};
  for (std::uint64_t p = 0; p < 100; ++p) {
    const std::uint64_t random = (((p << 32) + 99) / 100) << 32;  // a value in percentile p
    ++slots.at(split.pick(BlockSizeSplit::List::kWrite, random));
  }
  CHECK(slots == std::array<int, 3>{50, 40, 10});
  CHECK(split.mean_size(BlockSizeSplit::List::kRead) == 0.5 * 4096 + 0.4 * 65536 + 0.1 * 1048576);
  // Seeded draws: each share within 5 standard deviations of its expectation.
  std::uint64_t state = 42;
  std::array<int, 3> drawn{};
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i)
    ++drawn.at(split.pick(BlockSizeSplit::List::kRead, splitmix64(state)));
  for (std::size_t i = 0; i < 3; ++i) {
    const double p = std::array<double, 3>{0.5, 0.4, 0.1}[i];
    CHECK(std::abs(drawn[i] - kDraws * p) < 5 * std::sqrt(kDraws * p * (1 - p)));
  }
}

TEST_CASE("bssplit takes fio's open percentages and separate read and write lists", "[disk]") {
  const BlockSizeSplit open = BlockSizeSplit::parse("4k/50:8k:16k", "bssplit", 1 << 30, 1);
  CHECK(open.mean_size(BlockSizeSplit::List::kRead) == 0.5 * 4096 + 0.25 * 8192 + 0.25 * 16384);
  const BlockSizeSplit lists = BlockSizeSplit::parse("4k/100,64k/100", "bssplit", 1 << 30, 1);
  CHECK(lists.mean_size(BlockSizeSplit::List::kRead) == 4096);
  CHECK(lists.mean_size(BlockSizeSplit::List::kWrite) == 65536);
  CHECK(lists.mean_size(BlockSizeSplit::List::kTrim) == 65536);  // the last list given
}

TEST_CASE("bad fio params are refused naming the param, the value and the fix", "[disk]") {
  CHECK_THAT(fio_config_error({{"bssplit", "4k/50:64k/40"}}),
             Catch::Contains("bssplit='4k/50:64k/40'") && Catch::Contains("sum to 90, not 100"));
  CHECK_THAT(fio_config_error({{"bssplit", "0/100"}}), Catch::Contains("out of range"));
  CHECK_THAT(fio_config_error({{"bssplit", "2g/100"}}), Catch::Contains("out of range"));
  CHECK_THAT(fio_config_error({{"bssplit", "4k/50:zz/50"}}), Catch::Contains("'zz' is not a size"));
  CHECK_THAT(fio_config_error({{"bssplit", "4k/-5:8k"}}), Catch::Contains("not a percentage"));
  CHECK_THAT(fio_config_error({{"bssplit", "4k/100"}, {"bs", "4k"}}),
             Catch::Contains("bs=4k and bssplit=4k/100 both given"));
  CHECK_THAT(fio_config_error({{"bssplit", "512/100"}, {"mode", "direct"}}),
             Catch::Contains("multiple of 4096"));
  CHECK_THAT(fio_config_error({{"thinktime", "-5"}}), Catch::Contains("thinktime=-5 is negative"));
  CHECK_THAT(fio_config_error({{"thinktime", "2h"}}), Catch::Contains("too long"));
  CHECK_THAT(fio_config_error({{"thinktime", "10"}, {"thinktime_spin", "20"}}),
             Catch::Contains("thinktime_spin=20 is longer than thinktime=10"));
  CHECK_THAT(fio_config_error({{"thinktime", "10"}, {"iodepth", "4"}}),
             Catch::Contains("thinktime=10 with iodepth=4"));
  CHECK_THAT(fio_config_error({{"numjobs", "0"}}), Catch::Contains("numjobs"));
  CHECK_THAT(fio_config_error({{"nrfiles", "0"}}), Catch::Contains("nrfiles"));
  CHECK_THAT(fio_config_error({{"nrfiles", "3"}, {"bs", "4k"}, {"blocks", "10"}}),
             Catch::Contains("nrfiles=3 does not divide the 10 blocks"));
  CHECK_THAT(fio_config_error({{"operation", "read"}, {"rwmixtrim", "10"}}),
             Catch::Contains("rwmixtrim=10") && Catch::Contains("read-only"));
  CHECK_THAT(fio_config_error({{"rwmix", "70"}, {"rwmixtrim", "40"}}),
             Catch::Contains("sum to at most 100"));
  CHECK_THAT(fio_config_error({{"operation", "trim"}, {"verify", "true"}}),
             Catch::Contains("verify=true with trims"));
  CHECK_THAT(fio_config_error({{"operation", "randtrim"}, {"seek", "sequential"}}),
             Catch::Contains("operation=randtrim"));
  CHECK(fio_config_error({{"rwmixtrim", "20"}}).empty());  // implies operation=mixed
}

TEST_CASE("bssplit ops follow the split and count their own bytes", "[disk]") {
  test::TempDir dir("disk");
  const RunResult run = run_fio_disk(
      {{"bssplit", "4k/25:16k/75"}, {"blocks", "400"}, {"seek", "random"}}, {dir.path()});
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  const std::uint64_t small = fio_counter(phase, "ops_bs_4096");
  const std::uint64_t large = fio_counter(phase, "ops_bs_16384");
  CHECK(small + large == 400);
  // Binomial(400, 0.25): standard deviation 8.66; within 5 of them.
  CHECK(std::abs(static_cast<double>(small) - 100.0) < 5 * 8.67);
  const OpResult& writes = phase.ops.at(fio_op_index(phase, "write"));
  CHECK(writes.ops == 400);
  CHECK(writes.bytes == small * 4096 + large * 16384);
  CHECK(writes.latency.count() == 400);
}

TEST_CASE("nrfiles makes exactly N files of their share of the size and removes them", "[disk]") {
  test::TempDir dir("disk");
  const RunResult run =
      run_fio_disk({{"nrfiles", "3"}, {"bs", "4k"}, {"blocks", "30"}}, {dir.path()}, true);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.ops.at(0).ops == 30);
  CHECK(phase.ops.at(0).bytes == 30 * 4096);
  const auto run_dir = fio_run_dir(dir.path());
  CHECK(test::TempDir::list(run_dir) ==
        std::vector<std::string>{"bigfile.0.0", "bigfile.0.1", "bigfile.0.2"});
  for (const char* name : {"bigfile.0.0", "bigfile.0.1", "bigfile.0.2"}) {
    CHECK(std::filesystem::file_size(run_dir / name) == 10 * 4096);
  }
  std::filesystem::remove_all(run_dir);
  // A read run creates its files, reads them round robin and leaves nothing.
  const RunResult read = run_fio_disk(
      {{"operation", "read"}, {"nrfiles", "4"}, {"bs", "4k"}, {"blocks", "40"}, {"seek", "random"}},
      {dir.path()});
  REQUIRE(read.status == Status::kOk);
  CHECK(read.steps.at(0).phases.at(0).ops.at(0).bytes == 40 * 4096);
  CHECK(dir.entries().empty());
}

TEST_CASE("numjobs runs that many workers per target, each on its own file", "[disk]") {
  test::TempDir a("diskA"), b("diskB");
  const RunResult run =
      run_fio_disk({{"numjobs", "3"}, {"bs", "4k"}, {"blocks", "8"}}, {a.path(), b.path()}, true);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  REQUIRE(phase.workers.size() == 6);
  for (const WorkerResult& worker : phase.workers) {
    CHECK(worker.target_index == worker.index % 2);
    CHECK(worker.ops.at(0).bytes == 8 * 4096);
  }
  // The text report names each worker's own file: worker 3 is job 1 of target 1.
  std::ostringstream text;
  format_disk_text(run.steps.at(0), text);
  CHECK_THAT(text.str(),
             Catch::Contains("#3 (" + (fio_run_dir(b.path()) / "bigfile.1.0").string() + ") 32KB"));
  // The headline counts the two targets as its devices, not the six workers.
  CHECK_THAT(text.str(), Catch::Contains(" mbytes across 2 devices using 48 blocks of 4096 "));
  for (const auto* dir : {&a, &b}) {
    const auto run_dir = fio_run_dir(dir->path());
    CHECK(test::TempDir::list(run_dir) ==
          std::vector<std::string>{"bigfile.0.0", "bigfile.1.0", "bigfile.2.0"});
    std::filesystem::remove_all(run_dir);
  }
}

TEST_CASE("thinktime pauses after every op or every thinktime_blocks ops", "[disk]") {
  test::TempDir dir("disk");
  for (const auto& [blocks, pauses] : {std::pair<std::string, std::uint64_t>{"1", 20}, {"5", 4}}) {
    const RunResult run = run_fio_disk({{"bs", "4k"},
                                        {"blocks", "20"},
                                        {"fsync", "false"},
                                        {"thinktime", "3ms"},
                                        {"thinktime_spin", "100"},
                                        {"thinktime_blocks", blocks}},
                                       {dir.path()});
    REQUIRE(run.status == Status::kOk);
    const PhaseResult& phase = run.steps.at(0).phases.at(0);
    CHECK(phase.ops.at(0).ops == 20);
    // A lower bound only: each pause lasts at least its time.
    CHECK(phase.wall_ns >= pauses * 3'000'000);
    // The pauses are not in the ops' latency (20 pauses would be 60 ms of it).
    CHECK(phase.ops.at(0).latency.count() == 20);
  }
}

TEST_CASE("trim punches holes in the file and counts trimmed bytes as trims", "[disk]") {
  test::TempDir dir("disk");
  const RunResult run = run_fio_disk({{"operation", "randtrim"}, {"bs", "64k"}, {"blocks", "16"}},
                                     {dir.path()}, true);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  CHECK(phase.name == "trim");
  REQUIRE(phase.op_names == std::vector<std::string>{"trim"});
  CHECK(phase.ops.at(0).ops == 16);
  CHECK(phase.ops.at(0).bytes == 16 * 65536);
  const auto file = fio_run_dir(dir.path()) / "bigfile";
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK(st.st_size == 16 * 65536);  // KEEP_SIZE
  CHECK(st.st_blocks == 0);         // every block punched (a filled file has 2048 sectors)
  std::ostringstream text;
  format_disk_text(run.steps.at(0), text);
  CHECK_THAT(text.str(), Catch::Contains("Completed trimming 1 mbytes across 1 devices using 16 "
                                         "blocks of 65536") &&
                             Catch::Contains("using 16 trims of 64k"));
  std::filesystem::remove_all(fio_run_dir(dir.path()));
}

TEST_CASE("rwmixtrim mixes trims into a mixed phase with their own op and bytes", "[disk]") {
  test::TempDir dir("disk");
  const RunResult run = run_fio_disk(
      {{"rwmix", "30"}, {"rwmixtrim", "30"}, {"bs", "4k"}, {"blocks", "600"}, {"fsync", "false"}},
      {dir.path()}, true);
  REQUIRE(run.status == Status::kOk);
  const PhaseResult& phase = run.steps.at(0).phases.at(0);
  REQUIRE(phase.op_names == std::vector<std::string>{"read", "write", "fsync", "trim"});
  const OpResult& reads = phase.ops.at(0);
  const OpResult& writes = phase.ops.at(1);
  const OpResult& trims = phase.ops.at(3);
  CHECK(reads.ops + writes.ops + trims.ops == 600);
  CHECK(trims.bytes == trims.ops * 4096);
  CHECK(writes.bytes == writes.ops * 4096);
  // Binomial(600, 0.3): standard deviation 11.2; within 5 of them.
  CHECK(std::abs(static_cast<double>(trims.ops) - 180.0) < 56);
  struct stat st {};
  const auto file = fio_run_dir(dir.path()) / "bigfile";
  REQUIRE(::stat(file.c_str(), &st) == 0);
  // One sequential pass: a trimmed block is not written again, so each trim left a hole (the
  // filesystem may add a few blocks of its own, e.g. ext4's extent tree).
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 <= (600 - trims.ops) * 4096 + 65536);
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < 600 * 4096);
  std::filesystem::remove_all(fio_run_dir(dir.path()));
}

namespace {

// An IoFile over a descriptor of /dev/null: what a filesystem without hole punching is to
// fallocate (the engines open only regular files and block devices).
class DevNullFile final : public IoFile {
 public:
  DevNullFile() : fd_(::open("/dev/null", O_RDWR | O_CLOEXEC)) { REQUIRE(fd_ >= 0); }
  ~DevNullFile() override { ::close(fd_); }
  DevNullFile(const DevNullFile&) = delete;
  DevNullFile& operator=(const DevNullFile&) = delete;
  void read_at(std::span<std::byte>, std::uint64_t) override {}
  void write_at(std::span<const std::byte>, std::uint64_t) override {}
  void sync() override {}
  void close() override {}
  [[nodiscard]] std::uint64_t size() const override { return 0; }
  [[nodiscard]] int fd() const override { return fd_; }
  [[nodiscard]] const std::filesystem::path& path() const override { return path_; }

 private:
  int fd_;
  std::filesystem::path path_ = "/dev/null";
};

}  // namespace

TEST_CASE("a trim the file cannot take fails with fallocate's errno and the file", "[disk]") {
  // fallocate on /dev/null fails (ENODEV) as on a filesystem without hole punching
  // (EOPNOTSUPP): the trim must say so instead of counting a trim that did nothing.
  std::vector<std::unique_ptr<IoFile>> files;
  files.push_back(std::make_unique<DevNullFile>());
  DiskFileSet set(std::move(files), 4096, 1);
  try {
    set.trim(0, 4096);
    FAIL("the trim of /dev/null succeeded");
  } catch (const IoError& e) {
    CHECK(e.error_number() != 0);
    CHECK_THAT(std::string(e.what()), Catch::Contains("fallocate(FALLOC_FL_PUNCH_HOLE)") &&
                                          Catch::Contains("/dev/null") &&
                                          Catch::Contains(std::strerror(e.error_number())));
  }
}
